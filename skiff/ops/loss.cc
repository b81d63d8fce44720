// Loss ops (PaddlePaddle names and semantics): mse_loss, sigmoid_cross_entropy_with_logits
// (binary cross-entropy on logits), nll_loss, and their grad ops. Elementwise losses
// leave the reduction to reduce_mean / reduce_sum; nll_loss has a reduction attr.
#include "skiff/kernels/cpu/loss.h"

#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// X floating, Label of X's shape and dtype; declares `out_slot` like X.
void infer_elementwise_loss(ShapeContext& ctx, const char* op, const char* out_slot) {
  const VarDesc& x = ctx.in_var("X");
  const VarDesc& label = ctx.in_var("Label");
  SKIFF_CHECK(is_floating(x.dtype), op, ": X ('", x.name, "') must be float32 or float64, got ",
              dtype_name(x.dtype), x.shape);
  SKIFF_CHECK(label.dtype == x.dtype && shapes_compatible(label.shape, x.shape), op, ": Label ('",
              label.name, "', ", dtype_name(label.dtype), label.shape, ") must match X ('", x.name,
              "', ", dtype_name(x.dtype), x.shape, ")");
  ctx.set_output(out_slot, x.shape, x.dtype);
}

// ---- mse_loss ----

void infer_mse(ShapeContext& ctx) { infer_elementwise_loss(ctx, "mse_loss", "Out"); }

template <typename C>
void mse_loss(C& c) {
  SKIFF_KERNEL_CALL(c, "loss", kernels::mse_loss, c.in("X"), c.in("Label"), c.out("Out"));
}

void mse_grad_maker(GradContext& g) {
  if (!g.wants("X") && !g.wants("Label")) return;
  g.add("mse_loss_grad")
      .set_input("X", {g.fwd().first_input("X")})
      .set_input("Label", {g.fwd().first_input("Label")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_output("Label@GRAD", {g.in_grad("Label")});
}

void infer_mse_grad(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("X"), ctx.in_dtype("X"));
  ctx.set_output("Label@GRAD", ctx.in_shape("Label"), ctx.in_dtype("Label"));
}

template <typename C>
void mse_loss_grad(C& c) {
  SKIFF_KERNEL_CALL(c, "loss", kernels::mse_loss_grad, c.in("X"), c.in("Label"), c.in("Out@GRAD"),
                    c.out("X@GRAD"), c.out("Label@GRAD"));
}

// ---- sigmoid_cross_entropy_with_logits ----

// The op's SigmoidCrossEntropyOptions: the value, or its expression for the compiler.
template <typename C>
auto bce_options_of(const C& c) {
  const kernels::SigmoidCrossEntropyOptions options{c.op().template attr<int64_t>("ignore_index"),
                                                    c.op().template attr<bool>("normalize")};
  return constant(c, options, [](const kernels::SigmoidCrossEntropyOptions& o) {
    return "kernels::SigmoidCrossEntropyOptions{" + cpp_literal(o.ignore_index) + ", " +
           cpp_literal(o.normalize) + "}";
  });
}

void infer_bce(ShapeContext& ctx) {
  infer_elementwise_loss(ctx, "sigmoid_cross_entropy_with_logits", "Out");
}

template <typename C>
void sigmoid_cross_entropy_with_logits(C& c) {
  SKIFF_KERNEL_CALL(c, "loss", kernels::sigmoid_cross_entropy_with_logits, c.in("X"), c.in("Label"),
                    bce_options_of(c), c.out("Out"));
}

void bce_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  g.add("sigmoid_cross_entropy_with_logits_grad")
      .set_input("X", {fwd.first_input("X")})
      .set_input("Label", {fwd.first_input("Label")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_attr("ignore_index", fwd.attr<int64_t>("ignore_index"))
      .set_attr("normalize", fwd.attr<bool>("normalize"));
}

template <typename C>
void sigmoid_cross_entropy_with_logits_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "loss", kernels::sigmoid_cross_entropy_with_logits_grad, c.in("X"),
                    c.in("Label"), c.in("Out@GRAD"), bce_options_of(c), c.out("X@GRAD"));
}

// ---- nll_loss ----

kernels::NllLossOptions nll_options(const std::string& reduction, int64_t ignore_index) {
  return {kernels::reduction_from_name(reduction), ignore_index};
}

void infer_nll(ShapeContext& ctx) {
  const VarDesc& x = ctx.in_var("X");
  const VarDesc& label = ctx.in_var("Label");
  SKIFF_CHECK(is_floating(x.dtype) && x.shape.rank() == 2, "nll_loss: X ('", x.name,
              "') must be float32/float64 log-probabilities [N, C], got ", dtype_name(x.dtype),
              x.shape);
  SKIFF_CHECK((label.dtype == DType::kI64 || label.dtype == DType::kI32) &&
                  (label.shape.rank() == 1 || (label.shape.rank() == 2 && label.shape[1] == 1)),
              "nll_loss: Label ('", label.name, "') must be int64 [N] or [N, 1], got ",
              dtype_name(label.dtype), label.shape);
  SKIFF_CHECK(label.shape[0] < 0 || x.shape[0] < 0 || label.shape[0] == x.shape[0],
              "nll_loss: Label ('", label.name, "') has ", label.shape[0], " samples, X ('", x.name,
              "') has ", x.shape[0]);
  if (ctx.has_input("Weight")) {
    const VarDesc& w = ctx.in_var("Weight");
    SKIFF_CHECK(w.dtype == x.dtype && shapes_compatible(w.shape, Shape{x.shape[1]}),
                "nll_loss: Weight ('", w.name, "') must be [C] of X's dtype, got ",
                dtype_name(w.dtype), w.shape, " for X ", x.shape);
  }
  const auto reduction = kernels::reduction_from_name(ctx.attr<std::string>("reduction"));
  ctx.set_output("Out", kernels::nll_loss_out_shape(x.shape, reduction), x.dtype);
  ctx.set_output("Total_weight", Shape{}, x.dtype);
}

// The op's NllLossOptions: the value, or its expression for the compiler.
template <typename C>
auto nll_options_of(const C& c) {
  const std::string& reduction = c.op().template attr_ref<std::string>("reduction");
  const int64_t ignore_index = c.op().template attr<int64_t>("ignore_index");
  return constant(c, nll_options(reduction, ignore_index), [&](const kernels::NllLossOptions&) {
    return "kernels::NllLossOptions{kernels::reduction_from_name(" + cpp_literal(reduction) +
           "), " + cpp_literal(ignore_index) + "}";
  });
}

template <typename C>
void nll_loss(C& c) {
  SKIFF_KERNEL_CALL(c, "loss", kernels::nll_loss, c.in("X"), c.in("Label"), c.in_or_null("Weight"),
                    nll_options_of(c), c.out("Out"), c.out("Total_weight"));
}

void nll_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  OpDesc& op = g.add("nll_loss_grad")
                   .set_input("X", {fwd.first_input("X")})
                   .set_input("Label", {fwd.first_input("Label")})
                   .set_input("Out@GRAD", {g.out_grad("Out")})
                   .set_output("X@GRAD", {g.in_grad("X")})
                   .set_attr("reduction", fwd.attr<std::string>("reduction"))
                   .set_attr("ignore_index", fwd.attr<int64_t>("ignore_index"));
  if (!fwd.first_input("Weight").empty()) op.set_input("Weight", {fwd.first_input("Weight")});
}

template <typename C>
void nll_loss_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "loss", kernels::nll_loss_grad, c.in("X").shape(), c.in("Label"),
                    c.in_or_null("Weight"), c.in("Out@GRAD"), nll_options_of(c), c.out("X@GRAD"));
}

}  // namespace

void register_loss_ops(OpRegistry& r) {
  r.add("mse_loss")
      .doc("Out = (X - Label)^2 elementwise (reduce it with reduce_mean for the usual MSE).")
      .input("X", "predictions, float32 or float64, any shape")
      .input("Label", "targets, X's shape and dtype")
      .output("Out", "X's shape and dtype")
      .infer_shape(infer_mse)
      .bind({DType::kF32, DType::kF64}, mse_loss<KernelContext>, mse_loss<EmitContext>)
      .kernel_dtype_from("X")
      .grad(mse_grad_maker);

  r.add("mse_loss_grad")
      .doc("X@GRAD = 2 (X - Label) Out@GRAD; Label@GRAD = -X@GRAD.")
      .input("X", "the forward X")
      .input("Label", "the forward Label")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .output("Label@GRAD", "gradient of Label")
      .infer_shape(infer_mse_grad)
      .bind({DType::kF32, DType::kF64}, mse_loss_grad<KernelContext>, mse_loss_grad<EmitContext>)
      .kernel_dtype_from("X");

  r.add("sigmoid_cross_entropy_with_logits")
      .doc(
          "Binary cross-entropy on logits, elementwise: Out = max(X, 0) - X * Label + "
          "log(1 + exp(-|X|)) (stable for large |X|); 0 where Label == ignore_index. With "
          "normalize, divided by the number of elements not ignored (0 when all are).")
      .input("X", "logits, float32 or float64, any shape")
      .input("Label", "targets in [0, 1] (or ignore_index), X's shape and dtype")
      .output("Out", "X's shape and dtype")
      .attr("ignore_index", int64_t{-100}, "label value whose loss and gradient are 0")
      .attr("normalize", false, "divide by the number of elements not ignored")
      .infer_shape(infer_bce)
      .bind({DType::kF32, DType::kF64}, sigmoid_cross_entropy_with_logits<KernelContext>,
            sigmoid_cross_entropy_with_logits<EmitContext>)
      .kernel_dtype_from("X")
      .grad(bce_grad_maker);

  r.add("sigmoid_cross_entropy_with_logits_grad")
      .doc("X@GRAD = (sigmoid(X) - Label) * Out@GRAD, 0 where ignored, normalized like Out.")
      .input("X", "the forward X")
      .input("Label", "the forward Label")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("ignore_index", int64_t{-100}, "as in the forward op")
      .attr("normalize", false, "as in the forward op")
      .infer_shape(infer_x_grad_like_x)
      .bind({DType::kF32, DType::kF64}, sigmoid_cross_entropy_with_logits_grad<KernelContext>,
            sigmoid_cross_entropy_with_logits_grad<EmitContext>)
      .kernel_dtype_from("X");

  r.add("nll_loss")
      .doc(
          "Negative log-likelihood: loss_n = -Weight[Label_n] * X[n, Label_n] (0 where Label_n "
          "== ignore_index); Total_weight = sum of Weight[Label_n] over the samples not "
          "ignored; Out = the losses [N] ('none'), their sum [] ('sum') or sum / Total_weight "
          "[] ('mean', 0 when Total_weight is 0).")
      .input("X", "log-probabilities, float32 or float64 [N, C]")
      .input("Label", "int64 (or int32) class ids [N] or [N, 1]")
      .optional_input("Weight", "per-class weights [C] of X's dtype (default: ones)")
      .output("Out", "[N] for reduction 'none', else []")
      .optional_output("Total_weight", "[]: the summed weight of the samples not ignored")
      .attr("reduction", std::string("mean"), "'none', 'sum' or 'mean'")
      .attr("ignore_index", int64_t{-100}, "label value whose loss and gradient are 0")
      .infer_shape(infer_nll)
      .bind({DType::kF32, DType::kF64}, nll_loss<KernelContext>, nll_loss<EmitContext>)
      .kernel_dtype_from("X")
      .grad(nll_grad_maker);

  r.add("nll_loss_grad")
      .doc(
          "X@GRAD[n, Label_n] = -Weight[Label_n] * g_n, zero elsewhere; g_n = Out@GRAD[n] "
          "('none'), Out@GRAD ('sum') or Out@GRAD / the forward Total_weight ('mean').")
      .input("X", "the forward X (gives the shape)")
      .input("Label", "the forward Label")
      .optional_input("Weight", "the forward Weight")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("reduction", std::string("mean"), "as in the forward op")
      .attr("ignore_index", int64_t{-100}, "as in the forward op")
      .infer_shape(infer_x_grad_like_x)
      .bind({DType::kF32, DType::kF64}, nll_loss_grad<KernelContext>, nll_loss_grad<EmitContext>)
      .kernel_dtype_from("X");
}

const OpRegistrar kLossOps(register_loss_ops);

}  // namespace skiff
