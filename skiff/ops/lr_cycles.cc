// Learning-rate ops that rise and fall, the closed forms of PaddlePaddle's LinearLR,
// OneCycleLR, CyclicLR (its built-in modes) and CosineAnnealingWarmRestarts: Out [1] from
// the step counter Step (see lr_schedule.h), the one formula of each schedule
// (skiff.optimizer.lr runs these ops too). Not differentiable.
#include <string>

#include "skiff/kernels/cpu/lr_cycles.h"
#include "skiff/ops/lr_schedule.h"

namespace skiff {

namespace {

void infer_linear_lr(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.attr<int64_t>("total_steps") > 0, "total_steps must be > 0, got ",
              ctx.attr<int64_t>("total_steps"));
  infer_lr_schedule(ctx);
}

template <typename C>
void lr_linear_lr(C& c) {
  write_lr_schedule(
      c, "lr_cycles",
      SKIFF_KERNEL_VALUE(c, kernels::linear_lr, attr<double>(c, "learning_rate"),
                         lr_schedule_step(c), attr<int64_t>(c, "total_steps"),
                         attr<double>(c, "start_factor"), attr<double>(c, "end_factor")));
}

void infer_one_cycle(ShapeContext& ctx) {
  const std::string strategy = ctx.attr<std::string>("anneal_strategy");
  SKIFF_CHECK(strategy == "cos" || strategy == "linear",
              "anneal_strategy must be 'cos' or 'linear', got '", strategy, "'");
  SKIFF_CHECK(ctx.attr<int64_t>("total_steps") > 0 && ctx.attr<double>("divide_factor") > 0,
              "total_steps and divide_factor must be > 0");
  infer_lr_schedule(ctx);
}

template <typename C>
void lr_one_cycle(C& c) {
  write_lr_schedule(
      c, "lr_cycles",
      SKIFF_KERNEL_VALUE(c, kernels::one_cycle_lr, lr_schedule_step(c),
                         attr<int64_t>(c, "total_steps"), attr<double>(c, "max_learning_rate"),
                         attr<double>(c, "divide_factor"), attr<double>(c, "end_learning_rate"),
                         attr<double>(c, "phase_pct"), attr<std::string>(c, "anneal_strategy"),
                         attr<bool>(c, "three_phase")));
}

void infer_cyclic(ShapeContext& ctx) {
  const std::string mode = ctx.attr<std::string>("mode");
  SKIFF_CHECK(mode == "triangular" || mode == "triangular2" || mode == "exp_range",
              "mode must be 'triangular', 'triangular2' or 'exp_range', got '", mode, "'");
  SKIFF_CHECK(ctx.attr<double>("step_size_up") > 0 && ctx.attr<double>("step_size_down") > 0,
              "step_size_up and step_size_down must be > 0");
  infer_lr_schedule(ctx);
}

template <typename C>
void lr_cyclic(C& c) {
  write_lr_schedule(
      c, "lr_cycles",
      SKIFF_KERNEL_VALUE(c, kernels::cyclic_lr, attr<double>(c, "learning_rate"),
                         lr_schedule_step(c), attr<double>(c, "max_learning_rate"),
                         attr<double>(c, "step_size_up"), attr<double>(c, "step_size_down"),
                         attr<std::string>(c, "mode"), attr<double>(c, "exp_gamma")));
}

void infer_warm_restarts(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.attr<int64_t>("T_0") > 0 && ctx.attr<int64_t>("T_mult") > 0,
              "T_0 and T_mult must be > 0, got ", ctx.attr<int64_t>("T_0"), " and ",
              ctx.attr<int64_t>("T_mult"));
  infer_lr_schedule(ctx);
}

template <typename C>
void lr_cosine_warm_restarts(C& c) {
  write_lr_schedule(
      c, "lr_cycles",
      SKIFF_KERNEL_VALUE(c, kernels::cosine_warm_restarts_lr, attr<double>(c, "learning_rate"),
                         lr_schedule_step(c), attr<int64_t>(c, "T_0"), attr<int64_t>(c, "T_mult"),
                         attr<double>(c, "eta_min")));
}

}  // namespace

void register_lr_cycle_ops(OpRegistry& r) {
  add_lr_schedule_op(
      r, "lr_linear_lr",
      "Out = learning_rate * (start_factor + (end_factor - start_factor) * min(step, "
      "total_steps) / total_steps), step = Step - step_offset (the closed form of "
      "PaddlePaddle's LinearLR).")
      .required_attr("total_steps", AttrType::kInt, "steps of the ramp (> 0)")
      .attr("start_factor", 1.0 / 3, "the factor at step 0")
      .attr("end_factor", 1.0, "the factor from total_steps on")
      .infer_shape(infer_linear_lr)
      .bind({DType::kF32, DType::kF64}, lr_linear_lr<KernelContext>, lr_linear_lr<EmitContext>);

  add_lr_schedule_op(
      r, "lr_one_cycle",
      "One cycle over total_steps: up from max_learning_rate / divide_factor to "
      "max_learning_rate over phase_pct * total_steps steps, then down to end_learning_rate "
      "(three_phase: back to the initial rate first); fails past total_steps "
      "(PaddlePaddle's OneCycleLR).",
      /*with_learning_rate=*/false)
      .required_attr("total_steps", AttrType::kInt, "the steps of the cycle (> 0)")
      .required_attr("max_learning_rate", AttrType::kFloat, "the peak learning rate")
      .attr("divide_factor", 25.0, "the initial rate is max_learning_rate / divide_factor")
      .attr("end_learning_rate", 0.0001, "the rate at the last step")
      .attr("phase_pct", 0.3, "the share of the steps spent rising")
      .attr("anneal_strategy", std::string("cos"), "'cos' or 'linear'")
      .attr("three_phase", false, "fall back to the initial rate before the final decay")
      .infer_shape(infer_one_cycle)
      .bind({DType::kF32, DType::kF64}, lr_one_cycle<KernelContext>, lr_one_cycle<EmitContext>);

  add_lr_schedule_op(
      r, "lr_cyclic",
      "Triangular cycles between learning_rate and max_learning_rate, step_size_up steps "
      "up and step_size_down down; the height scaled by 1 (mode 'triangular'), 1 / 2^(cycle "
      "- 1) ('triangular2') or exp_gamma^step ('exp_range') (PaddlePaddle's CyclicLR).")
      .required_attr("max_learning_rate", AttrType::kFloat, "the top of the cycle")
      .required_attr("step_size_up", AttrType::kFloat, "steps from the bottom to the top (> 0)")
      .required_attr("step_size_down", AttrType::kFloat, "steps from the top down (> 0)")
      .attr("mode", std::string("triangular"), "'triangular', 'triangular2' or 'exp_range'")
      .attr("exp_gamma", 1.0, "exp_range's factor per step")
      .infer_shape(infer_cyclic)
      .bind({DType::kF32, DType::kF64}, lr_cyclic<KernelContext>, lr_cyclic<EmitContext>);

  add_lr_schedule_op(
      r, "lr_cosine_warm_restarts",
      "Cosine annealing from learning_rate to eta_min over T_i steps, restarting at "
      "learning_rate; T_i is T_0 for the first cycle and T_mult times the last for each next "
      "one (PaddlePaddle's CosineAnnealingWarmRestarts).")
      .required_attr("T_0", AttrType::kInt, "the steps of the first cycle (> 0)")
      .attr("T_mult", int64_t{1}, "the growth of the cycle length at every restart (>= 1)")
      .attr("eta_min", 0.0, "the smallest learning rate")
      .infer_shape(infer_warm_restarts)
      .bind({DType::kF32, DType::kF64}, lr_cosine_warm_restarts<KernelContext>,
            lr_cosine_warm_restarts<EmitContext>);
}

const OpRegistrar kLrCycleOps(register_lr_cycle_ops);

}  // namespace skiff
