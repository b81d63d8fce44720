// Elementwise math functions of one tensor that are not activations (those are in
// activation.cc): abs, square and clip (any numeric dtype; gradients in float), the
// trigonometric and hyperbolic functions and their inverses, log1p, expm1, erf, erfinv,
// lgamma, digamma, polygamma, the modified Bessel functions i0, i0e, i1, i1e (each with its
// grad op), frexp, floor, ceil, round, sign (piecewise constant:
// zero gradients) and isnan, isinf, isfinite.
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include "skiff/kernels/cpu/unary_math.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

using kernels::FloatClass;
using kernels::UnaryMath;

constexpr std::initializer_list<DType> kNumeric = {DType::kF32, DType::kF64, DType::kI32,
                                                   DType::kI64};

void infer_float_same_as_x(ShapeContext& ctx) {
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(dtype == DType::kF32 || dtype == DType::kF64, ctx.op().type,
              ": X must be float32 or float64, got ", dtype_name(dtype), ctx.in_shape("X"));
  ctx.set_output("Out", ctx.in_shape("X"), dtype);
}

void infer_numeric_same_as_x(ShapeContext& ctx) {
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(dtype != DType::kBool && dtype != DType::kBF16, ctx.op().type,
              ": X must be float32, float64, int32 or int64, got ", dtype_name(dtype),
              ctx.in_shape("X"));
  ctx.set_output("Out", ctx.in_shape("X"), dtype);
}

void infer_bool_like_x(ShapeContext& ctx) {
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(dtype != DType::kBool && dtype != DType::kBF16, ctx.op().type,
              ": X must be float32, float64, int32 or int64, got ", dtype_name(dtype),
              ctx.in_shape("X"));
  ctx.set_output("Out", ctx.in_shape("X"), DType::kBool);
}

// "kernels::UnaryMath::kLog1p" for log1p: each enumerator is its op's name, capitalised.
std::string unary_math_literal(UnaryMath f) {
  std::string name = kernels::unary_math_op(f);
  name[0] = static_cast<char>(std::toupper(name[0]));
  return "kernels::UnaryMath::k" + name;
}

template <UnaryMath kF, typename C>
void unary(C& c) {
  SKIFF_KERNEL_CALL(c, "unary_math", kernels::unary_math, constant(c, kF, unary_math_literal),
                    c.in("X"), c.out("Out"));
}

template <UnaryMath kF, typename C>
void unary_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "unary_math", kernels::unary_math_grad, constant(c, kF, unary_math_literal),
                    c.in("X"), c.in("Out@GRAD"), c.out("X@GRAD"));
}

std::string float_class_literal(FloatClass f) {
  switch (f) {
    case FloatClass::kNan:
      return "kernels::FloatClass::kNan";
    case FloatClass::kInf:
      return "kernels::FloatClass::kInf";
    case FloatClass::kFinite:
      return "kernels::FloatClass::kFinite";
  }
  fail("unknown FloatClass ", static_cast<int>(f));
}

template <FloatClass kC, typename C>
void classify(C& c) {
  SKIFF_KERNEL_CALL(c, "unary_math", kernels::classify, constant(c, kC, float_class_literal),
                    c.in("X"), c.out("Out"));
}

void grad_from_x(GradContext& g) {
  if (!g.wants("X")) return;
  g.add(g.fwd().type + "_grad")
      .set_input("X", {g.fwd().first_input("X")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")});
}

template <UnaryMath kF>
void register_differentiable(OpRegistry& r, const char* formula, const char* derivative) {
  const std::string type = kernels::unary_math_op(kF);
  r.add(type)
      .doc(std::string(formula) + ", elementwise.")
      .input("X", "any shape; float32 or float64")
      .output("Out", "X's shape and dtype")
      .infer_shape(infer_float_same_as_x)
      .bind({DType::kF32, DType::kF64}, unary<kF, KernelContext>, unary<kF, EmitContext>)
      .grad(grad_from_x);
  r.add(type + "_grad")
      .doc(std::string("X@GRAD = ") + derivative + ", elementwise.")
      .input("X", "the forward X")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad_like_x)
      .bind({DType::kF32, DType::kF64}, unary_grad<kF, KernelContext>, unary_grad<kF, EmitContext>)
      .kernel_dtype_from("X");
}

// Piecewise-constant ops: the gradient is 0 almost everywhere (zeros like X).
void zero_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("fill_zeros_like")
      .set_input("X", {g.fwd().first_input("X")})
      .set_output("Out", {g.in_grad("X")});
}

template <UnaryMath kF>
void register_piecewise_constant(OpRegistry& r, const char* type, const char* formula) {
  r.add(type)
      .doc(std::string(formula) +
           ", elementwise; exact on integers. Its gradient is 0 (the derivative almost "
           "everywhere).")
      .input("X", "any shape; float32, float64, int32 or int64")
      .output("Out", "X's shape and dtype")
      .infer_shape(infer_numeric_same_as_x)
      .bind(kNumeric, unary<kF, KernelContext>, unary<kF, EmitContext>)
      .grad(zero_grad_maker);
}

template <FloatClass kC>
void register_classifier(OpRegistry& r, const char* type, const char* formula) {
  r.add(type)
      .doc(std::string(formula) + ", elementwise (integers: never NaN or infinite).")
      .input("X", "any shape; float32, float64, int32 or int64")
      .output("Out", "bool, X's shape")
      .infer_shape(infer_bool_like_x)
      .bind(kNumeric, classify<kC, KernelContext>, classify<kC, EmitContext>)
      .kernel_dtype_from("X");
}

// ---- numeric: abs, square, clip ----

void infer_any_numeric_like_x(ShapeContext& ctx) {
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(dtype != DType::kBool, ctx.op().type, ": X must be numeric, got bool",
              ctx.in_shape("X"));
  ctx.set_output("Out", ctx.in_shape("X"), dtype);
}

// A grad op reading the forward X and Out@GRAD, carrying the forward attrs `names`.
void grad_from_x_with(GradContext& g, std::initializer_list<const char*> names) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  OpDesc& op = g.add(fwd.type + "_grad")
                   .set_input("X", {fwd.first_input("X")})
                   .set_input("Out@GRAD", {g.out_grad("Out")})
                   .set_output("X@GRAD", {g.in_grad("X")});
  for (const char* name : names) op.set_attr(name, fwd.attr<double>(name));
}

// ---- abs, square ----

template <typename C>
void abs(C& c) {
  SKIFF_KERNEL_CALL(c, "unary_math", kernels::absolute, c.in("X"), c.out("Out"));
}

template <typename C>
void abs_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "unary_math", kernels::absolute_grad, c.in("X"), c.in("Out@GRAD"),
                    c.out("X@GRAD"));
}

template <typename C>
void square(C& c) {
  SKIFF_KERNEL_CALL(c, "unary_math", kernels::square, c.in("X"), c.out("Out"));
}

template <typename C>
void square_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "unary_math", kernels::square_grad, c.in("X"), c.in("Out@GRAD"),
                    c.out("X@GRAD"));
}

void numeric_grad_maker(GradContext& g) { grad_from_x_with(g, {}); }

// The op `type` with bindings `forward` and `backward` (of its grad op).
void register_numeric(OpRegistry& r, const std::string& type, const char* formula,
                      const char* derivative, KernelFn forward, EmitFn emit_forward,
                      KernelFn backward, EmitFn emit_backward) {
  r.add(type)
      .doc(std::string(formula) + ", elementwise.")
      .input("X", "any shape; float32, float64, int32 or int64")
      .output("Out", "X's shape and dtype")
      .infer_shape(infer_any_numeric_like_x)
      .bind(kNumeric, forward, emit_forward)
      .grad(numeric_grad_maker);
  r.add(type + "_grad")
      .doc(std::string("X@GRAD = ") + derivative + ", elementwise.")
      .input("X", "the forward X")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad_like_x)
      .bind({DType::kF32, DType::kF64}, backward, emit_backward)
      .kernel_dtype_from("X");
}

// ---- clip ----

void infer_clip(ShapeContext& ctx) {
  const double min = ctx.attr<double>("min"), max = ctx.attr<double>("max");
  SKIFF_CHECK(!std::isnan(min) && !std::isnan(max) && min <= max, "clip: min (", min,
              ") must not exceed max (", max, ")");
  infer_any_numeric_like_x(ctx);
}

template <typename C>
void clip(C& c) {
  SKIFF_KERNEL_CALL(c, "unary_math", kernels::clip, c.in("X"), attr<double>(c, "min"),
                    attr<double>(c, "max"), c.out("Out"));
}

template <typename C>
void clip_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "unary_math", kernels::clip_grad, c.in("X"), c.in("Out@GRAD"),
                    attr<double>(c, "min"), attr<double>(c, "max"), c.out("X@GRAD"));
}

void clip_grad_maker(GradContext& g) { grad_from_x_with(g, {"min", "max"}); }

void register_clip(OpRegistry& r) {
  const double inf = std::numeric_limits<double>::infinity();
  r.add("clip")
      .doc("Out = min(max(X, min), max), elementwise; NaN stays NaN.")
      .input("X", "any shape; float32, float64, int32 or int64")
      .output("Out", "X's shape and dtype")
      .attr("min", -inf, "lower bound (-inf: none)")
      .attr("max", inf, "upper bound (inf: none); must not be below min")
      .infer_shape(infer_clip)
      .bind(kNumeric, clip<KernelContext>, clip<EmitContext>)
      .grad(clip_grad_maker);
  r.add("clip_grad")
      .doc("X@GRAD = Out@GRAD where min < X < max, 0 elsewhere.")
      .input("X", "the forward X")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("min", -inf, "as in the forward op")
      .attr("max", inf, "as in the forward op")
      .infer_shape(infer_x_grad_like_x)
      .bind({DType::kF32, DType::kF64}, clip_grad<KernelContext>, clip_grad<EmitContext>)
      .kernel_dtype_from("X");
}

// ---- polygamma, frexp ----

template <typename C>
void polygamma(C& c) {
  SKIFF_KERNEL_CALL(c, "unary_math", kernels::polygamma, c.in("X"), attr<int64_t>(c, "n"),
                    c.out("Out"));
}

template <typename C>
void polygamma_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "unary_math", kernels::polygamma_grad, c.in("X"), c.in("Out@GRAD"),
                    attr<int64_t>(c, "n"), c.out("X@GRAD"));
}

void infer_polygamma(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.attr<int64_t>("n") >= 0, "polygamma: n must be >= 0, got ",
              ctx.attr<int64_t>("n"));
  infer_float_same_as_x(ctx);
}

void polygamma_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("polygamma_grad")
      .set_input("X", {g.fwd().first_input("X")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_attr("n", g.fwd().attr<int64_t>("n"));
}

template <typename C>
void frexp(C& c) {
  SKIFF_KERNEL_CALL(c, "unary_math", kernels::frexp, c.in("X"), c.out("Mantissa"),
                    c.out("Exponent"));
}

void infer_frexp(ShapeContext& ctx) {
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(dtype == DType::kF32 || dtype == DType::kF64,
              "frexp: X must be float32 or float64, got ", dtype_name(dtype), ctx.in_shape("X"));
  ctx.set_output("Mantissa", ctx.in_shape("X"), dtype);
  ctx.set_output("Exponent", ctx.in_shape("X"), dtype);
}

void register_polygamma_frexp(OpRegistry& r) {
  r.add("polygamma")
      .doc("Out = psi^(n)(X), the n-th derivative of digamma (n = 0: digamma), elementwise.")
      .input("X", "any shape; float32 or float64")
      .output("Out", "X's shape and dtype")
      .attr("n", int64_t{0}, "the order of the derivative, >= 0")
      .infer_shape(infer_polygamma)
      .bind({DType::kF32, DType::kF64}, polygamma<KernelContext>, polygamma<EmitContext>)
      .grad(polygamma_grad_maker);
  r.add("polygamma_grad")
      .doc("X@GRAD = psi^(n+1)(X) * Out@GRAD, elementwise.")
      .input("X", "the forward X")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("n", int64_t{0}, "as in the forward op")
      .infer_shape(infer_x_grad_like_x)
      .bind({DType::kF32, DType::kF64}, polygamma_grad<KernelContext>, polygamma_grad<EmitContext>)
      .kernel_dtype_from("X");
  r.add("frexp")
      .doc(
          "X = Mantissa * 2^Exponent with 0.5 <= |Mantissa| < 1, elementwise (0, +-inf and NaN "
          "are their own mantissa, with exponent 0, 1 and NaN); no gradient.")
      .input("X", "any shape; float32 or float64")
      .output("Mantissa", "X's shape and dtype")
      .output("Exponent", "X's shape and dtype, integer values")
      .infer_shape(infer_frexp)
      .bind({DType::kF32, DType::kF64}, frexp<KernelContext>, frexp<EmitContext>);
}

}  // namespace

void register_unary_math_ops(OpRegistry& r) {
  register_numeric(r, "abs", "Out = |X|", "Out@GRAD * sign(X) (0 at 0)", abs<KernelContext>,
                   abs<EmitContext>, abs_grad<KernelContext>, abs_grad<EmitContext>);
  register_numeric(r, "square", "Out = X * X", "2 * X * Out@GRAD", square<KernelContext>,
                   square<EmitContext>, square_grad<KernelContext>, square_grad<EmitContext>);
  register_clip(r);
  register_differentiable<UnaryMath::kSin>(r, "Out = sin(X)", "cos(X) * Out@GRAD");
  register_differentiable<UnaryMath::kCos>(r, "Out = cos(X)", "-sin(X) * Out@GRAD");
  register_differentiable<UnaryMath::kTan>(r, "Out = tan(X)", "Out@GRAD / cos(X)^2");
  register_differentiable<UnaryMath::kAsin>(r, "Out = arcsin(X), in [-pi/2, pi/2]",
                                            "Out@GRAD / sqrt(1 - X^2)");
  register_differentiable<UnaryMath::kAcos>(r, "Out = arccos(X), in [0, pi]",
                                            "-Out@GRAD / sqrt(1 - X^2)");
  register_differentiable<UnaryMath::kAtan>(r, "Out = arctan(X), in (-pi/2, pi/2)",
                                            "Out@GRAD / (1 + X^2)");
  register_differentiable<UnaryMath::kSinh>(r, "Out = sinh(X)", "cosh(X) * Out@GRAD");
  register_differentiable<UnaryMath::kCosh>(r, "Out = cosh(X)", "sinh(X) * Out@GRAD");
  register_differentiable<UnaryMath::kAsinh>(r, "Out = arsinh(X)", "Out@GRAD / sqrt(X^2 + 1)");
  register_differentiable<UnaryMath::kAcosh>(r, "Out = arcosh(X) (NaN below 1)",
                                             "Out@GRAD / sqrt(X^2 - 1)");
  register_differentiable<UnaryMath::kAtanh>(r, "Out = artanh(X) (+-inf at +-1)",
                                             "Out@GRAD / (1 - X^2)");
  register_differentiable<UnaryMath::kLog1p>(r, "Out = log(1 + X), accurate near 0",
                                             "Out@GRAD / (1 + X)");
  register_differentiable<UnaryMath::kExpm1>(r, "Out = exp(X) - 1, accurate near 0",
                                             "exp(X) * Out@GRAD");
  register_differentiable<UnaryMath::kErf>(r, "Out = erf(X), the error function",
                                           "2 / sqrt(pi) * exp(-X^2) * Out@GRAD");
  register_differentiable<UnaryMath::kErfinv>(
      r, "Out = erfinv(X): erf(Out) = X; +-inf at +-1, NaN outside [-1, 1]",
      "sqrt(pi) / 2 * exp(erfinv(X)^2) * Out@GRAD");
  register_differentiable<UnaryMath::kLgamma>(r, "Out = log|gamma(X)| (+inf at 0, -1, -2, ...)",
                                              "digamma(X) * Out@GRAD");
  register_differentiable<UnaryMath::kDigamma>(
      r, "Out = digamma(X) = d/dX lgamma(X) (-inf at 0, NaN at negative integers)",
      "trigamma(X) * Out@GRAD");
  register_differentiable<UnaryMath::kI0>(
      r, "Out = I0(X), the modified Bessel function of the first kind of order 0",
      "I1(X) * Out@GRAD");
  register_differentiable<UnaryMath::kI0e>(
      r, "Out = I0(X) exp(-|X|)", "(I1e(X) - sign(X) I0e(X)) * Out@GRAD (-1 at 0, the right side)");
  register_differentiable<UnaryMath::kI1>(
      r, "Out = I1(X), the modified Bessel function of the first kind of order 1",
      "(I0(X) - I1(X) / X) * Out@GRAD (1/2 at 0)");
  register_differentiable<UnaryMath::kI1e>(
      r, "Out = I1(X) exp(-|X|)", "(I0e(X) - I1e(X) (sign(X) + 1 / X)) * Out@GRAD (1/2 at 0)");
  register_polygamma_frexp(r);
  register_piecewise_constant<UnaryMath::kFloor>(r, "floor", "Out = the largest integer <= X");
  register_piecewise_constant<UnaryMath::kCeil>(r, "ceil", "Out = the smallest integer >= X");
  register_piecewise_constant<UnaryMath::kRound>(
      r, "round", "Out = X rounded to the nearest integer, halves away from zero");
  register_piecewise_constant<UnaryMath::kSign>(
      r, "sign", "Out = -1, 0 or 1 by the sign of X (NaN stays NaN)");
  register_classifier<FloatClass::kNan>(r, "isnan", "Out = X is NaN");
  register_classifier<FloatClass::kInf>(r, "isinf", "Out = X is +inf or -inf");
  register_classifier<FloatClass::kFinite>(r, "isfinite", "Out = X is neither NaN nor infinite");
}

const OpRegistrar kUnaryMathOps(register_unary_math_ops);

}  // namespace skiff
