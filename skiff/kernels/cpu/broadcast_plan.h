// Iteration over a broadcast of two operands, for elementwise kernels. The output
// dims are simplified first (size-1 dims dropped, neighbours merged where both
// operands are contiguous across them or both broadcast), so a bias add over
// [64, 1024] becomes 64 runs of 1024 and [1, 16] + [16] a single run of 16.
//
//   BroadcastPlan plan = make_broadcast_plan(x.shape(), y.shape(), out.shape(), axis);
//   for_each_run(plan, 0, out.numel(), [&](int64_t o, int64_t xo, int64_t yo, int64_t n) {
//     for (int64_t i = 0; i < n; ++i)
//       out[o + i] = x[xo + i * plan.inner_x_stride()] + y[yo + i * plan.inner_y_stride()];
//   });
#pragma once

#include <cstdint>

#include "skiff/core/shape.h"

namespace skiff::kernels {

// Pads x and y with 1s to a common rank: at the front (axis == -1, numpy), or for
// axis >= 0 the lower-rank shape goes at dim `axis` of the other (PaddlePaddle; the
// axis is ignored when the ranks are equal). Throws naming both shapes for a bad axis.
inline void align_for_broadcast(const Shape& x, const Shape& y, int axis, Shape* xa, Shape* ya) {
  const bool x_is_big = x.rank() >= y.rank();
  const Shape& big = x_is_big ? x : y;
  const Shape& small = x_is_big ? y : x;
  const int room = big.rank() - small.rank();
  int lead = room;
  if (axis != -1 && room > 0) {
    SKIFF_CHECK(axis >= 0 && axis <= room, "shapes ", x, " and ", y, " cannot be broadcast: axis ",
                axis, " must be -1 or in [0, ", room, "]");
    lead = axis;
  }
  Shape padded = big;
  for (int i = 0; i < big.rank(); ++i)
    padded[i] = (i >= lead && i < lead + small.rank()) ? small[i - lead] : 1;
  *xa = x_is_big ? x : padded;
  *ya = x_is_big ? padded : y;
}

// How two operands of a valid broadcast line up with the output, from element counts
// alone: when an operand has as many elements as the output, its elements are in
// output order (its extra dims are all 1s).
enum class OperandLayout {
  kSameOrder,  // both operands in output order: one flat loop
  kScalarY,    // x in output order, y a single element
  kScalarX,    // y in output order, x a single element
  kBroadcast,  // anything else: needs a BroadcastPlan
};

inline OperandLayout operand_layout(int64_t x_numel, int64_t y_numel, int64_t out_numel) {
  if (x_numel == out_numel && y_numel == out_numel) return OperandLayout::kSameOrder;
  if (x_numel == out_numel && y_numel == 1) return OperandLayout::kScalarY;
  if (y_numel == out_numel && x_numel == 1) return OperandLayout::kScalarX;
  return OperandLayout::kBroadcast;
}

// The simplified output dims and each operand's element stride per dim (0 where it
// is broadcast). The innermost stride of each operand is 0 or 1.
struct BroadcastPlan {
  int rank = 0;
  int64_t dims[Shape::kMaxRank] = {};
  int64_t x_stride[Shape::kMaxRank] = {};
  int64_t y_stride[Shape::kMaxRank] = {};

  int64_t inner_x_stride() const { return x_stride[rank - 1]; }
  int64_t inner_y_stride() const { return y_stride[rank - 1]; }
};

// The plan for computing `out` (the broadcast shape of x and y, all dims known).
inline BroadcastPlan make_broadcast_plan(const Shape& x, const Shape& y, const Shape& out,
                                         int axis) {
  Shape xa, ya;
  align_for_broadcast(x, y, axis, &xa, &ya);
  const int full_rank = out.rank();
  int64_t xs[Shape::kMaxRank], ys[Shape::kMaxRank];
  int64_t x_acc = 1, y_acc = 1;
  for (int i = full_rank - 1; i >= 0; --i) {
    xs[i] = xa[i] == 1 ? 0 : x_acc;
    ys[i] = ya[i] == 1 ? 0 : y_acc;
    x_acc *= xa[i];
    y_acc *= ya[i];
  }
  BroadcastPlan p;
  for (int i = 0; i < full_rank; ++i) {
    if (out[i] == 1) continue;
    const int r = p.rank;
    if (r > 0 && p.x_stride[r - 1] == xs[i] * out[i] && p.y_stride[r - 1] == ys[i] * out[i]) {
      p.dims[r - 1] *= out[i];  // the previous (outer) dim folds into this one
      p.x_stride[r - 1] = xs[i];
      p.y_stride[r - 1] = ys[i];
    } else {
      p.dims[r] = out[i];
      p.x_stride[r] = xs[i];
      p.y_stride[r] = ys[i];
      ++p.rank;
    }
  }
  if (p.rank == 0) {  // a single element
    p.rank = 1;
    p.dims[0] = 1;
  }
  return p;
}

// Calls run(out_offset, x_offset, y_offset, n) for each stretch of the innermost dim
// that covers output elements [begin, end), in order; element k of a stretch is at
// out_offset + k, x_offset + k * inner_x_stride(), y_offset + k * inner_y_stride().
// The output must not be empty.
template <typename Run>
void for_each_run(const BroadcastPlan& p, int64_t begin, int64_t end, Run&& run) {
  const int last = p.rank - 1;
  int64_t idx[Shape::kMaxRank];
  int64_t rest = begin, xo = 0, yo = 0;
  for (int d = last; d >= 0; --d) {
    if (rest == 0) {  // the usual begin of 0 needs no divisions
      idx[d] = 0;
      continue;
    }
    idx[d] = rest % p.dims[d];
    rest /= p.dims[d];
    xo += idx[d] * p.x_stride[d];
    yo += idx[d] * p.y_stride[d];
  }
  for (int64_t o = begin; o < end;) {
    const int64_t left_in_row = p.dims[last] - idx[last];
    const int64_t n = left_in_row < end - o ? left_in_row : end - o;
    run(o, xo, yo, n);
    o += n;
    idx[last] += n;
    xo += n * p.x_stride[last];
    yo += n * p.y_stride[last];
    for (int d = last; d > 0 && idx[d] == p.dims[d]; --d) {  // carry into outer dims
      idx[d] = 0;
      xo += p.x_stride[d - 1] - p.dims[d] * p.x_stride[d];
      yo += p.y_stride[d - 1] - p.dims[d] * p.y_stride[d];
      ++idx[d - 1];
    }
  }
}

}  // namespace skiff::kernels
