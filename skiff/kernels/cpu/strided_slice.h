// Strided boxes of a tensor: reading one out (numpy's x[a:b:s, ...], PaddlePaddle's
// strided_slice), writing a broadcast value into one (set_value, behind x[...] = v),
// and the gradients of both.
//
//   std::vector<int64_t> axes{1}, starts{-1}, ends{-(1LL << 62)}, steps{-1}, drop{};
//   StridedSpec spec{axes, starts, ends, steps, drop};
//   strided_slice(x, spec, &out);          // x[:, ::-1]
//   set_strided(x, value, spec, &out);     // out = x with out[:, ::-1] = value
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// Per entry of `axes`: start, end and a non-zero step with Python's slice rules
// (negative start/end count from the back, then clamp; a negative step walks down and
// an end below -dim means "past the first element"). Axes in `decrease` (each must
// select one entry) are dropped from the result. Views its lists, which must outlive it.
struct StridedSpec {
  const std::vector<int64_t>& axes;
  const std::vector<int64_t>& starts;
  const std::vector<int64_t>& ends;
  const std::vector<int64_t>& steps;
  const std::vector<int64_t>& decrease;
};

// The selected box of a tensor of shape `x` with its decreased dims dropped (-1 where
// x's dim is -1). Throws naming the shape and lists when they are inconsistent.
Shape strided_slice_shape(const Shape& x, const StridedSpec& spec);
// out = the box of x; any dtype but bfloat16.
void strided_slice(const Tensor& x, const StridedSpec& spec, Tensor* out);
// x_grad (x_shape, out_grad's float dtype) = zeros with out_grad written into the box.
void strided_slice_grad(const Tensor& out_grad, const Shape& x_shape, const StridedSpec& spec,
                        Tensor* x_grad);

// out = x with its box set to `value` broadcast to the box's shape (numpy rule, decreased
// dims dropped); value has x's dtype. `out` may be x itself (written in place).
void set_strided(const Tensor& x, const Tensor& value, const StridedSpec& spec, Tensor* out);
// Gradients of set_strided: x_grad = out_grad with the box zeroed, value_grad = the box
// of out_grad summed down to `value_shape`. Either output may be null.
void set_strided_grad(const Tensor& out_grad, const Shape& value_shape, const StridedSpec& spec,
                      Tensor* x_grad, Tensor* value_grad);

}  // namespace skiff::kernels
