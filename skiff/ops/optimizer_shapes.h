// Shape inference shared by the optimizer ops (optimizer.cc, adaptive_optimizers.cc): each
// update's inputs are checked against Param, and each output declared like its input.
#pragma once

#include "skiff/ops/shape_context.h"

namespace skiff::optimizer_shapes {

// `slot` has Param's shape (unknown dims match) and dtype.
void check_like_param(ShapeContext& ctx, const char* slot);
// `slot` is a one-element floating tensor ([1] or []): a learning rate or a power.
void check_one_element(ShapeContext& ctx, const char* slot);
// Grad is like Param, or, where `sparse_ok`, selected rows of Param's dtype.
void check_grad(ShapeContext& ctx, bool sparse_ok);
// Declares `out_slot` shaped and typed like input `in_slot`.
void set_like(ShapeContext& ctx, const char* out_slot, const char* in_slot);

}  // namespace skiff::optimizer_shapes
