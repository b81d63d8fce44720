// Math ops over numeric tensors: abs, square and clip (any numeric dtype; gradients in
// float), and log_softmax along an axis, with their grad ops.
#include <cmath>
#include <limits>
#include <string>

#include "skiff/kernels/cpu/log_softmax.h"
#include "skiff/kernels/cpu/math.h"
#include "skiff/kernels/cpu/softmax.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

constexpr std::initializer_list<DType> kNumeric = {DType::kF32, DType::kF64, DType::kI32,
                                                   DType::kI64};

void infer_numeric_same_as_x(ShapeContext& ctx) {
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(dtype != DType::kBool, ctx.op().type, ": X must be numeric, got bool",
              ctx.in_shape("X"));
  ctx.set_output("Out", ctx.in_shape("X"), dtype);
}

// A grad op reading the forward X and Out@GRAD, carrying the forward attrs `names`.
void grad_from_x(GradContext& g, std::initializer_list<const char*> names) {
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
  SKIFF_KERNEL_CALL(c, "math", kernels::absolute, c.in("X"), c.out("Out"));
}

template <typename C>
void abs_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "math", kernels::absolute_grad, c.in("X"), c.in("Out@GRAD"),
                    c.out("X@GRAD"));
}

template <typename C>
void square(C& c) {
  SKIFF_KERNEL_CALL(c, "math", kernels::square, c.in("X"), c.out("Out"));
}

template <typename C>
void square_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "math", kernels::square_grad, c.in("X"), c.in("Out@GRAD"), c.out("X@GRAD"));
}

void unary_grad_maker(GradContext& g) { grad_from_x(g, {}); }

// ---- softshrink

template <typename C>
void softshrink(C& c) {
  SKIFF_KERNEL_CALL(c, "math", kernels::softshrink, c.in("X"), attr<double>(c, "threshold"),
                    c.out("Out"));
}

template <typename C>
void softshrink_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "math", kernels::softshrink_grad, c.in("X"), c.in("Out@GRAD"),
                    attr<double>(c, "threshold"), c.out("X@GRAD"));
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
      .grad([](GradContext& g) { grad_from_x(g, {"threshold"}); });
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

// The op `type` with bindings `forward` and `backward` (of its grad op).
void register_unary(OpRegistry& r, const std::string& type, const char* formula,
                    const char* derivative, KernelFn forward, EmitFn emit_forward,
                    KernelFn backward, EmitFn emit_backward) {
  r.add(type)
      .doc(std::string(formula) + ", elementwise.")
      .input("X", "any shape; float32, float64, int32 or int64")
      .output("Out", "X's shape and dtype")
      .infer_shape(infer_numeric_same_as_x)
      .bind(kNumeric, forward, emit_forward)
      .grad(unary_grad_maker);
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
  infer_numeric_same_as_x(ctx);
}

template <typename C>
void clip(C& c) {
  SKIFF_KERNEL_CALL(c, "math", kernels::clip, c.in("X"), attr<double>(c, "min"),
                    attr<double>(c, "max"), c.out("Out"));
}

template <typename C>
void clip_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "math", kernels::clip_grad, c.in("X"), c.in("Out@GRAD"),
                    attr<double>(c, "min"), attr<double>(c, "max"), c.out("X@GRAD"));
}

void clip_grad_maker(GradContext& g) { grad_from_x(g, {"min", "max"}); }

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

// ---- log_softmax ----

void infer_log_softmax(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(is_floating(dtype), "log_softmax: X must be float32 or float64, got ",
              dtype_name(dtype), x);
  kernels::normalize_axis("log_softmax", ctx.attr<int64_t>("axis"), x.rank());
  ctx.set_output("Out", x, dtype);
}

template <typename C>
void log_softmax(C& c) {
  SKIFF_KERNEL_CALL(c, "log_softmax", kernels::log_softmax, c.in("X"), attr<int64_t>(c, "axis"),
                    c.out("Out"));
}

void log_softmax_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("log_softmax_grad")
      .set_input("Out", {g.fwd().first_output("Out")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_attr("axis", g.fwd().attr<int64_t>("axis"));
}

void infer_log_softmax_grad(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("Out"), ctx.in_dtype("Out"));
}

template <typename C>
void log_softmax_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "log_softmax", kernels::log_softmax_grad, c.in("Out"), c.in("Out@GRAD"),
                    attr<int64_t>(c, "axis"), c.out("X@GRAD"));
}

void register_log_softmax(OpRegistry& r) {
  r.add("log_softmax")
      .doc("Out = X - log(sum(exp(X), axis)), computed stably from X - max(X, axis).")
      .input("X", "float32 or float64")
      .output("Out", "X's shape and dtype")
      .attr("axis", int64_t{-1}, "the axis to normalise over; negative counts from the back")
      .infer_shape(infer_log_softmax)
      .bind({DType::kF32, DType::kF64}, log_softmax<KernelContext>, log_softmax<EmitContext>)
      .grad(log_softmax_grad_maker);
  r.add("log_softmax_grad")
      .doc("X@GRAD = Out@GRAD - exp(Out) * sum(Out@GRAD, axis).")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("axis", int64_t{-1}, "as in the forward op")
      .infer_shape(infer_log_softmax_grad)
      .bind({DType::kF32, DType::kF64}, log_softmax_grad<KernelContext>,
            log_softmax_grad<EmitContext>)
      .kernel_dtype_from("Out");
}

}  // namespace

void register_math_ops(OpRegistry& r) {
  register_unary(r, "abs", "Out = |X|", "Out@GRAD * sign(X) (0 at 0)", abs<KernelContext>,
                 abs<EmitContext>, abs_grad<KernelContext>, abs_grad<EmitContext>);
  register_unary(r, "square", "Out = X * X", "2 * X * Out@GRAD", square<KernelContext>,
                 square<EmitContext>, square_grad<KernelContext>, square_grad<EmitContext>);
  register_clip(r);
  register_softshrink(r);
  register_log_softmax(r);
}

const OpRegistrar kMathOps(register_math_ops);

}  // namespace skiff
