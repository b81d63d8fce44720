// Optimizer ops: sgd, momentum, adam, adamw, rmsprop, adagrad (PaddlePaddle semantics).
// sgd, adam and adamw also apply sparse (selected rows) gradients. They update their
// parameter and accumulators in place (ParamOut names the same variable as Param) and
// are not differentiable. api/optimizer.h appends them to a training program.
#include "skiff/kernels/cpu/optimizer.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/optimizer_shapes.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

using optimizer_shapes::check_grad;
using optimizer_shapes::check_like_param;
using optimizer_shapes::check_one_element;
using optimizer_shapes::set_like;

void infer_sgd(ShapeContext& ctx) {
  check_grad(ctx, /*sparse_ok=*/true);
  check_one_element(ctx, "LearningRate");
  set_like(ctx, "ParamOut", "Param");
}

void infer_momentum(ShapeContext& ctx) {
  check_grad(ctx, /*sparse_ok=*/false);
  check_like_param(ctx, "Velocity");
  check_one_element(ctx, "LearningRate");
  set_like(ctx, "ParamOut", "Param");
  set_like(ctx, "VelocityOut", "Velocity");
}

void infer_adam(ShapeContext& ctx) {
  check_grad(ctx, /*sparse_ok=*/true);
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
  const bool amsgrad = ctx.attr<bool>("amsgrad");
  SKIFF_CHECK(!amsgrad || (ctx.has_input("Moment2Max") && ctx.has_output("Moment2MaxOut")),
              "adam: amsgrad needs Moment2Max and Moment2MaxOut");
  if (amsgrad) {
    check_like_param(ctx, "Moment2Max");
    set_like(ctx, "Moment2MaxOut", "Moment2Max");
  }
}

// Grad may be selected rows: then only its rows are updated.
template <typename C>
void sgd(C& c) {
  if (c.in_is_rows("Grad")) {
    const auto& grad = c.rows_in("Grad");
    SKIFF_KERNEL_CALL(c, "optimizer", kernels::sgd_update_rows, c.in("Param"), grad.rows,
                      grad.value, c.in("LearningRate"), c.out("ParamOut"));
    return;
  }
  SKIFF_KERNEL_CALL(c, "optimizer", kernels::sgd_update, c.in("Param"), c.in("Grad"),
                    c.in("LearningRate"), c.out("ParamOut"));
}

template <typename C>
void momentum(C& c) {
  SKIFF_KERNEL_CALL(c, "optimizer", kernels::momentum_update, c.in("Param"), c.in("Grad"),
                    c.in("Velocity"), c.in("LearningRate"),
                    SKIFF_KERNEL_STRUCT(c, kernels::MomentumOptions, attr<double>(c, "mu"),
                                        attr<bool>(c, "use_nesterov")),
                    c.out("ParamOut"), c.out("VelocityOut"));
}

// adam and adamw (decay_coeff > 0), with a dense or a sparse gradient; with amsgrad,
// `moment2_max` and `moment2_max_out` are Moment2Max and Moment2MaxOut, else nullptr.
template <typename C, typename Decay, typename Max, typename MaxOut>
void adam_update(C& c, const Decay& decay_coeff, bool amsgrad, const Max& moment2_max,
                 const MaxOut& moment2_max_out) {
  const auto opts = SKIFF_KERNEL_STRUCT(
      c, kernels::AdamOptions, attr<double>(c, "beta1"), attr<double>(c, "beta2"),
      attr<double>(c, "epsilon"), decay_coeff, attr<bool>(c, "lazy_mode"), constant(c, amsgrad));
  const auto state =
      SKIFF_KERNEL_STRUCT(c, kernels::AdamState, in_ptr(c, "Moment1"), in_ptr(c, "Moment2"),
                          in_ptr(c, "Beta1Pow"), in_ptr(c, "Beta2Pow"), moment2_max);
  const auto out = SKIFF_KERNEL_STRUCT(c, kernels::AdamOutputs, c.out("ParamOut"),
                                       c.out("Moment1Out"), c.out("Moment2Out"),
                                       c.out("Beta1PowOut"), c.out("Beta2PowOut"), moment2_max_out);
  if (c.in_is_rows("Grad")) {
    SKIFF_KERNEL_CALL(c, "optimizer", kernels::adam_update_rows, c.in("Param"), c.rows_in("Grad"),
                      state, c.in("LearningRate"), opts, out);
    return;
  }
  SKIFF_KERNEL_CALL(c, "optimizer", kernels::adam_update, c.in("Param"), c.in("Grad"), state,
                    c.in("LearningRate"), opts, out);
}

template <typename C, typename Decay>
void adam_update(C& c, const Decay& decay_coeff) {
  if (c.op().template attr<bool>("amsgrad")) {
    adam_update(c, decay_coeff, true, in_ptr(c, "Moment2Max"), c.out("Moment2MaxOut"));
  } else {
    adam_update(c, decay_coeff, false, nullptr, nullptr);
  }
}

template <typename C>
void adam(C& c) {
  adam_update(c, constant(c, 0.0));
}

template <typename C>
void adamw(C& c) {
  adam_update(c, attr<double>(c, "coeff"));
}

void infer_rmsprop(ShapeContext& ctx) {
  check_grad(ctx, /*sparse_ok=*/false);
  check_like_param(ctx, "MeanSquare");
  check_like_param(ctx, "Moment");
  check_one_element(ctx, "LearningRate");
  const bool centered = ctx.attr<bool>("centered");
  SKIFF_CHECK(!centered || (ctx.has_input("MeanGrad") && ctx.has_output("MeanGradOut")),
              "rmsprop: centered needs MeanGrad and MeanGradOut");
  set_like(ctx, "ParamOut", "Param");
  set_like(ctx, "MeanSquareOut", "MeanSquare");
  set_like(ctx, "MomentOut", "Moment");
  if (centered) {
    check_like_param(ctx, "MeanGrad");
    set_like(ctx, "MeanGradOut", "MeanGrad");
  }
}

// rmsprop; centered, MeanGrad and MeanGradOut are `mean_grad` and `mean_grad_out`, else
// nullptr.
template <typename C, typename MeanGrad, typename MeanGradOut>
void rmsprop_update(C& c, bool centered, const MeanGrad& mean_grad,
                    const MeanGradOut& mean_grad_out) {
  SKIFF_KERNEL_CALL(c, "optimizer", kernels::rmsprop_update, c.in("Param"), c.in("Grad"),
                    SKIFF_KERNEL_STRUCT(c, kernels::RmspropState, in_ptr(c, "MeanSquare"),
                                        in_ptr(c, "Moment"), mean_grad),
                    c.in("LearningRate"),
                    SKIFF_KERNEL_STRUCT(c, kernels::RmspropOptions, attr<double>(c, "decay"),
                                        attr<double>(c, "epsilon"), attr<double>(c, "momentum"),
                                        constant(c, centered)),
                    SKIFF_KERNEL_STRUCT(c, kernels::RmspropOutputs, c.out("ParamOut"),
                                        c.out("MeanSquareOut"), c.out("MomentOut"), mean_grad_out));
}

template <typename C>
void rmsprop(C& c) {
  if (c.op().template attr<bool>("centered")) {
    rmsprop_update(c, true, in_ptr(c, "MeanGrad"), c.out("MeanGradOut"));
  } else {
    rmsprop_update(c, false, nullptr, nullptr);
  }
}

void infer_adagrad(ShapeContext& ctx) {
  check_grad(ctx, /*sparse_ok=*/false);
  check_like_param(ctx, "Moment");
  check_one_element(ctx, "LearningRate");
  set_like(ctx, "ParamOut", "Param");
  set_like(ctx, "MomentOut", "Moment");
}

template <typename C>
void adagrad(C& c) {
  SKIFF_KERNEL_CALL(c, "optimizer", kernels::adagrad_update, c.in("Param"), c.in("Grad"),
                    c.in("Moment"), c.in("LearningRate"), attr<double>(c, "epsilon"),
                    c.out("ParamOut"), c.out("MomentOut"));
}

// The slots and attrs adam and adamw share.
OpBuilder& adam_slots(OpBuilder& op) {
  return op.input("Param", "the parameter")
      .input("Grad", "its gradient: same shape, or selected rows of it")
      .input("Moment1", "first moment accumulator, same shape (zeros at the start)")
      .input("Moment2", "second moment accumulator, same shape (zeros at the start)")
      .input("Beta1Pow", "beta1^t for the current step t (beta1 at the first step)")
      .input("Beta2Pow", "beta2^t for the current step t (beta2 at the first step)")
      .input("LearningRate", "one-element tensor ([1] or [])")
      .optional_input("Moment2Max", "amsgrad: the running maximum of Moment2 (zeros at the start)")
      .output("ParamOut", "the updated parameter (usually the same variable as Param)")
      .output("Moment1Out", "the updated first moment")
      .output("Moment2Out", "the updated second moment")
      .output("Beta1PowOut", "Beta1Pow * beta1")
      .output("Beta2PowOut", "Beta2Pow * beta2")
      .optional_output("Moment2MaxOut", "amsgrad: max(Moment2Max, Moment2Out)")
      .attr("beta1", 0.9, "decay of the first moment")
      .attr("beta2", 0.999, "decay of the second moment")
      .attr("epsilon", 1e-8, "added to the root of the second moment for stability")
      .attr("lazy_mode", false,
            "sparse Grad only: update just its rows (default: every row, as the dense "
            "update with zero gradient rows elsewhere)")
      .attr("amsgrad", false,
            "AMSGrad: divide by the square root of the running maximum of Moment2 "
            "(Moment2Max) instead of Moment2 itself")
      .infer_shape(infer_adam)
      .kernel_dtype_from("Param");
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
      .bind({DType::kF32, DType::kF64}, sgd<KernelContext>, sgd<EmitContext>)
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
      .bind({DType::kF32, DType::kF64}, momentum<KernelContext>, momentum<EmitContext>)
      .kernel_dtype_from("Param");

  adam_slots(r.add("adam").doc(
                 "Adam: Moment1Out = beta1*Moment1 + (1-beta1)*Grad, Moment2Out = beta2*Moment2 "
                 "+ (1-beta2)*Grad^2, lr_t = LearningRate*sqrt(1-Beta2Pow)/(1-Beta1Pow), "
                 "ParamOut = Param - lr_t*Moment1Out/(sqrt(Moment2Out) + "
                 "epsilon*sqrt(1-Beta2Pow)); then the powers are multiplied by the betas. "
                 "A sparse Grad (selected rows; repeated rows summed) updates every row as "
                 "the dense update would, or only its rows with lazy_mode."))
      .bind({DType::kF32, DType::kF64}, adam<KernelContext>, adam<EmitContext>);

  adam_slots(r.add("adamw").doc("AdamW: Param is first decayed, Param * (1 - LearningRate * coeff) "
                                "(decoupled weight decay), then updated as by adam."))
      .attr("coeff", 0.01, "the decoupled weight decay coefficient")
      .bind({DType::kF32, DType::kF64}, adamw<KernelContext>, adamw<EmitContext>);

  r.add("rmsprop")
      .doc(
          "RMSProp: MeanSquareOut = decay*MeanSquare + (1-decay)*Grad^2; centered: "
          "MeanGradOut = decay*MeanGrad + (1-decay)*Grad; MomentOut = momentum*Moment + "
          "LearningRate*Grad/sqrt(MeanSquareOut - MeanGradOut^2 + epsilon) (without "
          "centering: sqrt(MeanSquareOut + epsilon)); ParamOut = Param - MomentOut.")
      .input("Param", "the parameter")
      .input("Grad", "its gradient, same shape")
      .input("MeanSquare", "running mean of Grad^2, same shape (zeros at the start)")
      .input("Moment", "the momentum accumulator, same shape (zeros at the start)")
      .optional_input("MeanGrad", "running mean of Grad (centered only; zeros at the start)")
      .input("LearningRate", "one-element tensor ([1] or [])")
      .output("ParamOut", "the updated parameter (usually the same variable as Param)")
      .output("MeanSquareOut", "the updated MeanSquare")
      .output("MomentOut", "the updated Moment")
      .optional_output("MeanGradOut", "the updated MeanGrad (centered only)")
      .attr("decay", 0.95, "rho: decay of the running means")
      .attr("epsilon", 1e-6, "added under the root for stability")
      .attr("momentum", 0.0, "momentum factor")
      .attr("centered", false, "normalize by the variance instead of the mean square")
      .infer_shape(infer_rmsprop)
      .bind({DType::kF32, DType::kF64}, rmsprop<KernelContext>, rmsprop<EmitContext>)
      .kernel_dtype_from("Param");

  r.add("adagrad")
      .doc(
          "Adagrad: MomentOut = Moment + Grad^2; ParamOut = Param - LearningRate * Grad / "
          "(sqrt(MomentOut) + epsilon).")
      .input("Param", "the parameter")
      .input("Grad", "its gradient, same shape")
      .input("Moment", "sum of squared gradients, same shape (zeros at the start)")
      .input("LearningRate", "one-element tensor ([1] or [])")
      .output("ParamOut", "the updated parameter (usually the same variable as Param)")
      .output("MomentOut", "the updated Moment")
      .attr("epsilon", 1e-6, "added to the root for stability")
      .infer_shape(infer_adagrad)
      .bind({DType::kF32, DType::kF64}, adagrad<KernelContext>, adagrad<EmitContext>)
      .kernel_dtype_from("Param");
}

const OpRegistrar kOptimizerOps(register_optimizer_ops);

}  // namespace skiff
