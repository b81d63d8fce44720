// Joining tensors along an axis and cutting them apart again: concat / split, and
// stack / unstack (stack's gradient). Any dtype; every part of a row is one memcpy.
//
//   concat({a, b}, /*axis=*/1, &out);                  // [2, 3] + [2, 4] -> [2, 7]
//   split(out, 1, {3, 4}, {&a2, &b2});                 // and back
//   stack({a, a}, /*axis=*/0, &s);                     // [2, 3] -> [2, 2, 3]
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// The shape of `xs` joined along `axis` (negative counts from the back): equal ranks,
// other dims equal (-1 matches any), the axis dim the sum (-1 if any is unknown).
// Throws naming the shapes that do not fit.
Shape concat_shape(const std::vector<Shape>& xs, int64_t axis);
// out = xs joined along `axis`; all of one dtype. `out` may be one of xs' tensors.
void concat(const std::vector<Tensor>& xs, int64_t axis, Tensor* out);
// Each of xs' dims along `axis`: the sizes that split a concat's result back into them.
std::vector<int64_t> concat_sizes(const std::vector<Tensor>& xs, int64_t axis);

// The sizes along the split axis of split's outputs for an axis dim `dim` (of X
// `x`): `num` equal parts when num > 0, else `sections`, where one -1 takes the rest.
// -1 when `dim` is unknown. Throws naming the shape when they do not add up.
std::vector<int64_t> split_sizes(const Shape& x, int64_t axis, int64_t num,
                                 const std::vector<int64_t>& sections);
// outs[i] = the i-th run of sizes[i] entries of x along `axis` (sizes add up to that
// dim); null outs are skipped.
void split(const Tensor& x, int64_t axis, const std::vector<int64_t>& sizes,
           const std::vector<Tensor*>& outs);

// The shape of `xs` stacked along a new axis `axis` (in [-rank-1, rank]): their common
// shape (-1 matches any) with xs.size() inserted. Throws naming differing shapes.
Shape stack_shape(const std::vector<Shape>& xs, int64_t axis);
// out = xs stacked along a new axis; all of one dtype and shape.
void stack(const std::vector<Tensor>& xs, int64_t axis, Tensor* out);
// outs[i] = entry i of y along `axis` (that axis removed); null outs are skipped.
void unstack(const Tensor& y, int64_t axis, const std::vector<Tensor*>& outs);

}  // namespace skiff::kernels
