#include "skiff/kernels/cpu/where_index.h"

#include "skiff/kernels/cpu/input_handle.h"

namespace skiff::kernels {

void where_index(const Tensor& x, Tensor* out) {
  const Tensor src = input_handle(x);
  const int64_t n = src.numel();
  const int rank = src.rank();
  SKIFF_DISPATCH_ALL(src.dtype(), T, {
    const T* p = src.data<T>();
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += p[i] != T(0);
    out->resize(Shape{count, rank}, DType::kI64);
    int64_t* o = out->data<int64_t>();
    int64_t coord[Shape::kMaxRank] = {};
    for (int64_t i = 0; i < n; ++i) {
      if (p[i] != T(0)) {
        for (int d = 0; d < rank; ++d) *o++ = coord[d];
      }
      for (int d = rank - 1; d >= 0; --d) {  // advance the row-major odometer
        if (++coord[d] < src.dim(d)) break;
        coord[d] = 0;
      }
    }
  });
}

}  // namespace skiff::kernels
