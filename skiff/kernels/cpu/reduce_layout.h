// The layout of a reduction over a set of axes (a bit mask, as reduce.h takes): the
// shape with size-1 dims dropped and neighbouring dims of the same kind (reduced or
// kept) merged, walked as rows of row_length() contiguous elements, each with the
// offset of its first output. Shared by the sum/mean and the max/min/prod kernels.
//
//   const ReduceLayout c(x.shape(), axes);
//   c.walk(0, c.rows(), [&](int64_t row, int64_t o) {
//     // x[row * c.row_length() + j] reduces into out[o] when c.inner_reduced(),
//     // into out[o + j] otherwise.
//   });
#pragma once

#include <cstdint>

#include "skiff/core/shape.h"

namespace skiff::kernels {

// Merged dims of a tensor under a reduction, and the walk over its rows.
struct ReduceLayout {
  int rank = 0;
  int64_t size[Shape::kMaxRank];
  bool reduced[Shape::kMaxRank];
  int64_t out_stride[Shape::kMaxRank];  // per outer dim; 0 for a reduced one

  // `shape` reduced over the axes whose bits are set in `axes`.
  ReduceLayout(const Shape& shape, uint32_t axes) {
    for (int d = 0; d < shape.rank(); ++d) {
      if (shape[d] == 1) continue;
      const bool r = (axes >> d) & 1u;
      if (rank > 0 && reduced[rank - 1] == r) {
        size[rank - 1] *= shape[d];
      } else {
        size[rank] = shape[d];
        reduced[rank] = r;
        ++rank;
      }
    }
    int64_t acc = inner_reduced() ? 1 : row_length();
    for (int d = rank - 2; d >= 0; --d) {
      out_stride[d] = reduced[d] ? 0 : acc;
      if (!reduced[d]) acc *= size[d];
    }
  }
  // Elements per row; whether a row reduces into one output; the number of rows.
  int64_t row_length() const { return rank ? size[rank - 1] : 1; }
  bool inner_reduced() const { return rank && reduced[rank - 1]; }
  int64_t rows() const {
    int64_t n = 1;
    for (int d = 0; d + 1 < rank; ++d) n *= size[d];
    return n;
  }
  // Calls fn(row, out_offset) for rows [begin, end) in order.
  template <typename Fn>
  void walk(int64_t begin, int64_t end, Fn&& fn) const {
    int64_t idx[Shape::kMaxRank] = {};
    int64_t o = 0, rest = begin;
    for (int d = rank - 2; d >= 0; --d) {
      idx[d] = rest % size[d];
      rest /= size[d];
      o += idx[d] * out_stride[d];
    }
    for (int64_t row = begin; row < end; ++row) {
      fn(row, o);
      for (int d = rank - 2; d >= 0; --d) {
        if (++idx[d] < size[d]) {
          o += out_stride[d];
          break;
        }
        o -= out_stride[d] * (size[d] - 1);
        idx[d] = 0;
      }
    }
  }
};

}  // namespace skiff::kernels
