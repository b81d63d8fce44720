// The layout of a reduction over a set of axes (a bit mask, as reduce.h takes): the
// shape with size-1 dims dropped and neighbouring dims of the same kind (reduced or
// kept) merged, walked as rows of row_length() contiguous elements, each with the
// offset of its first output; and fold_by_layout, which runs a reduction over that walk
// on threads. Shared by the sum/mean and the max/min/prod kernels.
//
//   const ReduceLayout c(x.shape(), axes);
//   c.walk(0, c.rows(), [&](int64_t row, int64_t o) {
//     // x[row * c.row_length() + j] reduces into out[o] when c.inner_reduced(),
//     // into out[o + j] otherwise.
//   });
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "skiff/core/parallel.h"
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

// Folds rows [begin, end) of x into out: fold_run(p, n, acc) folds n contiguous values
// into one output, combine(acc, v) one value into one output.
template <typename T, typename Acc, typename FoldRun, typename Combine>
void fold_rows(const T* x, const ReduceLayout& c, Acc* out, int64_t begin, int64_t end,
               FoldRun fold_run, Combine combine) {
  const int64_t len = c.row_length();
  if (c.inner_reduced()) {
    c.walk(begin, end,
           [&](int64_t row, int64_t o) { out[o] = fold_run(x + row * len, len, out[o]); });
  } else {
    c.walk(begin, end, [&](int64_t row, int64_t o) {
      const T* __restrict src = x + row * len;
      Acc* __restrict dst = out + o;
#pragma omp simd
      for (int64_t j = 0; j < len; ++j) dst[j] = combine(dst[j], src[j]);
    });
  }
}

// Folds the numel elements of x, laid out as c, into out (holding `identity` in every
// output), on threads where outputs do not collide: per-block partials of a full
// reduction, rows of [kept, reduced], and column ranges of [reduced, kept]. fold_run
// takes runs of T and of Acc (the partials); see fold_rows.
template <typename T, typename Acc, typename FoldRun, typename Combine>
void fold_by_layout(const T* x, int64_t numel, const ReduceLayout& c, Acc* out, Acc identity,
                    FoldRun fold_run, Combine combine) {
  const bool big = numel >= 2 * kParallelGrain;
  if (big && c.rank == 1 && c.reduced[0]) {
    const int64_t blocks = (numel + kParallelGrain - 1) / kParallelGrain;
    std::vector<Acc> partial(blocks, identity);
    parallel_for(blocks, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const int64_t begin = b * kParallelGrain;
        partial[b] = fold_run(x + begin, std::min(kParallelGrain, numel - begin), partial[b]);
      }
    });
    out[0] = fold_run(partial.data(), blocks, out[0]);
  } else if (big && c.rank == 2 && !c.reduced[0]) {
    parallel_for(c.rows(), std::max<int64_t>(1, kParallelGrain / c.row_length()),
                 [&](int64_t r0, int64_t r1) { fold_rows(x, c, out, r0, r1, fold_run, combine); });
  } else if (big && c.rank == 2 && c.reduced[0] && c.size[1] >= 64) {
    const int64_t rows = c.size[0], cols = c.size[1];
    parallel_for(cols, 32, [&](int64_t j0, int64_t j1) {
      for (int64_t i = 0; i < rows; ++i) {
        const T* __restrict src = x + i * cols;
#pragma omp simd
        for (int64_t j = j0; j < j1; ++j) out[j] = combine(out[j], src[j]);
      }
    });
  } else {
    fold_rows(x, c, out, 0, c.rows(), fold_run, combine);
  }
}

}  // namespace skiff::kernels
