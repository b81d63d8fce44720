// Shapes of the ops that only regroup dims (flatten, squeeze, unsqueeze); their data
// moves with reshape, as a view that shares the input's storage.
//
//   flatten_shape({2, 3, 4}, 1, -1);   // [2, 12]
//   squeeze_shape({1, 3, 1}, {});      // [3]
//   unsqueeze_shape({3}, {0, -1});     // [1, 3, 1]
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/shape.h"

namespace skiff::kernels {

// x with dims [start_axis, stop_axis] multiplied into one (negative axes count from
// the back); -1 when any of them is -1. A rank-0 x gives [1] (its axes must be 0 or -1).
// Throws naming the shape and axes when they are out of range or stop < start.
Shape flatten_shape(const Shape& x, int64_t start_axis, int64_t stop_axis);

// x without the size-1 dims that `axes` name (all of them when `axes` is empty);
// named dims of another size stay. At build time a named -1 dim is taken to be 1.
// Throws naming the shape for an axis out of range.
Shape squeeze_shape(const Shape& x, const std::vector<int64_t>& axes);

// x with a 1 inserted at each of `axes` in turn: each axis indexes the shape grown by
// the ones before it (negative: counted from the back of that shape, -1 appends).
// Throws naming the shape for an axis out of range or a result above rank 8.
Shape unsqueeze_shape(const Shape& x, const std::vector<int64_t>& axes);

}  // namespace skiff::kernels
