#include "skiff/kernels/cpu/fill.h"

#include <cstring>

#include "skiff/core/parallel.h"

namespace skiff::kernels {

template <typename T>
void fill_typed(T value, Tensor* out) {
  T* p = out->data<T>();
  const int64_t n = out->numel();
  if (n == 1) {
    *p = value;
    return;
  }
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) p[i] = value;
  });
}

template void fill_typed<float>(float, Tensor*);
template void fill_typed<double>(double, Tensor*);
template void fill_typed<int32_t>(int32_t, Tensor*);
template void fill_typed<int64_t>(int64_t, Tensor*);
template void fill_typed<bool>(bool, Tensor*);
template void fill_typed<std::complex<float>>(std::complex<float>, Tensor*);
template void fill_typed<std::complex<double>>(std::complex<double>, Tensor*);

void fill_constant(const Shape& shape, DType dtype, double value, Tensor* out) {
  SKIFF_CHECK(shape.known(), "fill: the shape must be fully known, got ", shape);
  out->resize(shape, dtype);
  SKIFF_DISPATCH_MOVABLE(dtype, T, fill_typed<T>(fill_value_as<T>(value), out));
}

void zeros_like(const Tensor& x, Tensor* out) {
  SKIFF_CHECK(x.initialized(), "zeros_like: the input tensor has no value");
  out->resize(x.shape(), x.dtype());
  std::memset(out->raw_data(), 0, out->nbytes());
}

void zeros_like(const TensorArray& x, TensorArray* out) {
  if (out == &x) {
    for (Tensor& t : *out)
      if (t.initialized()) zeros_like(t, &t);
    return;
  }
  out->resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i].initialized()) {
      zeros_like(x[i], &(*out)[i]);
    } else {
      (*out)[i] = Tensor();
    }
  }
}

}  // namespace skiff::kernels
