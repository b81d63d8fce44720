#include "skiff/kernels/cpu/accumulate.h"

namespace skiff::kernels {

void add_inplace(const Tensor& src, Tensor* acc) {
  SKIFF_CHECK(src.shape() == acc->shape() && src.dtype() == acc->dtype(), "cannot accumulate ",
              src.type_str(), " into ", acc->type_str());
  acc->resize(acc->shape(), acc->dtype());  // own the storage before writing
  SKIFF_DISPATCH_NUMERIC(src.dtype(), T, {
    const T* s = src.data<T>();
    T* a = acc->data<T>();
    const int64_t n = src.numel();
    for (int64_t i = 0; i < n; ++i) a[i] += s[i];
  });
}

}  // namespace skiff::kernels
