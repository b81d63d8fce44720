// Math ops over numeric tensors: abs, square and clip (any numeric dtype; gradients in
// float), and log_softmax along an axis, with their grad ops.
#include <cmath>
#include <limits>
#include <string>

#include "skiff/kernels/cpu/log_softmax.h"
#include "skiff/kernels/cpu/math.h"
#include "skiff/kernels/cpu/softmax.h"
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

template <void (*kForward)(const Tensor&, Tensor*)>
void unary_kernel(KernelContext& ctx) {
  kForward(ctx.in("X"), ctx.out("Out"));
}

template <void (*kBackward)(const Tensor&, const Tensor&, Tensor*)>
void unary_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  if (!dx) return;
  kBackward(ctx.in("X"), ctx.in("Out@GRAD"), dx);
}

void unary_grad_maker(GradContext& g) { grad_from_x(g, {}); }

template <void (*kForward)(const Tensor&, Tensor*),
          void (*kBackward)(const Tensor&, const Tensor&, Tensor*)>
void register_unary(OpRegistry& r, const std::string& type, const char* formula,
                    const char* derivative) {
  r.add(type)
      .doc(std::string(formula) + ", elementwise.")
      .input("X", "any shape; float32, float64, int32 or int64")
      .output("Out", "X's shape and dtype")
      .infer_shape(infer_numeric_same_as_x)
      .kernel(kNumeric, unary_kernel<kForward>)
      .grad(unary_grad_maker);
  r.add(type + "_grad")
      .doc(std::string("X@GRAD = ") + derivative + ", elementwise.")
      .input("X", "the forward X")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad_like_x)
      .kernel({DType::kF32, DType::kF64}, unary_grad_kernel<kBackward>)
      .kernel_dtype_from("X");
}

// ---- clip ----

template <typename Ctx>
void read_bounds(const Ctx& ctx, double* min, double* max) {
  *min = ctx.template attr<double>("min");
  *max = ctx.template attr<double>("max");
}

void infer_clip(ShapeContext& ctx) {
  double min, max;
  read_bounds(ctx, &min, &max);
  SKIFF_CHECK(!std::isnan(min) && !std::isnan(max) && min <= max, "clip: min (", min,
              ") must not exceed max (", max, ")");
  infer_numeric_same_as_x(ctx);
}

void clip_kernel(KernelContext& ctx) {
  double min, max;
  read_bounds(ctx, &min, &max);
  kernels::clip(ctx.in("X"), min, max, ctx.out("Out"));
}

void clip_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  if (!dx) return;
  double min, max;
  read_bounds(ctx, &min, &max);
  kernels::clip_grad(ctx.in("X"), ctx.in("Out@GRAD"), min, max, dx);
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
      .kernel(kNumeric, clip_kernel)
      .grad(clip_grad_maker);
  r.add("clip_grad")
      .doc("X@GRAD = Out@GRAD where min < X < max, 0 elsewhere.")
      .input("X", "the forward X")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("min", -inf, "as in the forward op")
      .attr("max", inf, "as in the forward op")
      .infer_shape(infer_x_grad_like_x)
      .kernel({DType::kF32, DType::kF64}, clip_grad_kernel)
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

void log_softmax_kernel(KernelContext& ctx) {
  kernels::log_softmax(ctx.in("X"), ctx.attr<int64_t>("axis"), ctx.out("Out"));
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

void log_softmax_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  if (!dx) return;
  kernels::log_softmax_grad(ctx.in("Out"), ctx.in("Out@GRAD"), ctx.attr<int64_t>("axis"), dx);
}

void register_log_softmax(OpRegistry& r) {
  r.add("log_softmax")
      .doc("Out = X - log(sum(exp(X), axis)), computed stably from X - max(X, axis).")
      .input("X", "float32 or float64")
      .output("Out", "X's shape and dtype")
      .attr("axis", int64_t{-1}, "the axis to normalise over; negative counts from the back")
      .infer_shape(infer_log_softmax)
      .kernel({DType::kF32, DType::kF64}, log_softmax_kernel)
      .grad(log_softmax_grad_maker);
  r.add("log_softmax_grad")
      .doc("X@GRAD = Out@GRAD - exp(Out) * sum(Out@GRAD, axis).")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("axis", int64_t{-1}, "as in the forward op")
      .infer_shape(infer_log_softmax_grad)
      .kernel({DType::kF32, DType::kF64}, log_softmax_grad_kernel)
      .kernel_dtype_from("Out");
}

}  // namespace

void register_math_ops(OpRegistry& r) {
  register_unary<kernels::absolute, kernels::absolute_grad>(r, "abs", "Out = |X|",
                                                            "Out@GRAD * sign(X) (0 at 0)");
  register_unary<kernels::square, kernels::square_grad>(r, "square", "Out = X * X",
                                                        "2 * X * Out@GRAD");
  register_clip(r);
  register_log_softmax(r);
}

}  // namespace skiff
