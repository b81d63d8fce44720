#include "skiff/kernels/cpu/accumulate.h"

#include <vector>

#include "skiff/kernels/cpu/bf16_convert.h"

namespace skiff::kernels {

void add_inplace(const Tensor& src, Tensor* acc) {
  SKIFF_CHECK(src.shape() == acc->shape() && src.dtype() == acc->dtype(), "cannot accumulate ",
              src.type_str(), " into ", acc->type_str());
  acc->resize(acc->shape(), acc->dtype());  // own the storage before writing
  if (src.dtype() == DType::kBF16) {        // summed in float32, rounded once
    const int64_t n = src.numel();
    std::vector<float> a(static_cast<size_t>(n)), s(static_cast<size_t>(n));
    bf16_to_float(acc->data<bfloat16>(), a.data(), n);
    bf16_to_float(src.data<bfloat16>(), s.data(), n);
    for (int64_t i = 0; i < n; ++i) a[i] += s[i];
    return float_to_bf16(a.data(), acc->data<bfloat16>(), n);
  }
  if (is_complex(src.dtype())) {  // complex sums add the parts: sum the 2n reals
    SKIFF_DISPATCH_FLOATING(real_of(src.dtype()), T, {
      const T* s = static_cast<const T*>(src.raw_data());
      T* a = static_cast<T*>(acc->raw_data());
      const int64_t n = 2 * src.numel();
      for (int64_t i = 0; i < n; ++i) a[i] += s[i];
    });
    return;
  }
  SKIFF_DISPATCH_NUMERIC(src.dtype(), T, {
    const T* s = src.data<T>();
    T* a = acc->data<T>();
    const int64_t n = src.numel();
    for (int64_t i = 0; i < n; ++i) a[i] += s[i];
  });
}

}  // namespace skiff::kernels
