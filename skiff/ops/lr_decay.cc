// Learning-rate decay ops, the closed forms of PaddlePaddle's ExponentialDecay,
// NaturalExpDecay, InverseTimeDecay, PolynomialDecay, PiecewiseDecay, MultiStepDecay and
// NoamDecay: Out [1] from the step counter Step (see lr_schedule.h), the one formula of
// each schedule (skiff.optimizer.lr runs these ops too). Not differentiable.
#include <vector>

#include "skiff/ops/lr_schedule.h"

namespace skiff {

namespace {

template <typename C>
void lr_exponential_decay(C& c) {
  write_lr_schedule(
      c, "lr_schedule",
      SKIFF_KERNEL_VALUE(c, kernels::exponential_decay_lr, attr<double>(c, "learning_rate"),
                         lr_schedule_step(c), attr<double>(c, "gamma")));
}

template <typename C>
void lr_natural_exp_decay(C& c) {
  write_lr_schedule(
      c, "lr_schedule",
      SKIFF_KERNEL_VALUE(c, kernels::natural_exp_decay_lr, attr<double>(c, "learning_rate"),
                         lr_schedule_step(c), attr<double>(c, "gamma")));
}

template <typename C>
void lr_inverse_time_decay(C& c) {
  write_lr_schedule(
      c, "lr_schedule",
      SKIFF_KERNEL_VALUE(c, kernels::inverse_time_decay_lr, attr<double>(c, "learning_rate"),
                         lr_schedule_step(c), attr<double>(c, "gamma")));
}

void infer_polynomial(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.attr<int64_t>("decay_steps") > 0, "decay_steps must be > 0, got ",
              ctx.attr<int64_t>("decay_steps"));
  infer_lr_schedule(ctx);
}

template <typename C>
void lr_polynomial_decay(C& c) {
  write_lr_schedule(c, "lr_schedule",
                    SKIFF_KERNEL_VALUE(c, kernels::polynomial_decay_lr,
                                       attr<double>(c, "learning_rate"), lr_schedule_step(c),
                                       attr<int64_t>(c, "decay_steps"), attr<double>(c, "end_lr"),
                                       attr<double>(c, "power"), attr<bool>(c, "cycle")));
}

void infer_piecewise(ShapeContext& ctx) {
  const auto& boundaries = ctx.attr<std::vector<double>>("boundaries");
  const auto& values = ctx.attr<std::vector<double>>("values");
  SKIFF_CHECK(values.size() == boundaries.size() + 1, boundaries.size(), " boundaries need ",
              boundaries.size() + 1, " values, got ", values.size());
  infer_lr_schedule(ctx);
}

template <typename C>
void lr_piecewise_decay(C& c) {
  write_lr_schedule(c, "lr_schedule",
                    SKIFF_KERNEL_VALUE(c, kernels::piecewise_lr, lr_schedule_step(c),
                                       attr_ref<std::vector<double>>(c, "boundaries"),
                                       attr_ref<std::vector<double>>(c, "values")));
}

template <typename C>
void lr_multistep_decay(C& c) {
  write_lr_schedule(
      c, "lr_schedule",
      SKIFF_KERNEL_VALUE(c, kernels::multistep_decay_lr, attr<double>(c, "learning_rate"),
                         lr_schedule_step(c), attr_ref<std::vector<double>>(c, "milestones"),
                         attr<double>(c, "gamma")));
}

void infer_noam(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.attr<double>("d_model") > 0 && ctx.attr<double>("warmup_steps") > 0,
              "d_model and warmup_steps must be > 0, got ", ctx.attr<double>("d_model"), " and ",
              ctx.attr<double>("warmup_steps"));
  infer_lr_schedule(ctx);
}

template <typename C>
void lr_noam_decay(C& c) {
  write_lr_schedule(c, "lr_schedule",
                    SKIFF_KERNEL_VALUE(c, kernels::noam_decay_lr, attr<double>(c, "learning_rate"),
                                       lr_schedule_step(c), attr<double>(c, "d_model"),
                                       attr<double>(c, "warmup_steps")));
}

}  // namespace

void register_lr_decay_ops(OpRegistry& r) {
  add_lr_schedule_op(r, "lr_exponential_decay",
                     "Out = learning_rate * gamma^step, step = Step - step_offset "
                     "(PaddlePaddle's ExponentialDecay).")
      .required_attr("gamma", AttrType::kFloat, "the factor per step")
      .bind({DType::kF32, DType::kF64}, lr_exponential_decay<KernelContext>,
            lr_exponential_decay<EmitContext>);

  add_lr_schedule_op(r, "lr_natural_exp_decay",
                     "Out = learning_rate * exp(-gamma * step), step = Step - step_offset "
                     "(PaddlePaddle's NaturalExpDecay).")
      .required_attr("gamma", AttrType::kFloat, "the decay rate")
      .bind({DType::kF32, DType::kF64}, lr_natural_exp_decay<KernelContext>,
            lr_natural_exp_decay<EmitContext>);

  add_lr_schedule_op(r, "lr_inverse_time_decay",
                     "Out = learning_rate / (1 + gamma * step), step = Step - step_offset "
                     "(PaddlePaddle's InverseTimeDecay).")
      .required_attr("gamma", AttrType::kFloat, "the decay rate (>= 0)")
      .bind({DType::kF32, DType::kF64}, lr_inverse_time_decay<KernelContext>,
            lr_inverse_time_decay<EmitContext>);

  add_lr_schedule_op(
      r, "lr_polynomial_decay",
      "Out = (learning_rate - end_lr) * (1 - step / steps)^power + end_lr, step = Step - "
      "step_offset held at steps = decay_steps; with cycle, steps = decay_steps * max(1, "
      "ceil(step / decay_steps)) (PaddlePaddle's PolynomialDecay).")
      .required_attr("decay_steps", AttrType::kInt, "steps of one decay (> 0)")
      .attr("end_lr", 0.0001, "the learning rate at the end of a decay")
      .attr("power", 1.0, "the power of the polynomial")
      .attr("cycle", false, "restart the decay every decay_steps (from a decayed start)")
      .infer_shape(infer_polynomial)
      .bind({DType::kF32, DType::kF64}, lr_polynomial_decay<KernelContext>,
            lr_polynomial_decay<EmitContext>);

  add_lr_schedule_op(r, "lr_piecewise_decay",
                     "Out = values[i] for the first boundaries[i] > step, else values[-1]; "
                     "step = Step - step_offset (PaddlePaddle's PiecewiseDecay).",
                     /*with_learning_rate=*/false)
      .required_attr("boundaries", AttrType::kFloats, "the steps where the rate changes")
      .required_attr("values", AttrType::kFloats, "the rates, one more than boundaries")
      .infer_shape(infer_piecewise)
      .bind({DType::kF32, DType::kF64}, lr_piecewise_decay<KernelContext>,
            lr_piecewise_decay<EmitContext>);

  add_lr_schedule_op(r, "lr_multistep_decay",
                     "Out = learning_rate * gamma^(the number of milestones <= step), step = "
                     "Step - step_offset (PaddlePaddle's MultiStepDecay).")
      .required_attr("milestones", AttrType::kFloats, "the steps where the rate decays")
      .attr("gamma", 0.1, "the factor applied at every milestone")
      .bind({DType::kF32, DType::kF64}, lr_multistep_decay<KernelContext>,
            lr_multistep_decay<EmitContext>);

  add_lr_schedule_op(
      r, "lr_noam_decay",
      "Out = learning_rate * d_model^-0.5 * min(step^-0.5, warmup_steps^-1.5 * step) (1 for "
      "step^-0.5 at step 0), step = Step - step_offset (PaddlePaddle's NoamDecay).")
      .required_attr("d_model", AttrType::kFloat, "the model's width (> 0)")
      .required_attr("warmup_steps", AttrType::kFloat, "the steps of the rise (> 0)")
      .infer_shape(infer_noam)
      .bind({DType::kF32, DType::kF64}, lr_noam_decay<KernelContext>, lr_noam_decay<EmitContext>);
}

const OpRegistrar kLrDecayOps(register_lr_decay_ops);

}  // namespace skiff
