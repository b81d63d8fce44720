// Inference-only fusion of a convolution with the per-channel bias add and the relu
// after it:
//
//   y = conv2d(x, w)                      out = conv2d(x, w, Bias=b, fuse_relu=true)
//   z = elementwise_add(y, b, axis=1)  ->
//   out = relu(z)
//
//   Program fused = fuse_conv_bias_relu(program);
#pragma once

#include "skiff/ir/program.h"

namespace skiff {

// Rewrites, in every block, conv2d (no Bias, no fused relu) -> elementwise_add of a bias
// b ([M] with axis=1, or [1, M, 1, 1]) [-> relu] into one conv2d with Bias=b [and
// fuse_relu=true]. Only when each intermediate variable is read by that one op in the whole
// program (sub-blocks included), written by no other op, not persistable, and moving the
// fused op to the last op's place reads the same values. Intermediates are assumed not to
// be fetched (a pass does not see the fetch list). The fused op has no gradient: inference
// only.
Program fuse_conv_bias_relu(const Program& program);

}  // namespace skiff
