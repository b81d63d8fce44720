// The adaptive optimizers that keep per-step state beside their moments: adamax, adadelta,
// nadam, radam, lamb (PaddlePaddle semantics; dense gradients only). The core updates
// (sgd, momentum, adam/adamw, rmsprop, adagrad; some with sparse gradients) are in
// optimizer.cc. Like those they update their parameter and accumulators in place (each
// output names the same variable as its input) and are not differentiable.
#include "skiff/kernels/cpu/adaptive_optimizers.h"
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

// A per-step value: a floating tensor of any non-empty shape, every element equal.
void check_step_value(ShapeContext& ctx, const char* slot) {
  const VarDesc& v = ctx.in_var(slot);
  SKIFF_CHECK(is_floating(v.dtype) && (!v.shape.known() || v.shape.numel() >= 1), slot, " ('",
              v.name, "') must be a non-empty floating tensor, got ", dtype_name(v.dtype), v.shape);
}

// Checks the slots shaped like Param and the per-step values, and declares each
// "<slot>Out" like its "<slot>" (ParamOut included).
void infer_update(ShapeContext& ctx, std::initializer_list<const char*> like_param,
                  std::initializer_list<const char*> step_values) {
  check_grad(ctx, /*sparse_ok=*/false);
  check_one_element(ctx, "LearningRate");
  set_like(ctx, "ParamOut", "Param");
  for (const char* slot : like_param) {
    check_like_param(ctx, slot);
    set_like(ctx, (std::string(slot) + "Out").c_str(), slot);
  }
  for (const char* slot : step_values) {
    check_step_value(ctx, slot);
    const std::string out = std::string(slot) + "Out";
    if (ctx.has_output(out.c_str())) set_like(ctx, out.c_str(), slot);
  }
}

void infer_adamax(ShapeContext& ctx) { infer_update(ctx, {"Moment", "InfNorm"}, {"Beta1Pow"}); }

void infer_adadelta(ShapeContext& ctx) {
  infer_update(ctx, {"AvgSquaredGrad", "AvgSquaredUpdate"}, {});
}

void infer_nadam(ShapeContext& ctx) {
  infer_update(ctx, {"Moment1", "Moment2"}, {"MomentumDecayPow", "Beta2Pow", "MuProduct"});
}

void infer_radam(ShapeContext& ctx) {
  infer_update(ctx, {"Moment1", "Moment2"}, {"Beta1Pow", "Beta2Pow", "Rho"});
}

void infer_lamb(ShapeContext& ctx) {
  infer_update(ctx, {"Moment1", "Moment2"}, {"Beta1Pow", "Beta2Pow"});
}

template <typename C>
void adamax(C& c) {
  SKIFF_KERNEL_CALL(
      c, "adaptive_optimizers", kernels::adamax_update, c.in("Param"), c.in("Grad"),
      SKIFF_KERNEL_STRUCT(c, kernels::AdamaxState, in_ptr(c, "Moment"), in_ptr(c, "InfNorm"),
                          in_ptr(c, "Beta1Pow")),
      c.in("LearningRate"),
      SKIFF_KERNEL_STRUCT(c, kernels::AdamaxOptions, attr<double>(c, "beta1"),
                          attr<double>(c, "beta2"), attr<double>(c, "epsilon")),
      SKIFF_KERNEL_STRUCT(c, kernels::AdamaxOutputs, c.out("ParamOut"), c.out("MomentOut"),
                          c.out("InfNormOut"), c.out("Beta1PowOut")));
}

template <typename C>
void adadelta(C& c) {
  SKIFF_KERNEL_CALL(c, "adaptive_optimizers", kernels::adadelta_update, c.in("Param"), c.in("Grad"),
                    c.in("AvgSquaredGrad"), c.in("AvgSquaredUpdate"), c.in("LearningRate"),
                    SKIFF_KERNEL_STRUCT(c, kernels::AdadeltaOptions, attr<double>(c, "rho"),
                                        attr<double>(c, "epsilon")),
                    SKIFF_KERNEL_STRUCT(c, kernels::AdadeltaOutputs, c.out("ParamOut"),
                                        c.out("AvgSquaredGradOut"), c.out("AvgSquaredUpdateOut")));
}

template <typename C>
void nadam(C& c) {
  SKIFF_KERNEL_CALL(
      c, "adaptive_optimizers", kernels::nadam_update, c.in("Param"), c.in("Grad"),
      SKIFF_KERNEL_STRUCT(c, kernels::NadamState, in_ptr(c, "MomentumDecayPow"),
                          in_ptr(c, "Beta2Pow"), in_ptr(c, "MuProduct"), in_ptr(c, "Moment1"),
                          in_ptr(c, "Moment2")),
      c.in("LearningRate"),
      SKIFF_KERNEL_STRUCT(c, kernels::NadamOptions, attr<double>(c, "beta1"),
                          attr<double>(c, "beta2"), attr<double>(c, "epsilon"),
                          attr<double>(c, "momentum_decay")),
      SKIFF_KERNEL_STRUCT(c, kernels::NadamOutputs, c.out("ParamOut"), c.out("MomentumDecayPowOut"),
                          c.out("Beta2PowOut"), c.out("MuProductOut"), c.out("Moment1Out"),
                          c.out("Moment2Out")));
}

template <typename C>
void radam(C& c) {
  SKIFF_KERNEL_CALL(
      c, "adaptive_optimizers", kernels::radam_update, c.in("Param"), c.in("Grad"),
      SKIFF_KERNEL_STRUCT(c, kernels::RadamState, in_ptr(c, "Beta1Pow"), in_ptr(c, "Beta2Pow"),
                          in_ptr(c, "Rho"), in_ptr(c, "Moment1"), in_ptr(c, "Moment2")),
      c.in("LearningRate"),
      SKIFF_KERNEL_STRUCT(c, kernels::RadamOptions, attr<double>(c, "beta1"),
                          attr<double>(c, "beta2"), attr<double>(c, "epsilon")),
      SKIFF_KERNEL_STRUCT(c, kernels::RadamOutputs, c.out("ParamOut"), c.out("Beta1PowOut"),
                          c.out("Beta2PowOut"), c.out("RhoOut"), c.out("Moment1Out"),
                          c.out("Moment2Out")));
}

template <typename C>
void lamb(C& c) {
  SKIFF_KERNEL_CALL(
      c, "adaptive_optimizers", kernels::lamb_update, c.in("Param"), c.in("Grad"),
      SKIFF_KERNEL_STRUCT(c, kernels::LambState, in_ptr(c, "Moment1"), in_ptr(c, "Moment2"),
                          in_ptr(c, "Beta1Pow"), in_ptr(c, "Beta2Pow")),
      c.in("LearningRate"),
      SKIFF_KERNEL_STRUCT(c, kernels::LambOptions, attr<double>(c, "beta1"),
                          attr<double>(c, "beta2"), attr<double>(c, "epsilon"),
                          attr<double>(c, "weight_decay"), attr<bool>(c, "always_adapt")),
      SKIFF_KERNEL_STRUCT(c, kernels::LambOutputs, c.out("ParamOut"), c.out("Moment1Out"),
                          c.out("Moment2Out"), c.out("Beta1PowOut"), c.out("Beta2PowOut")));
}

// The leading slots every update shares.
OpBuilder& param_slots(OpBuilder& op) {
  return op.input("Param", "the parameter")
      .input("Grad", "its gradient, same shape")
      .input("LearningRate", "one-element tensor ([1] or [])")
      .output("ParamOut", "the updated parameter (usually the same variable as Param)");
}

const char* const kStepValueNote =
    " (a tensor of any shape with every element equal; PaddlePaddle keeps it shaped like "
    "Param)";

}  // namespace

void register_adaptive_optimizer_ops(OpRegistry& r) {
  param_slots(r.add("adamax").doc(
                  "Adamax: MomentOut = beta1*Moment + (1-beta1)*Grad; InfNormOut = max(|Grad|, "
                  "beta2*InfNorm + epsilon); ParamOut = Param - LearningRate/(1-Beta1Pow) * "
                  "MomentOut/InfNormOut; Beta1PowOut (optional) = Beta1Pow*beta1."))
      .input("Moment", "first moment, same shape as Param (zeros at the start)")
      .input("InfNorm", "exponentially weighted infinity norm, same shape (zeros at the start)")
      .input("Beta1Pow", "beta1^t for the current step t (beta1 at the first step)")
      .output("MomentOut", "the updated Moment")
      .output("InfNormOut", "the updated InfNorm")
      .optional_output("Beta1PowOut", "Beta1Pow * beta1 (PaddlePaddle scales it separately)")
      .attr("beta1", 0.9, "decay of the first moment")
      .attr("beta2", 0.999, "decay of the infinity norm")
      .attr("epsilon", 1e-8, "added to the decayed infinity norm")
      .infer_shape(infer_adamax)
      .bind({DType::kF32, DType::kF64}, adamax<KernelContext>, adamax<EmitContext>)
      .kernel_dtype_from("Param");

  param_slots(r.add("adadelta")
                  .doc("Adadelta: AvgSquaredGradOut = rho*AvgSquaredGrad + (1-rho)*Grad^2; d = "
                       "-sqrt(AvgSquaredUpdate + epsilon)/sqrt(AvgSquaredGradOut + epsilon)*Grad; "
                       "ParamOut = Param + LearningRate*d; AvgSquaredUpdateOut = "
                       "rho*AvgSquaredUpdate + (1-rho)*d^2."))
      .input("AvgSquaredGrad", "running mean of Grad^2, same shape (zeros at the start)")
      .input("AvgSquaredUpdate", "running mean of d^2, same shape (zeros at the start)")
      .output("AvgSquaredGradOut", "the updated AvgSquaredGrad")
      .output("AvgSquaredUpdateOut", "the updated AvgSquaredUpdate")
      .attr("rho", 0.95, "decay of the running means")
      .attr("epsilon", 1e-6, "added under both roots")
      .infer_shape(infer_adadelta)
      .bind({DType::kF32, DType::kF64}, adadelta<KernelContext>, adadelta<EmitContext>)
      .kernel_dtype_from("Param");

  param_slots(r.add("nadam").doc(
                  "NAdam (Adam with Nesterov momentum): d = 0.96*MomentumDecayPow, mu_t = "
                  "beta1*(1 - d^momentum_decay/2), mu_next = beta1*(1 - "
                  "(0.96*d)^momentum_decay/2), P = MuProduct*mu_t; moments as in adam; "
                  "ParamOut = Param - LearningRate*(mu_next*Moment1Out/(1 - P*mu_next) + "
                  "(1-mu_t)*Grad/(1-P)) / (sqrt(Moment2Out/(1 - Beta2Pow*beta2)) + epsilon)."))
      .input("MomentumDecayPow", std::string("0.96^(t-1), 1 at the start") + kStepValueNote)
      .input("Beta2Pow", std::string("beta2^(t-1), 1 at the start") + kStepValueNote)
      .input("MuProduct", std::string("mu_1*...*mu_(t-1), 1 at the start") + kStepValueNote)
      .input("Moment1", "first moment, same shape as Param (zeros at the start)")
      .input("Moment2", "second moment, same shape (zeros at the start)")
      .output("MomentumDecayPowOut", "MomentumDecayPow * 0.96")
      .output("Beta2PowOut", "Beta2Pow * beta2")
      .output("MuProductOut", "MuProduct * mu_t")
      .output("Moment1Out", "the updated first moment")
      .output("Moment2Out", "the updated second moment")
      .attr("beta1", 0.9, "decay of the first moment")
      .attr("beta2", 0.999, "decay of the second moment")
      .attr("epsilon", 1e-8, "added to the root of the corrected second moment")
      .attr("momentum_decay", 0.004, "psi: how fast the momentum schedule decays")
      .infer_shape(infer_nadam)
      .bind({DType::kF32, DType::kF64}, nadam<KernelContext>, nadam<EmitContext>)
      .kernel_dtype_from("Param");

  param_slots(r.add("radam").doc(
                  "RAdam (rectified Adam): with b1t = Beta1Pow*beta1, b2t = Beta2Pow*beta2, "
                  "RhoOut = (Rho*(beta2-b2t) + b2t)/(1-b2t) (= t*b2t/(1-b2t)), rho_inf = "
                  "2/(1-beta2) - 1, rho_t = rho_inf - 2*RhoOut; moments as in adam; if rho_t > "
                  "5: ParamOut = Param - LearningRate*Moment1Out/(1-b1t) * r_t * "
                  "sqrt(1-b2t)/(sqrt(Moment2Out) + epsilon) with r_t = "
                  "sqrt((rho_t-4)(rho_t-2)rho_inf/((rho_inf-4)(rho_inf-2)rho_t)), else "
                  "ParamOut = Param - LearningRate*Moment1Out/(1-b1t)."))
      .input("Beta1Pow", std::string("beta1^(t-1), 1 at the start") + kStepValueNote)
      .input("Beta2Pow", std::string("beta2^(t-1), 1 at the start") + kStepValueNote)
      .input("Rho", std::string("(t-1)*beta2^(t-1)/(1-beta2^(t-1)), any value at the start") +
                        kStepValueNote)
      .input("Moment1", "first moment, same shape as Param (zeros at the start)")
      .input("Moment2", "second moment, same shape (zeros at the start)")
      .output("Beta1PowOut", "Beta1Pow * beta1")
      .output("Beta2PowOut", "Beta2Pow * beta2")
      .output("RhoOut", "the updated Rho")
      .output("Moment1Out", "the updated first moment")
      .output("Moment2Out", "the updated second moment")
      .attr("beta1", 0.9, "decay of the first moment")
      .attr("beta2", 0.999, "decay of the second moment")
      .attr("epsilon", 1e-8, "added to the root of the second moment")
      .infer_shape(infer_radam)
      .bind({DType::kF32, DType::kF64}, radam<KernelContext>, radam<EmitContext>)
      .kernel_dtype_from("Param");

  param_slots(r.add("lamb").doc(
                  "LAMB: moments as in adam; r = (Moment1Out/(1-Beta1Pow)) / "
                  "(sqrt(Moment2Out/(1-Beta2Pow)) + epsilon) + weight_decay*Param; ratio = "
                  "||Param|| / ||r|| when weight_decay > 0 or always_adapt and both norms are "
                  "positive, else 1; ParamOut = Param - LearningRate*ratio*r; the powers are "
                  "then multiplied by the betas."))
      .input("Moment1", "first moment, same shape as Param (zeros at the start)")
      .input("Moment2", "second moment, same shape (zeros at the start)")
      .input("Beta1Pow", "beta1^t for the current step t (beta1 at the first step)")
      .input("Beta2Pow", "beta2^t for the current step t (beta2 at the first step)")
      .output("Moment1Out", "the updated first moment")
      .output("Moment2Out", "the updated second moment")
      .optional_output("Beta1PowOut", "Beta1Pow * beta1")
      .optional_output("Beta2PowOut", "Beta2Pow * beta2")
      .attr("beta1", 0.9, "decay of the first moment")
      .attr("beta2", 0.999, "decay of the second moment")
      .attr("epsilon", 1e-6, "added to the root of the corrected second moment")
      .attr("weight_decay", 0.01, "decoupled weight decay inside the trust-ratio direction")
      .attr("always_adapt", false, "apply the trust ratio even when weight_decay is 0")
      .infer_shape(infer_lamb)
      .bind({DType::kF32, DType::kF64}, lamb<KernelContext>, lamb<EmitContext>)
      .kernel_dtype_from("Param");
}

const OpRegistrar kAdaptiveOptimizerOps(register_adaptive_optimizer_ops);

}  // namespace skiff
