// Elementwise activations: relu, tanh, sigmoid, exp, log, and their grad ops.
#include "skiff/kernels/cpu/activation.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

using kernels::Activation;

// The forward slot the gradient is computed from: "X" for log, "Out" otherwise.
const char* saved_slot(Activation kind) {
  return kernels::activation_grad_reads_input(kind) ? "X" : "Out";
}

template <Activation kKind>
void activation_kernel(KernelContext& ctx) {
  kernels::activation(kKind, ctx.in("X"), ctx.out("Out"));
}

template <Activation kKind>
void activation_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  if (!dx) return;
  kernels::activation_grad(kKind, ctx.in(saved_slot(kKind)), ctx.in("Out@GRAD"), dx);
}

void infer_same_as_x(ShapeContext& ctx) {
  ctx.set_output("Out", ctx.in_shape("X"), ctx.in_dtype("X"));
}

template <Activation kKind>
void infer_activation_grad(ShapeContext& ctx) {
  const char* slot = saved_slot(kKind);
  ctx.set_output("X@GRAD", ctx.in_shape(slot), ctx.in_dtype(slot));
}

template <Activation kKind>
void activation_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  const char* slot = saved_slot(kKind);
  const std::string saved =
      kernels::activation_grad_reads_input(kKind) ? fwd.first_input("X") : fwd.first_output("Out");
  g.add(fwd.type + "_grad")
      .set_input(slot, {saved})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")});
}

template <Activation kKind>
void register_activation(OpRegistry& r, const char* formula, const char* derivative) {
  const std::string name = kernels::activation_name(kKind);
  const char* slot = saved_slot(kKind);
  r.add(name)
      .doc(std::string(formula) + ", elementwise.")
      .input("X", "any shape; float32 or float64")
      .output("Out", "X's shape and dtype")
      .infer_shape(infer_same_as_x)
      .kernel({DType::kF32, DType::kF64}, activation_kernel<kKind>)
      .grad(activation_grad_maker<kKind>);

  r.add(name + "_grad")
      .doc(std::string("X@GRAD = ") + derivative + ", elementwise.")
      .input(slot, std::string("the forward ") + slot)
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_activation_grad<kKind>)
      .kernel({DType::kF32, DType::kF64}, activation_grad_kernel<kKind>)
      .kernel_dtype_from(slot);
}

}  // namespace

void register_activation_ops(OpRegistry& r) {
  register_activation<Activation::kRelu>(r, "Out = max(X, 0)", "Out@GRAD * (Out > 0)");
  register_activation<Activation::kTanh>(r, "Out = tanh(X)", "Out@GRAD * (1 - Out^2)");
  register_activation<Activation::kSigmoid>(r, "Out = 1 / (1 + exp(-X))",
                                            "Out@GRAD * Out * (1 - Out)");
  register_activation<Activation::kExp>(r, "Out = exp(X)", "Out@GRAD * Out");
  register_activation<Activation::kLog>(r, "Out = ln(X) (NaN for X < 0, -inf at 0)",
                                        "Out@GRAD / X");
}

}  // namespace skiff
