// A tensor seen as [outer, n, inner] around one axis: kernels that work along an axis
// (log_softmax, top_k, argmax) walk `outer` blocks of n rows of `inner` elements.
//
//   const AxisBlocks s(x.shape(), /*axis=*/1);   // [2, 3, 4] -> outer 2, n 3, inner 4
//   x[s.at(o, i, j)]                              // element i along the axis
#pragma once

#include <cstdint>

#include "skiff/core/shape.h"

namespace skiff::kernels {

// outer: product of the dims before `axis`; n: the axis dim (1 for a rank-0 shape);
// inner: product of the dims after it. `axis` must be in [0, rank) (or 0 at rank 0).
struct AxisBlocks {
  int64_t outer = 1, n = 1, inner = 1;

  AxisBlocks(const Shape& s, int axis) {
    for (int d = 0; d < s.rank(); ++d) {
      if (d < axis) outer *= s[d];
      if (d == axis) n = s[d];
      if (d > axis) inner *= s[d];
    }
  }
  // Elements per outer block.
  int64_t block() const { return n * inner; }
  // The flat index of element i along the axis in lane (o, j).
  int64_t at(int64_t o, int64_t i, int64_t j) const { return (o * n + i) * inner + j; }
};

}  // namespace skiff::kernels
