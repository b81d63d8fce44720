#include "skiff/kernels/cpu/triangular.h"

#include <algorithm>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/input_handle.h"

namespace skiff::kernels {

void triangle(const Tensor& x, int64_t diagonal, bool lower, Tensor* out) {
  SKIFF_CHECK(x.rank() >= 2, lower ? "tril" : "triu", ": X must have at least 2 dims, got ",
              x.type_str());
  const Tensor src = input_handle(x);
  out->resize(src.shape(), src.dtype());
  const int64_t rows = src.dim(src.rank() - 2), cols = src.dim(src.rank() - 1);
  const int64_t matrices = rows * cols == 0 ? 0 : src.numel() / (rows * cols);
  SKIFF_DISPATCH_ALL(src.dtype(), T, {
    const T* in = src.data<T>();
    T* o = out->data<T>();
    parallel_for(matrices * rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(cols, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t r = b; r < e; ++r) {
                     const int64_t i = r % rows;
                     // kept columns: [0, i + diagonal] (lower) or [i + diagonal, cols) (upper)
                     const int64_t edge = i + diagonal;
                     const int64_t lo = lower ? 0 : std::clamp<int64_t>(edge, 0, cols);
                     const int64_t hi = lower ? std::clamp<int64_t>(edge + 1, 0, cols) : cols;
                     const T* row_in = in + r * cols;
                     T* row_out = o + r * cols;
                     for (int64_t j = 0; j < lo; ++j) row_out[j] = T(0);
                     for (int64_t j = lo; j < hi; ++j) row_out[j] = row_in[j];
                     for (int64_t j = hi; j < cols; ++j) row_out[j] = T(0);
                   }
                 });
  });
}

}  // namespace skiff::kernels
