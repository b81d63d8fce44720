// Learning-rate schedule ops: each computes the learning rate [1] from a step counter
// (a persistable int64 the training program increments, or the executor writes, every
// step), so a program carries its own learning rate: lr_step_decay, lr_cosine_annealing
// (PaddlePaddle's StepDecay and CosineAnnealingDecay) and lr_linear_warmup, which wraps
// the value of another schedule (PaddlePaddle's LinearWarmup); the other decays are in
// lr_decay.cc, the cycles in lr_cycles.cc. Not differentiable. They are the one
// formula of each schedule: skiff.optimizer.lr's schedulers run them too.
#include "skiff/ops/lr_schedule.h"

#include <utility>

namespace skiff {

namespace {

void check_step(ShapeContext& ctx) {
  const VarDesc& step = ctx.in_var("Step");
  SKIFF_CHECK(step.dtype != DType::kBool && (!step.shape.known() || step.shape.numel() == 1),
              "Step ('", step.name, "') must be a one-element numeric counter, got ",
              dtype_name(step.dtype), step.shape);
}

void infer_step_decay(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.attr<int64_t>("step_size") > 0, "step_size must be > 0, got ",
              ctx.attr<int64_t>("step_size"));
  infer_lr_schedule(ctx);
}

void infer_cosine(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.attr<int64_t>("T_max") > 0, "T_max must be > 0, got ",
              ctx.attr<int64_t>("T_max"));
  infer_lr_schedule(ctx);
}

template <typename C>
void lr_step_decay(C& c) {
  write_lr_schedule(c, "lr_schedule",
                    SKIFF_KERNEL_VALUE(c, kernels::step_decay_lr, attr<double>(c, "learning_rate"),
                                       lr_schedule_step(c), attr<int64_t>(c, "step_size"),
                                       attr<double>(c, "gamma")));
}

template <typename C>
void lr_cosine_annealing(C& c) {
  write_lr_schedule(c, "lr_schedule",
                    SKIFF_KERNEL_VALUE(c, kernels::cosine_annealing_lr,
                                       attr<double>(c, "learning_rate"), lr_schedule_step(c),
                                       attr<int64_t>(c, "T_max"), attr<double>(c, "eta_min")));
}

void infer_warmup(ShapeContext& ctx) {
  check_step(ctx);
  SKIFF_CHECK(ctx.attr<int64_t>("warmup_steps") > 0, "warmup_steps must be > 0, got ",
              ctx.attr<int64_t>("warmup_steps"));
  const VarDesc& lr = ctx.in_var("LearningRate");
  SKIFF_CHECK(is_floating(lr.dtype) && (!lr.shape.known() || lr.shape.numel() == 1),
              "LearningRate ('", lr.name, "') must be a one-element floating tensor, got ",
              dtype_name(lr.dtype), lr.shape);
  ctx.set_output("Out", Shape{1}, lr.dtype);
}

template <typename C>
void lr_linear_warmup(C& c) {
  const auto& after = c.in("LearningRate");
  const auto after_lr = SKIFF_KERNEL_VALUE(c, kernels::read_lr, after);
  SKIFF_KERNEL_CALL(
      c, "lr_schedule", kernels::write_lr,
      SKIFF_KERNEL_VALUE(c, kernels::linear_warmup_lr,
                         SKIFF_KERNEL_VALUE(c, kernels::read_step, c.in("Step")),
                         attr<int64_t>(c, "warmup_steps"), attr<double>(c, "start_lr"),
                         attr<double>(c, "end_lr"), after_lr),
      after.dtype(), c.out("Out"));
}

}  // namespace

OpBuilder add_lr_schedule_op(OpRegistry& r, const std::string& type, std::string doc,
                             bool with_learning_rate) {
  OpBuilder op = r.add(type);
  op.doc(std::move(doc))
      .input("Step",
             "the step counter: one-element, int64 in a program (0 at the first step); "
             "a float64 epoch may be fractional")
      .output("Out", "the learning rate, [1] of dtype");
  if (with_learning_rate)
    op.required_attr("learning_rate", AttrType::kFloat, "the initial learning rate");
  op.attr("step_offset", int64_t{0},
          "subtracted from Step (clamped at 0): the steps of a warmup that wraps this schedule")
      .attr("dtype", std::string("float32"), "Out's dtype (float32 or float64)")
      .infer_shape(infer_lr_schedule);
  return op;
}

void infer_lr_schedule(ShapeContext& ctx) {
  check_step(ctx);
  const DType dtype = dtype_from_name(ctx.attr<std::string>("dtype"));
  SKIFF_CHECK(is_floating(dtype), "the learning rate dtype must be float32 or float64, got ",
              dtype_name(dtype));
  ctx.set_output("Out", Shape{1}, dtype);
}

void register_lr_schedule_ops(OpRegistry& r) {
  add_lr_schedule_op(r, "lr_step_decay",
                     "Out = learning_rate * gamma^floor(step / step_size), step = Step - "
                     "step_offset (PaddlePaddle's StepDecay).")
      .required_attr("step_size", AttrType::kInt, "steps between decays (> 0)")
      .attr("gamma", 0.1, "the factor applied every step_size steps")
      .infer_shape(infer_step_decay)
      .bind({DType::kF32, DType::kF64}, lr_step_decay<KernelContext>, lr_step_decay<EmitContext>);

  add_lr_schedule_op(
      r, "lr_cosine_annealing",
      "Out = eta_min + (learning_rate - eta_min) * (1 + cos(pi * step / T_max)) / 2, step = "
      "Step - step_offset (the closed form of PaddlePaddle's CosineAnnealingDecay).")
      .required_attr("T_max", AttrType::kInt, "steps from learning_rate down to eta_min (> 0)")
      .attr("eta_min", 0.0, "the smallest learning rate")
      .infer_shape(infer_cosine)
      .bind({DType::kF32, DType::kF64}, lr_cosine_annealing<KernelContext>,
            lr_cosine_annealing<EmitContext>);

  r.add("lr_linear_warmup")
      .doc(
          "Out = start_lr + (end_lr - start_lr) * Step / warmup_steps while Step < "
          "warmup_steps, then LearningRate (the wrapped schedule's value, or a constant).")
      .input("Step", "the step counter: one-element int64 (0 at the first step)")
      .input("LearningRate", "the wrapped schedule's learning rate, one element")
      .output("Out", "the learning rate, [1] of LearningRate's dtype")
      .required_attr("warmup_steps", AttrType::kInt, "the length of the warmup (> 0)")
      .attr("start_lr", 0.0, "the learning rate at step 0")
      .required_attr("end_lr", AttrType::kFloat, "the learning rate the warmup heads for")
      .infer_shape(infer_warmup)
      .bind({DType::kF32, DType::kF64}, lr_linear_warmup<KernelContext>,
            lr_linear_warmup<EmitContext>)
      .kernel_dtype_from("LearningRate");
}

const OpRegistrar kLrScheduleOps(register_lr_schedule_ops);

}  // namespace skiff
