// A walk over a dense (row-major) tensor that tracks where each element sits in N
// other operands laid out by arbitrary element strides (0: the operand repeats along
// that dim). Data-movement kernels (expand, tile, slice, where) describe their
// operands as strides once, then move whole rows of the innermost dim.
//
//   StridedWalk<1> w;                       // out[i][j] = x[j]: x [3] broadcast to [2, 3]
//   w.push(2, {0});
//   w.push(3, {1});
//   walk_rows(w, 0, w.rows(), [&](int64_t row, const int64_t* off) {
//     std::memcpy(out + row * w.row_length(), x + off[0], 3 * sizeof(float));
//   });
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "skiff/core/parallel.h"
#include "skiff/core/shape.h"

namespace skiff::kernels {

// Tile views a rank-r tensor as 2r dims (repeat, dim) pairs.
constexpr int kMaxWalkRank = 2 * Shape::kMaxRank;

// The dense dims of a walk (size-1 dims dropped, neighbours merged where every
// operand is contiguous across them) and each operand's stride per dim.
template <int N>
struct StridedWalk {
  int rank = 0;
  int64_t dims[kMaxWalkRank] = {};
  int64_t strides[N][kMaxWalkRank] = {};

  // Appends the next inner dim of the dense tensor with each operand's stride along it.
  void push(int64_t size, const std::array<int64_t, N>& s) {
    if (size == 1) return;
    if (rank > 0) {
      bool merges = true;
      for (int k = 0; k < N; ++k) merges = merges && strides[k][rank - 1] == s[k] * size;
      if (merges) {
        dims[rank - 1] *= size;
        for (int k = 0; k < N; ++k) strides[k][rank - 1] = s[k];
        return;
      }
    }
    SKIFF_CHECK(rank < kMaxWalkRank, "strided walk: more than ", kMaxWalkRank, " dims");
    dims[rank] = size;
    for (int k = 0; k < N; ++k) strides[k][rank] = s[k];
    ++rank;
  }
  // Elements per row (the innermost dim); 1 for a single element.
  int64_t row_length() const { return rank ? dims[rank - 1] : 1; }
  // Operand k's stride along a row.
  int64_t inner_stride(int k) const { return rank ? strides[k][rank - 1] : 0; }
  int64_t rows() const {
    int64_t n = 1;
    for (int d = 0; d + 1 < rank; ++d) n *= dims[d];
    return n;
  }
};

// Calls fn(row, offsets) for rows [begin, end) in order, where offsets[k] is operand
// k's element offset of the row's first element; the row starts at dense offset
// row * row_length(). Walks must not contain a size-0 dim (skip empty tensors).
template <int N, typename Fn>
void walk_rows(const StridedWalk<N>& w, int64_t begin, int64_t end, Fn&& fn) {
  const int outer = w.rank - 1;  // dims [0, outer) index the rows
  int64_t idx[kMaxWalkRank] = {};
  int64_t off[N] = {};
  int64_t rest = begin;
  for (int d = outer - 1; d >= 0 && rest > 0; --d) {
    idx[d] = rest % w.dims[d];
    rest /= w.dims[d];
    for (int k = 0; k < N; ++k) off[k] += idx[d] * w.strides[k][d];
  }
  for (int64_t row = begin; row < end; ++row) {
    fn(row, static_cast<const int64_t*>(off));
    for (int d = outer - 1; d >= 0; --d) {  // advance the odometer
      if (++idx[d] < w.dims[d]) {
        for (int k = 0; k < N; ++k) off[k] += w.strides[k][d];
        break;
      }
      for (int k = 0; k < N; ++k) off[k] -= w.strides[k][d] * (w.dims[d] - 1);
      idx[d] = 0;
    }
  }
}

// Row-major element strides of `shape`.
inline void dense_strides(const Shape& shape, int64_t* strides) {
  int64_t acc = 1;
  for (int d = shape.rank() - 1; d >= 0; --d) {
    strides[d] = acc;
    acc *= shape[d];
  }
}

// Strides of `operand` read along the dims of `out` it broadcasts to (numpy rule,
// aligned at the last dims): 0 where the operand has a 1 or lacks the dim.
inline void broadcast_strides(const Shape& operand, const Shape& out, int64_t* strides) {
  const int lead = out.rank() - operand.rank();
  int64_t acc = 1;
  for (int d = out.rank() - 1; d >= 0; --d) {
    const int64_t dim = d < lead ? 1 : operand[d - lead];
    strides[d] = dim == 1 ? 0 : acc;
    acc *= dim;
  }
}

// dst (dense, w's dims) = src read through operand 0 of `w`: whole rows by memcpy where
// src is contiguous along them (short ones by a loop), a fill where it repeats.
// Threaded past kParallelGrain.
template <typename T>
void copy_from_strided(const StridedWalk<1>& w, const T* src, T* dst) {
  const int64_t len = w.row_length(), stride = w.inner_stride(0);
  parallel_for(w.rows(), std::max<int64_t>(1, kParallelGrain / len), [&](int64_t b, int64_t e) {
    walk_rows(w, b, e, [&](int64_t row, const int64_t* off) {
      T* o = dst + row * len;
      const T* s = src + off[0];
      if (stride == 0) {
        std::fill(o, o + len, *s);
      } else if (stride == 1 && len * sizeof(T) >= 64) {
        std::memcpy(o, s, static_cast<size_t>(len) * sizeof(T));
      } else {  // a call to memcpy would cost more than copying a short row
        for (int64_t i = 0; i < len; ++i) o[i] = s[i * stride];
      }
    });
  });
}

// dst read through operand 0 of `w` += src (dense, w's dims): where dst repeats, the
// repeated src values are summed into it (float32 in float64). One thread, since rows
// may share dst elements.
template <typename T>
void add_to_strided(const StridedWalk<1>& w, const T* src, T* dst) {
  using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
  const int64_t len = w.row_length(), stride = w.inner_stride(0);
  walk_rows(w, 0, w.rows(), [&](int64_t row, const int64_t* off) {
    const T* s = src + row * len;
    T* d = dst + off[0];
    if (stride == 0) {
      Acc acc = Acc(0);
#pragma omp simd reduction(+ : acc)
      for (int64_t i = 0; i < len; ++i) acc += s[i];
      *d += static_cast<T>(acc);
    } else if (stride == 1) {
#pragma omp simd
      for (int64_t i = 0; i < len; ++i) d[i] += s[i];
    } else {
      for (int64_t i = 0; i < len; ++i) d[i * stride] += s[i];
    }
  });
}

}  // namespace skiff::kernels
