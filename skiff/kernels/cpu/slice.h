// Slicing a box out of a tensor (PaddlePaddle's slice) and writing a gradient back
// into it. Rows that stay contiguous in the input are moved by memcpy.
//
//   std::vector<int64_t> axes{0, 1}, starts{1, -3}, ends{2, 100}, decrease{0};
//   slice(x, SliceSpec{axes, starts, ends, decrease}, &out);   // x[1, -3:] of [4, 5] -> [3]
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// Which box to take. Per entry of `axes`, a start and an end: negative ones count
// from the back of that dim, then both clamp to [0, dim]; an end at or before the
// start selects nothing. Axes of `decrease_axis` (each must select one entry) are
// dropped from the result. Views the four lists (an op's attrs), which must outlive it.
struct SliceSpec {
  const std::vector<int64_t>& axes;
  const std::vector<int64_t>& starts;
  const std::vector<int64_t>& ends;
  const std::vector<int64_t>& decrease_axis;
};

// The shape slice gives x (its sliced -1 dims stay -1). Throws naming the shape and
// the lists when they are inconsistent: unequal lengths, an axis out of range or
// repeated, a decreased axis that does not keep exactly one entry.
Shape slice_shape(const Shape& x, const SliceSpec& spec);
// out = the box of x that `spec` selects; any dtype.
void slice(const Tensor& x, const SliceSpec& spec, Tensor* out);
// x_grad (x_shape, float32/float64) = zeros with out_grad written into the box.
void slice_grad(const Tensor& out_grad, const Shape& x_shape, const SliceSpec& spec,
                Tensor* x_grad);

}  // namespace skiff::kernels
