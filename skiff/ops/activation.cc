// Elementwise activations: the nonlinearities of neural networks (relu, tanh, sigmoid,
// gelu, leaky_relu, elu, silu, softplus, softshrink) and the float functions computed by
// the same vectorised kernel with gradients from the input or the output (exp, log,
// sqrt, rsqrt, pow by a scalar), and their grad ops. Other functions of one tensor are in
// unary_math.cc.
#include "skiff/kernels/cpu/activation.h"

#include <cctype>
#include <string>
#include <vector>

#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

using kernels::Activation;
using kernels::ActivationParams;

// The forward slot the gradient is computed from: "X" or "Out".
const char* saved_slot(Activation kind) {
  return kernels::activation_grad_reads_input(kind) ? "X" : "Out";
}

// An attribute of a parameterised activation, with Paddle's default.
struct ParamAttr {
  const char* name;
  Attr default_value;
  const char* doc;
};

std::vector<ParamAttr> param_attrs(Activation kind) {
  switch (kind) {
    case Activation::kGelu:
      return {{"approximate", false, "use the tanh approximation instead of the erf form"}};
    case Activation::kLeakyRelu:
      return {{"alpha", 0.02, "slope for X <= 0"}};
    case Activation::kElu:
      return {{"alpha", 1.0, "Out = alpha * (exp(X) - 1) for X <= 0"}};
    case Activation::kSoftplus:
      return {{"beta", 1.0, "Out = log(1 + exp(beta * X)) / beta"},
              {"threshold", 20.0, "Out = X where beta * X > threshold"}};
    case Activation::kPow:
      return {{"factor", 1.0, "the exponent"}};
    default:
      return {};
  }
}

// The kernel-side parameters from the op's attrs (only those `kKind` has).
template <Activation kKind>
ActivationParams params_of(const OpDesc& op) {
  ActivationParams p;
  if constexpr (kKind == Activation::kGelu) p.approximate = op.attr<bool>("approximate");
  if constexpr (kKind == Activation::kLeakyRelu || kKind == Activation::kElu) {
    p.alpha = op.attr<double>("alpha");
  }
  if constexpr (kKind == Activation::kSoftplus) {
    p.beta = op.attr<double>("beta");
    p.threshold = op.attr<double>("threshold");
    SKIFF_CHECK(p.beta != 0, "softplus: beta must not be 0");
  }
  if constexpr (kKind == Activation::kPow) p.factor = op.attr<double>("factor");
  return p;
}

// "kernels::Activation::kLeakyRelu" for leaky_relu: each enumerator is its op's name in
// camel case.
std::string activation_literal(Activation kind) {
  std::string out = "kernels::Activation::k";
  bool upper = true;
  for (const char* c = kernels::activation_name(kind); *c; ++c) {
    if (*c == '_') {
      upper = true;
    } else {
      out += upper ? static_cast<char>(std::toupper(*c)) : *c;
      upper = false;
    }
  }
  return out;
}

std::string params_literal(const ActivationParams& p) {
  return "kernels::ActivationParams{" + cpp_literal(p.alpha) + ", " + cpp_literal(p.beta) + ", " +
         cpp_literal(p.threshold) + ", " + cpp_literal(p.factor) + ", " +
         cpp_literal(p.approximate) + "}";
}

template <Activation kKind, typename C>
void activation(C& c) {
  SKIFF_KERNEL_CALL(c, "activation", kernels::activation, constant(c, kKind, activation_literal),
                    c.in("X"), c.out("Out"), constant(c, params_of<kKind>(c.op()), params_literal));
}

template <Activation kKind, typename C>
void activation_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "activation", kernels::activation_grad,
                    constant(c, kKind, activation_literal), c.in(saved_slot(kKind)),
                    c.in("Out@GRAD"), c.out("X@GRAD"),
                    constant(c, params_of<kKind>(c.op()), params_literal));
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
  OpDesc& op = g.add(fwd.type + "_grad")
                   .set_input(slot, {saved})
                   .set_input("Out@GRAD", {g.out_grad("Out")})
                   .set_output("X@GRAD", {g.in_grad("X")});
  for (const ParamAttr& a : param_attrs(kKind)) {
    const Attr* value = fwd.attrs.find(a.name);
    op.set_attr(a.name, value ? *value : a.default_value);
  }
}

template <Activation kKind>
void register_activation(OpRegistry& r, const char* formula, const char* derivative) {
  const std::string name = kernels::activation_name(kKind);
  const char* slot = saved_slot(kKind);
  OpBuilder fwd = r.add(name);
  fwd.doc(std::string(formula) + ", elementwise.")
      .input("X", "any shape; float32 or float64")
      .output("Out", "X's shape and dtype")
      .infer_shape(infer_out_like_x)
      .bind({DType::kF32, DType::kF64}, activation<kKind, KernelContext>,
            activation<kKind, EmitContext>)
      .grad(activation_grad_maker<kKind>)
      .writes_in_place();

  OpBuilder bwd = r.add(name + "_grad");
  bwd.doc(std::string("X@GRAD = ") + derivative + ", elementwise.")
      .input(slot, std::string("the forward ") + slot)
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_activation_grad<kKind>)
      .bind({DType::kF32, DType::kF64}, activation_grad<kKind, KernelContext>,
            activation_grad<kKind, EmitContext>)
      .kernel_dtype_from(slot);
  for (const ParamAttr& a : param_attrs(kKind)) {
    fwd.attr(a.name, a.default_value, a.doc);
    bwd.attr(a.name, a.default_value, "as in the forward op");
  }
  if constexpr (kKind == Activation::kRelu) {  // exact on bfloat16 bits
    fwd.kernel({DType::kBF16}, activation<kKind, KernelContext>);
    bwd.kernel({DType::kBF16}, activation_grad<kKind, KernelContext>);
  }
}

// ---- softshrink ----

template <typename C>
void softshrink(C& c) {
  SKIFF_KERNEL_CALL(c, "activation", kernels::softshrink, c.in("X"), attr<double>(c, "threshold"),
                    c.out("Out"));
}

template <typename C>
void softshrink_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "activation", kernels::softshrink_grad, c.in("X"), c.in("Out@GRAD"),
                    attr<double>(c, "threshold"), c.out("X@GRAD"));
}

void softshrink_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("softshrink_grad")
      .set_input("X", {g.fwd().first_input("X")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_attr("threshold", g.fwd().attr<double>("threshold"));
}

void register_softshrink(OpRegistry& r) {
  r.add("softshrink")
      .doc(
          "Out = X - threshold where X > threshold, X + threshold where X < -threshold, 0 "
          "between, elementwise.")
      .input("X", "any shape; float32 or float64")
      .output("Out", "X's shape and dtype")
      .attr("threshold", 0.5, "the half-width of the zero band, >= 0")
      .infer_shape(infer_out_like_x)
      .bind({DType::kF32, DType::kF64}, softshrink<KernelContext>, softshrink<EmitContext>)
      .grad(softshrink_grad_maker);
  r.add("softshrink_grad")
      .doc("X@GRAD = Out@GRAD where |X| > threshold, 0 elsewhere.")
      .input("X", "the forward X")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("threshold", 0.5, "as in the forward op")
      .infer_shape(infer_x_grad_like_x)
      .bind({DType::kF32, DType::kF64}, softshrink_grad<KernelContext>,
            softshrink_grad<EmitContext>)
      .kernel_dtype_from("X");
}

}  // namespace

void register_activation_ops(OpRegistry& r) {
  register_activation<Activation::kRelu>(r, "Out = max(X, 0) (also bfloat16)",
                                         "Out@GRAD * (Out > 0)");
  register_activation<Activation::kTanh>(r, "Out = tanh(X)", "Out@GRAD * (1 - Out^2)");
  register_activation<Activation::kSigmoid>(r, "Out = 1 / (1 + exp(-X))",
                                            "Out@GRAD * Out * (1 - Out)");
  register_activation<Activation::kExp>(r, "Out = exp(X)", "Out@GRAD * Out");
  register_activation<Activation::kLog>(r, "Out = ln(X) (NaN for X < 0, -inf at 0)",
                                        "Out@GRAD / X");
  register_activation<Activation::kGelu>(
      r,
      "Out = X * Phi(X) = 0.5 X (1 + erf(X / sqrt(2))); with approximate, "
      "0.5 X (1 + tanh(sqrt(2 / pi) (X + 0.044715 X^3)))",
      "Out@GRAD * d(gelu)/dX of the chosen form");
  register_activation<Activation::kLeakyRelu>(r, "Out = X > 0 ? X : alpha * X",
                                              "Out@GRAD * (X > 0 ? 1 : alpha)");
  register_activation<Activation::kElu>(r, "Out = X > 0 ? X : alpha * (exp(X) - 1)",
                                        "Out@GRAD * (X > 0 ? 1 : alpha * exp(X))");
  register_activation<Activation::kSilu>(r, "Out = X * sigmoid(X)",
                                         "Out@GRAD * s * (1 + X * (1 - s)), s = sigmoid(X)");
  register_activation<Activation::kSoftplus>(
      r, "Out = beta * X > threshold ? X : log(1 + exp(beta * X)) / beta",
      "Out@GRAD * (beta * X > threshold ? 1 : sigmoid(beta * X))");
  register_activation<Activation::kSqrt>(r, "Out = sqrt(X) (NaN for X < 0)",
                                         "Out@GRAD * 0.5 / Out");
  register_activation<Activation::kRsqrt>(r, "Out = 1 / sqrt(X) (inf at 0, NaN for X < 0)",
                                          "Out@GRAD * -0.5 * Out^3");
  register_activation<Activation::kPow>(r, "Out = X ^ factor",
                                        "Out@GRAD * factor * X ^ (factor - 1) (0 for factor 0)");
  register_softshrink(r);
}

const OpRegistrar kActivationOps(register_activation_ops);

}  // namespace skiff
