// Optimizer ops: sgd, momentum, adam (PaddlePaddle semantics). They update their
// parameter and accumulators in place (ParamOut names the same variable as Param) and
// are not differentiable. autodiff/optimizer.h appends them to a training program.
#include "skiff/kernels/cpu/optimizer.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// True when two build-time shapes can describe the same tensor (-1 matches anything).
bool shapes_compatible(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i)
    if (a[i] >= 0 && b[i] >= 0 && a[i] != b[i]) return false;
  return true;
}

void check_like_param(ShapeContext& ctx, const char* slot) {
  const VarDesc& p = ctx.in_var("Param");
  const VarDesc& v = ctx.in_var(slot);
  SKIFF_CHECK(shapes_compatible(p.shape, v.shape) && p.dtype == v.dtype, slot, " ('", v.name, "', ",
              dtype_name(v.dtype), v.shape, ") does not match Param ('", p.name, "', ",
              dtype_name(p.dtype), p.shape, ")");
}

void check_one_element(ShapeContext& ctx, const char* slot) {
  const VarDesc& v = ctx.in_var(slot);
  SKIFF_CHECK(is_floating(v.dtype) && (!v.shape.known() || v.shape.numel() == 1), slot, " ('",
              v.name, "') must be a one-element floating tensor, got ", dtype_name(v.dtype),
              v.shape);
}

// Declares `out_slot` shaped and typed like input `in_slot`.
void set_like(ShapeContext& ctx, const char* out_slot, const char* in_slot) {
  ctx.set_output(out_slot, ctx.in_shape(in_slot), ctx.in_dtype(in_slot));
}

void infer_sgd(ShapeContext& ctx) {
  // A sparse gradient (selected rows) has its own row count: only dtypes must agree.
  const VarDesc& g = ctx.in_var("Grad");
  if (g.kind == VarKind::kSelectedRows) {
    SKIFF_CHECK(g.dtype == ctx.in_dtype("Param"), "Grad ('", g.name, "') is ", dtype_name(g.dtype),
                ", Param is ", dtype_name(ctx.in_dtype("Param")));
  } else {
    check_like_param(ctx, "Grad");
  }
  check_one_element(ctx, "LearningRate");
  set_like(ctx, "ParamOut", "Param");
}

void infer_momentum(ShapeContext& ctx) {
  check_like_param(ctx, "Grad");
  check_like_param(ctx, "Velocity");
  check_one_element(ctx, "LearningRate");
  set_like(ctx, "ParamOut", "Param");
  set_like(ctx, "VelocityOut", "Velocity");
}

void infer_adam(ShapeContext& ctx) {
  check_like_param(ctx, "Grad");
  check_like_param(ctx, "Moment1");
  check_like_param(ctx, "Moment2");
  check_one_element(ctx, "LearningRate");
  check_one_element(ctx, "Beta1Pow");
  check_one_element(ctx, "Beta2Pow");
  set_like(ctx, "ParamOut", "Param");
  set_like(ctx, "Moment1Out", "Moment1");
  set_like(ctx, "Moment2Out", "Moment2");
  set_like(ctx, "Beta1PowOut", "Beta1Pow");
  set_like(ctx, "Beta2PowOut", "Beta2Pow");
}

void sgd_kernel(KernelContext& ctx) {
  const Variable* grad = ctx.in_var("Grad");
  if (grad && grad->selected_rows()) {
    const SelectedRows& rows = *grad->selected_rows();
    kernels::sgd_update_rows(ctx.in("Param"), rows.rows, rows.value, ctx.in("LearningRate"),
                             ctx.out("ParamOut"));
    return;
  }
  kernels::sgd_update(ctx.in("Param"), ctx.in("Grad"), ctx.in("LearningRate"), ctx.out("ParamOut"));
}

void momentum_kernel(KernelContext& ctx) {
  kernels::MomentumOptions opts;
  opts.mu = ctx.attr<double>("mu");
  opts.use_nesterov = ctx.attr<bool>("use_nesterov");
  kernels::momentum_update(ctx.in("Param"), ctx.in("Grad"), ctx.in("Velocity"),
                           ctx.in("LearningRate"), opts, ctx.out("ParamOut"),
                           ctx.out("VelocityOut"));
}

void adam_kernel(KernelContext& ctx) {
  kernels::AdamOptions opts;
  opts.beta1 = ctx.attr<double>("beta1");
  opts.beta2 = ctx.attr<double>("beta2");
  opts.epsilon = ctx.attr<double>("epsilon");
  kernels::AdamState state{&ctx.in("Moment1"), &ctx.in("Moment2"), &ctx.in("Beta1Pow"),
                           &ctx.in("Beta2Pow")};
  kernels::AdamOutputs out{ctx.out("ParamOut"), ctx.out("Moment1Out"), ctx.out("Moment2Out"),
                           ctx.out("Beta1PowOut"), ctx.out("Beta2PowOut")};
  kernels::adam_update(ctx.in("Param"), ctx.in("Grad"), state, ctx.in("LearningRate"), opts, out);
}

}  // namespace

void register_optimizer_ops(OpRegistry& r) {
  r.add("sgd")
      .doc(
          "ParamOut = Param - LearningRate * Grad. Grad may be selected rows (a sparse "
          "gradient): then only those rows are updated.")
      .input("Param", "the parameter")
      .input("Grad", "its gradient: same shape, or selected rows of it")
      .input("LearningRate", "one-element tensor ([1] or [])")
      .output("ParamOut", "the updated parameter (usually the same variable as Param)")
      .infer_shape(infer_sgd)
      .kernel({DType::kF32, DType::kF64}, sgd_kernel)
      .kernel_dtype_from("Param");

  r.add("momentum")
      .doc(
          "VelocityOut = mu * Velocity + Grad; ParamOut = Param - LearningRate * "
          "(Grad + mu * VelocityOut) with Nesterov, else Param - LearningRate * VelocityOut.")
      .input("Param", "the parameter")
      .input("Grad", "its gradient, same shape")
      .input("Velocity", "the velocity accumulator, same shape (zeros at the start)")
      .input("LearningRate", "one-element tensor ([1] or [])")
      .output("ParamOut", "the updated parameter (usually the same variable as Param)")
      .output("VelocityOut", "the updated velocity (usually the same variable as Velocity)")
      .attr("mu", 0.9, "momentum factor")
      .attr("use_nesterov", false, "use Nesterov's accelerated gradient")
      .infer_shape(infer_momentum)
      .kernel({DType::kF32, DType::kF64}, momentum_kernel)
      .kernel_dtype_from("Param");

  r.add("adam")
      .doc(
          "Adam: Moment1Out = beta1*Moment1 + (1-beta1)*Grad, Moment2Out = beta2*Moment2 + "
          "(1-beta2)*Grad^2, lr_t = LearningRate*sqrt(1-Beta2Pow)/(1-Beta1Pow), ParamOut = "
          "Param - lr_t*Moment1Out/(sqrt(Moment2Out) + epsilon*sqrt(1-Beta2Pow)); then the "
          "powers are multiplied by the betas.")
      .input("Param", "the parameter")
      .input("Grad", "its gradient, same shape")
      .input("Moment1", "first moment accumulator, same shape (zeros at the start)")
      .input("Moment2", "second moment accumulator, same shape (zeros at the start)")
      .input("Beta1Pow", "beta1^t for the current step t (beta1 at the first step)")
      .input("Beta2Pow", "beta2^t for the current step t (beta2 at the first step)")
      .input("LearningRate", "one-element tensor ([1] or [])")
      .output("ParamOut", "the updated parameter (usually the same variable as Param)")
      .output("Moment1Out", "the updated first moment")
      .output("Moment2Out", "the updated second moment")
      .output("Beta1PowOut", "Beta1Pow * beta1")
      .output("Beta2PowOut", "Beta2Pow * beta2")
      .attr("beta1", 0.9, "decay of the first moment")
      .attr("beta2", 0.999, "decay of the second moment")
      .attr("epsilon", 1e-8, "added to the root of the second moment for stability")
      .infer_shape(infer_adam)
      .kernel({DType::kF32, DType::kF64}, adam_kernel)
      .kernel_dtype_from("Param");
}

}  // namespace skiff
