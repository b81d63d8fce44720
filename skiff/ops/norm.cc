// batch_norm and layer_norm, and their grad ops.
#include "skiff/kernels/cpu/norm.h"

#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

void check_floating_inputs(ShapeContext& ctx, const char* op,
                           std::initializer_list<const char*> slots) {
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(is_floating(dtype), op, ": X must be float32 or float64, got ", dtype_name(dtype),
              ctx.in_shape("X"));
  for (const char* slot : slots) {
    if (!ctx.has_input(slot)) continue;
    SKIFF_CHECK(ctx.in_dtype(slot) == dtype, op, ": ", slot, " must be ", dtype_name(dtype),
                " like X, got ", dtype_name(ctx.in_dtype(slot)), ctx.in_shape(slot));
  }
}

// ---- batch_norm ----

// is_test or use_global_stats: normalize with the running statistics.
bool uses_running_stats(const OpDesc& op) {
  return op.attr<bool>("is_test") || op.attr<bool>("use_global_stats");
}

// uses_running_stats: the value, or its literal for the compiler.
template <typename C>
auto running_stats(const C& c) {
  return constant(c, uses_running_stats(c.op()), [](bool v) { return cpp_literal(v); });
}

// The op's BatchNormOptions: the value, or its expression for the compiler.
template <typename C>
auto batch_norm_options(const C& c) {
  const OpDesc& op = c.op();
  kernels::BatchNormOptions o;
  o.epsilon = op.attr<double>("epsilon");
  o.momentum = op.attr<double>("momentum");
  o.use_running_stats = uses_running_stats(op);
  return constant(c, o, [](const kernels::BatchNormOptions& v) {
    return "kernels::BatchNormOptions{" + cpp_literal(v.epsilon) + ", " + cpp_literal(v.momentum) +
           ", " + cpp_literal(v.use_running_stats) + "}";
  });
}

void infer_batch_norm(ShapeContext& ctx) {
  check_floating_inputs(ctx, "batch_norm", {"Scale", "Bias", "Mean", "Variance"});
  const Shape x = ctx.in_shape("X");
  kernels::check_batch_norm_shapes(x, ctx.in_shape("Scale"), ctx.in_shape("Bias"),
                                   ctx.in_shape("Mean"), ctx.in_shape("Variance"));
  const DType dtype = ctx.in_dtype("X");
  const Shape channels{x[1] >= 0 ? x[1] : ctx.in_shape("Scale")[0]};
  ctx.set_output("Y", x, dtype);
  ctx.set_output("MeanOut", channels, dtype);
  ctx.set_output("VarianceOut", channels, dtype);
  ctx.set_output("SavedMean", channels, dtype);
  ctx.set_output("SavedVariance", channels, dtype);
}

template <typename C>
void batch_norm(C& c) {
  SKIFF_KERNEL_CALL(c, "norm", kernels::batch_norm, c.in("X"), c.in("Scale"), c.in("Bias"),
                    c.in("Mean"), c.in("Variance"), batch_norm_options(c), c.out("Y"),
                    c.out("MeanOut"), c.out("VarianceOut"), c.out("SavedMean"),
                    c.out("SavedVariance"));
}

// Mean and Variance get no gradient: they are statistics, not parameters.
void batch_norm_grad_maker(GradContext& g) {
  if (!g.wants("X") && !g.wants("Scale") && !g.wants("Bias")) return;
  const OpDesc& fwd = g.fwd();
  for (const char* slot : {"SavedMean", "SavedVariance"}) {
    SKIFF_CHECK(!fwd.first_output(slot).empty(), "batch_norm: the gradient needs the ", slot,
                " output");
  }
  g.add("batch_norm_grad")
      .set_input("X", {fwd.first_input("X")})
      .set_input("Scale", {fwd.first_input("Scale")})
      .set_input("SavedMean", {fwd.first_output("SavedMean")})
      .set_input("SavedVariance", {fwd.first_output("SavedVariance")})
      .set_input("Y@GRAD", {g.out_grad("Y")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_output("Scale@GRAD", {g.in_grad("Scale")})
      .set_output("Bias@GRAD", {g.in_grad("Bias")})
      .set_attr("epsilon", fwd.attr<double>("epsilon"))
      .set_attr("is_test", fwd.attr<bool>("is_test"))
      .set_attr("use_global_stats", fwd.attr<bool>("use_global_stats"));
}

void infer_batch_norm_grad(ShapeContext& ctx) {
  const DType dtype = ctx.in_dtype("X");
  ctx.set_output("X@GRAD", ctx.in_shape("X"), dtype);
  ctx.set_output("Scale@GRAD", ctx.in_shape("Scale"), dtype);
  ctx.set_output("Bias@GRAD", ctx.in_shape("Scale"), dtype);
}

template <typename C>
void batch_norm_grad(C& c) {
  SKIFF_KERNEL_CALL(c, "norm", kernels::batch_norm_grad, c.in("X"), c.in("Scale"),
                    c.in("SavedMean"), c.in("SavedVariance"), c.in("Y@GRAD"), running_stats(c),
                    c.out("X@GRAD"), c.out("Scale@GRAD"), c.out("Bias@GRAD"));
}

// ---- layer_norm ----

// [right]: the size of X from begin_norm_axis on, -1 when unknown.
Shape normalized_size(const Shape& x, int64_t axis) {
  int64_t right = 1;
  for (int d = static_cast<int>(axis); d < x.rank(); ++d)
    right = (right < 0 || x[d] < 0) ? -1 : right * x[d];
  return Shape{right};
}

void infer_layer_norm(ShapeContext& ctx) {
  check_floating_inputs(ctx, "layer_norm", {"Scale", "Bias"});
  const Shape x = ctx.in_shape("X");
  const int64_t axis = ctx.attr<int64_t>("begin_norm_axis");
  const Shape stats = kernels::layer_norm_stats_shape(x, axis);
  for (const char* slot : {"Scale", "Bias"}) {
    if (ctx.has_input(slot)) kernels::check_layer_norm_param(slot, ctx.in_shape(slot), x, axis);
  }
  const DType dtype = ctx.in_dtype("X");
  ctx.set_output("Y", x, dtype);
  ctx.set_output("Mean", stats, dtype);
  ctx.set_output("Variance", stats, dtype);
}

template <typename C>
void layer_norm(C& c) {
  SKIFF_KERNEL_CALL(c, "norm", kernels::layer_norm, c.in("X"), c.in_or_null("Scale"),
                    c.in_or_null("Bias"), attr<int64_t>(c, "begin_norm_axis"),
                    attr<double>(c, "epsilon"), c.out("Y"), c.out("Mean"), c.out("Variance"));
}

void layer_norm_grad_maker(GradContext& g) {
  if (!g.wants("X") && !g.wants("Scale") && !g.wants("Bias")) return;
  const OpDesc& fwd = g.fwd();
  for (const char* slot : {"Mean", "Variance"}) {
    SKIFF_CHECK(!fwd.first_output(slot).empty(), "layer_norm: the gradient needs the ", slot,
                " output");
  }
  OpDesc& op = g.add("layer_norm_grad")
                   .set_input("X", {fwd.first_input("X")})
                   .set_input("Mean", {fwd.first_output("Mean")})
                   .set_input("Variance", {fwd.first_output("Variance")})
                   .set_input("Y@GRAD", {g.out_grad("Y")})
                   .set_output("X@GRAD", {g.in_grad("X")})
                   .set_attr("begin_norm_axis", fwd.attr<int64_t>("begin_norm_axis"))
                   .set_attr("epsilon", fwd.attr<double>("epsilon"));
  if (!fwd.first_input("Scale").empty()) {
    op.set_input("Scale", {fwd.first_input("Scale")});
    op.set_output("Scale@GRAD", {g.in_grad("Scale")});
  }
  if (!fwd.first_input("Bias").empty()) op.set_output("Bias@GRAD", {g.in_grad("Bias")});
}

void infer_layer_norm_grad(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const DType dtype = ctx.in_dtype("X");
  const Shape right = normalized_size(x, ctx.attr<int64_t>("begin_norm_axis"));
  ctx.set_output("X@GRAD", x, dtype);
  ctx.set_output("Scale@GRAD", right, dtype);
  ctx.set_output("Bias@GRAD", right, dtype);
}

template <typename C>
void layer_norm_grad(C& c) {
  SKIFF_KERNEL_CALL(c, "norm", kernels::layer_norm_grad, c.in("X"), c.in_or_null("Scale"),
                    c.in("Mean"), c.in("Variance"), c.in("Y@GRAD"),
                    attr<int64_t>(c, "begin_norm_axis"), attr<double>(c, "epsilon"),
                    c.out("X@GRAD"), c.out("Scale@GRAD"), c.out("Bias@GRAD"));
}

}  // namespace

void register_norm_ops(OpRegistry& r) {
  r.add("batch_norm")
      .doc(
          "Y = (X - mean) / sqrt(var + epsilon) * Scale + Bias per channel of X [N, C, ...]. "
          "Training: mean and biased var of the batch (over N and the spatial dims), and the "
          "running statistics MeanOut / VarianceOut (usually the Mean / Variance variables, in "
          "place) become running * momentum + batch * (1 - momentum). is_test or "
          "use_global_stats: mean = Mean, var = Variance, left unchanged.")
      .input("X", "float32 or float64 [N, C] or [N, C, ...] (up to 3 spatial dims)")
      .input("Scale", "[C]")
      .input("Bias", "[C]")
      .input("Mean", "[C], the running mean")
      .input("Variance", "[C], the running variance")
      .output("Y", "X's shape and dtype")
      .output("MeanOut", "[C], the updated running mean (may be Mean itself)")
      .output("VarianceOut", "[C], the updated running variance (may be Variance itself)")
      .output("SavedMean", "[C], the mean Y was normalized with (for the gradient)")
      .output("SavedVariance", "[C], 1 / sqrt(var + epsilon) of that normalization")
      .attr("epsilon", 1e-5, "added to the variance")
      .attr("momentum", 0.9, "weight of the old running statistics")
      .attr("is_test", false, "inference: normalize with the running statistics")
      .attr("use_global_stats", false, "normalize with the running statistics in training too")
      .infer_shape(infer_batch_norm)
      .bind({DType::kF32, DType::kF64}, batch_norm<KernelContext>, batch_norm<EmitContext>)
      .kernel_dtype_from("X")
      .grad(batch_norm_grad_maker);

  r.add("batch_norm_grad")
      .doc(
          "Gradients of batch_norm: through the batch mean and variance in training; with "
          "is_test or use_global_stats, X@GRAD = Y@GRAD * Scale * SavedVariance.")
      .input("X", "the forward X")
      .input("Scale", "the forward Scale")
      .input("SavedMean", "the forward SavedMean")
      .input("SavedVariance", "the forward SavedVariance (1 / sqrt(var + epsilon))")
      .input("Y@GRAD", "gradient of Y")
      .output("X@GRAD", "gradient of X")
      .output("Scale@GRAD", "gradient of Scale")
      .output("Bias@GRAD", "gradient of Bias")
      .attr("epsilon", 1e-5, "as in the forward op")
      .attr("is_test", false, "as in the forward op")
      .attr("use_global_stats", false, "as in the forward op")
      .infer_shape(infer_batch_norm_grad)
      .bind({DType::kF32, DType::kF64}, batch_norm_grad<KernelContext>,
            batch_norm_grad<EmitContext>)
      .kernel_dtype_from("X");

  r.add("layer_norm")
      .doc(
          "Y = (X - mean) / sqrt(var + epsilon) * Scale + Bias, with the mean and biased var of "
          "each row of X seen as [left, right], right the product of the dims from "
          "begin_norm_axis on.")
      .input("X", "float32 or float64, any shape")
      .optional_input("Scale", "[right] (absent: 1)")
      .optional_input("Bias", "[right] (absent: 0)")
      .output("Y", "X's shape and dtype")
      .output("Mean", "[left], each row's mean")
      .output("Variance", "[left], each row's variance")
      .attr("begin_norm_axis", int64_t{1}, "first normalized dim, in [0, rank)")
      .attr("epsilon", 1e-5, "added to the variance")
      .infer_shape(infer_layer_norm)
      .bind({DType::kF32, DType::kF64}, layer_norm<KernelContext>, layer_norm<EmitContext>)
      .kernel_dtype_from("X")
      .grad(layer_norm_grad_maker);

  r.add("layer_norm_grad")
      .doc("Gradients of layer_norm from the forward Mean and Variance.")
      .input("X", "the forward X")
      .optional_input("Scale", "the forward Scale, when present")
      .input("Mean", "the forward Mean")
      .input("Variance", "the forward Variance")
      .input("Y@GRAD", "gradient of Y")
      .output("X@GRAD", "gradient of X")
      .optional_output("Scale@GRAD", "gradient of Scale")
      .optional_output("Bias@GRAD", "gradient of Bias")
      .attr("begin_norm_axis", int64_t{1}, "as in the forward op")
      .attr("epsilon", 1e-5, "as in the forward op")
      .infer_shape(infer_layer_norm_grad)
      .bind({DType::kF32, DType::kF64}, layer_norm_grad<KernelContext>,
            layer_norm_grad<EmitContext>)
      .kernel_dtype_from("X");
}

const OpRegistrar kNormOps(register_norm_ops);

}  // namespace skiff
