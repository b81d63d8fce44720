// Normalisations along an axis: softmax, log_softmax and softmax_with_cross_entropy, and
// their grad ops.
#include "skiff/kernels/cpu/softmax.h"

#include "skiff/kernels/cpu/log_softmax.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// ---- softmax ----

void infer_softmax(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(is_floating(dtype), "softmax: X must be float32, float64 or bfloat16, got ",
              dtype_name(dtype), x);
  kernels::normalize_axis("softmax", ctx.attr<int64_t>("axis"), x.rank());
  ctx.set_output("Out", x, dtype);
}

template <typename C>
void softmax(C& c) {
  SKIFF_KERNEL_CALL(c, "softmax", kernels::softmax, c.in("X"), attr<int64_t>(c, "axis"),
                    c.out("Out"));
}

void softmax_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("softmax_grad")
      .set_input("Out", {g.fwd().first_output("Out")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_attr("axis", g.fwd().attr<int64_t>("axis"));
}

void infer_softmax_grad(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("Out"), ctx.in_dtype("Out"));
}

template <typename C>
void softmax_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "softmax", kernels::softmax_grad, c.in("Out"), c.in("Out@GRAD"),
                    attr<int64_t>(c, "axis"), c.out("X@GRAD"));
}

// ---- softmax_with_cross_entropy ----

void infer_cross_entropy(ShapeContext& ctx) {
  const Shape logits = ctx.in_shape("Logits");
  const DType dtype = ctx.in_dtype("Logits"), label_dtype = ctx.in_dtype("Label");
  const bool soft = ctx.attr<bool>("soft_label");
  SKIFF_CHECK(is_floating(dtype),
              "softmax_with_cross_entropy: Logits must be float32 or float64, got ",
              dtype_name(dtype), logits);
  SKIFF_CHECK(
      soft ? label_dtype == dtype : (label_dtype == DType::kI64 || label_dtype == DType::kI32),
      "softmax_with_cross_entropy: ", soft ? "soft" : "hard", " Label must be ",
      soft ? dtype_name(dtype) : "int64", ", got ", dtype_name(label_dtype), ctx.in_shape("Label"));
  const Shape loss = kernels::cross_entropy_loss_shape(logits, ctx.in_shape("Label"), soft,
                                                       ctx.attr<int64_t>("axis"));
  ctx.set_output("Softmax", logits, dtype);
  ctx.set_output("Loss", loss, dtype);
}

template <typename C>
void softmax_with_cross_entropy(C& c) {
  SKIFF_KERNEL_CALL(c, "softmax", kernels::softmax_with_cross_entropy, c.in("Logits"),
                    c.in("Label"), attr<bool>(c, "soft_label"), attr<int64_t>(c, "axis"),
                    attr<int64_t>(c, "ignore_index"), c.out("Softmax"), c.out("Loss"));
}

void cross_entropy_grad_maker(GradContext& g) {
  if (!g.wants("Logits")) return;
  const OpDesc& fwd = g.fwd();
  g.add("softmax_with_cross_entropy_grad")
      .set_input("Label", {fwd.first_input("Label")})
      .set_input("Softmax", {fwd.first_output("Softmax")})
      .set_input("Loss@GRAD", {g.out_grad("Loss")})
      .set_output("Logits@GRAD", {g.in_grad("Logits")})
      .set_attr("soft_label", fwd.attr<bool>("soft_label"))
      .set_attr("axis", fwd.attr<int64_t>("axis"))
      .set_attr("ignore_index", fwd.attr<int64_t>("ignore_index"));
}

void infer_cross_entropy_grad(ShapeContext& ctx) {
  ctx.set_output("Logits@GRAD", ctx.in_shape("Softmax"), ctx.in_dtype("Softmax"));
}

template <typename C>
void softmax_with_cross_entropy_grad(C& c) {
  if (!c.has_out("Logits@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "softmax", kernels::softmax_with_cross_entropy_grad, c.in("Label"),
                    c.in("Softmax"), c.in("Loss@GRAD"), attr<bool>(c, "soft_label"),
                    attr<int64_t>(c, "axis"), attr<int64_t>(c, "ignore_index"),
                    c.out("Logits@GRAD"));
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

void register_softmax_ops(OpRegistry& r) {
  r.add("softmax")
      .doc("Out = exp(X - max) / sum(exp(X - max)) along `axis` (numerically stable).")
      .input("X", "float32, float64 or bfloat16 (computed in float32, rounded once), any shape")
      .output("Out", "X's shape and dtype")
      .attr("axis", int64_t{-1}, "the normalised axis; negative counts from the back")
      .infer_shape(infer_softmax)
      .bind({DType::kF32, DType::kF64, DType::kBF16}, softmax<KernelContext>, softmax<EmitContext>)
      .grad(softmax_grad_maker);

  r.add("softmax_grad")
      .doc("X@GRAD = Out * (Out@GRAD - sum(Out@GRAD * Out, axis)).")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("axis", int64_t{-1}, "as in the forward op")
      .infer_shape(infer_softmax_grad)
      .bind({DType::kF32, DType::kF64, DType::kBF16}, softmax_grad<KernelContext>,
            softmax_grad<EmitContext>)
      .kernel_dtype_from("Out");

  r.add("softmax_with_cross_entropy")
      .doc(
          "Softmax = softmax(Logits, axis); Loss = -log(Softmax[Label]) for hard labels (0 where "
          "Label == ignore_index), or -sum(Label * log(Softmax), axis) for soft labels. Computed "
          "from log-sum-exp, so large logits stay finite.")
      .input("Logits", "float32 or float64, [..., C, ...] with the classes along `axis`")
      .input("Label",
             "hard: int64, Logits' shape with the axis dim 1; soft: Logits' shape and dtype")
      .output("Softmax", "Logits' shape and dtype")
      .output("Loss", "Logits' shape with the axis dim 1")
      .attr("soft_label", false, "Label holds a distribution over the classes")
      .attr("axis", int64_t{-1}, "the class axis; negative counts from the back")
      .attr("ignore_index", int64_t{-100}, "hard label value whose loss and gradient are 0")
      .infer_shape(infer_cross_entropy)
      .bind({DType::kF32, DType::kF64}, softmax_with_cross_entropy<KernelContext>,
            softmax_with_cross_entropy<EmitContext>)
      .kernel_dtype_from("Logits")
      .grad(cross_entropy_grad_maker);

  r.add("softmax_with_cross_entropy_grad")
      .doc(
          "Logits@GRAD = Loss@GRAD * (Softmax - onehot(Label)) for hard labels (0 on ignored "
          "rows), Loss@GRAD * (Softmax * sum(Label) - Label) for soft labels.")
      .input("Label", "the forward Label")
      .input("Softmax", "the forward Softmax")
      .input("Loss@GRAD", "gradient of Loss")
      .output("Logits@GRAD", "gradient of Logits")
      .attr("soft_label", false, "as in the forward op")
      .attr("axis", int64_t{-1}, "as in the forward op")
      .attr("ignore_index", int64_t{-100}, "as in the forward op")
      .infer_shape(infer_cross_entropy_grad)
      .bind({DType::kF32, DType::kF64}, softmax_with_cross_entropy_grad<KernelContext>,
            softmax_with_cross_entropy_grad<EmitContext>)
      .kernel_dtype_from("Softmax");
  register_log_softmax(r);
}

const OpRegistrar kSoftmaxOps(register_softmax_ops);

}  // namespace skiff
