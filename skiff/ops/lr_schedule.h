// What the learning-rate schedule op files (lr_schedule.cc, lr_decay.cc, lr_cycles.cc)
// share: every schedule op reads a step counter Step (minus step_offset, clamped at 0)
// and writes the learning rate Out, [1] of its dtype attr.
//
//   add_lr_schedule_op(r, "lr_exponential_decay", "Out = learning_rate * gamma^step.")
//       .required_attr("gamma", AttrType::kFloat, "the factor per step")
//       .bind({DType::kF32, DType::kF64}, run<KernelContext>, run<EmitContext>);
#pragma once

#include <string>

#include "skiff/kernels/cpu/lr_schedule.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

// Registers `type` with input Step, output Out, attrs learning_rate (required, unless
// `with_learning_rate` is false), step_offset and dtype, and the shape function
// infer_lr_schedule; the caller adds its own attributes and binding.
OpBuilder add_lr_schedule_op(OpRegistry& r, const std::string& type, std::string doc,
                             bool with_learning_rate = true);

// Step must be a one-element numeric counter; Out is [1] of the floating dtype attr.
void infer_lr_schedule(ShapeContext& ctx);

// The schedule's step: Step - step_offset, clamped at 0 (its value, or the expression).
template <typename C>
auto lr_schedule_step(C& c) {
  return SKIFF_KERNEL_VALUE(c, kernels::read_step, c.in("Step"), attr<int64_t>(c, "step_offset"));
}

// Writes `lr` (a value of kernel family `family`) to Out in the dtype attr's dtype.
template <typename C, typename V>
void write_lr_schedule(C& c, const char* family, const V& lr) {
  SKIFF_KERNEL_CALL(c, family, kernels::write_lr, lr, dtype_attr(c, "dtype"), c.out("Out"));
}

}  // namespace skiff
