// Gradient clipping: squared_l2_norm (+grad) and clip_by_global_norm, which scales a
// list of gradients (dense or selected rows) in place so that their joint L2 norm is
// at most clip_norm (PaddlePaddle's ClipGradByGlobalNorm).
#include <cmath>

#include "skiff/kernels/cpu/clip_grad.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

void check_gradient_var(const VarDesc& v, const char* op) {
  SKIFF_CHECK(
      is_floating(v.dtype) && (v.kind == VarKind::kDenseTensor || v.kind == VarKind::kSelectedRows),
      op, ": '", v.name, "' must be a float32/float64 tensor or selected rows, got ",
      var_kind_name(v.kind), " ", dtype_name(v.dtype), v.shape);
}

// ---- squared_l2_norm ----

void infer_squared_l2_norm(ShapeContext& ctx) {
  const VarDesc& x = ctx.in_var("X");
  check_gradient_var(x, "squared_l2_norm");
  ctx.set_output("Out", Shape{1}, x.dtype);
}

template <typename C>
void squared_l2_norm(C& c) {
  if (c.in_is_rows("X")) {
    SKIFF_KERNEL_CALL(c, "clip_grad", kernels::squared_l2_norm, c.rows_in("X"), c.out("Out"));
  } else {
    SKIFF_KERNEL_CALL(c, "clip_grad", kernels::squared_l2_norm, c.in("X"), c.out("Out"));
  }
}

void squared_l2_norm_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("squared_l2_norm_grad")
      .set_input("X", {g.fwd().first_input("X")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")});
}

template <typename C>
void squared_l2_norm_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "clip_grad", kernels::squared_l2_norm_grad, c.in("X"), c.in("Out@GRAD"),
                    c.out("X@GRAD"));
}

// ---- clip_by_global_norm ----

void infer_clip_by_global_norm(ShapeContext& ctx) {
  const int n = ctx.in_count("X");
  SKIFF_CHECK(n > 0, "clip_by_global_norm needs at least one gradient in X");
  SKIFF_CHECK(ctx.out_count("Out") == n, "clip_by_global_norm: ", n, " gradients in X but ",
              ctx.out_count("Out"), " in Out");
  SKIFF_CHECK(ctx.attr<double>("clip_norm") > 0, "clip_by_global_norm: clip_norm must be > 0, got ",
              ctx.attr<double>("clip_norm"));
  for (int i = 0; i < n; ++i) {
    const VarDesc& x = ctx.in_var("X", i);
    check_gradient_var(x, "clip_by_global_norm");
    ctx.set_output("Out", x.shape, x.dtype, i, x.kind);
  }
  ctx.set_output("GlobalNorm", Shape{1}, ctx.in_dtype("X"));
}

// The gradients X[i] (dense or selected rows) with their outputs Out[i], as the kernel
// takes them: run-time values (X without a value is left out), or the expression of the
// list from the variables' declared kinds (an absent X[i] is left out).
std::vector<kernels::ClippedGradient> clipped_gradients(KernelContext& ctx) {
  std::vector<kernels::ClippedGradient> grads(static_cast<size_t>(ctx.in_count("X")));
  for (int i = 0; i < ctx.in_count("X"); ++i) {
    const Variable* x = ctx.in_var("X", i);
    Variable* out = ctx.out_var("Out", i);
    if (!x || x->empty()) continue;
    SKIFF_CHECK(x->selected_rows() || x->tensor(),
                "clip_by_global_norm: X holds neither a tensor nor selected rows");
    if (const SelectedRows* rows = x->selected_rows()) {
      grads[i].rows = rows;
      grads[i].rows_out = out ? out->mutable_selected_rows() : nullptr;
    } else if (x->tensor()->initialized()) {
      grads[i].tensor = x->tensor();
      grads[i].tensor_out = out ? out->mutable_tensor() : nullptr;
    }
  }
  return grads;
}

Expr clipped_gradients(const EmitContext& c) {
  std::string grads = "std::vector<kernels::ClippedGradient>{";
  const char* sep = "";
  for (int i = 0; i < c.in_count("X"); ++i) {
    if (!c.has_in("X", i)) continue;
    grads += sep;
    sep = ", ";
    if (c.in_is_rows("X", i)) {
      grads += "kernels::ClippedGradient{nullptr, nullptr, &" + c.rows_in("X", i).text + ", " +
               c.rows_out("Out", i).text + "}";
    } else {
      grads += "kernels::ClippedGradient{&" + c.in("X", i).text + ", " + c.out("Out", i).text +
               ", nullptr, nullptr}";
    }
  }
  return {grads + "}"};
}

template <typename C>
void clip_by_global_norm(C& c) {
  SKIFF_CHECK(c.out_count("Out") == c.in_count("X"), "clip_by_global_norm: ", c.in_count("X"),
              " gradients in X but ", c.out_count("Out"), " in Out");
  SKIFF_KERNEL_CALL(c, "clip_grad", kernels::clip_by_global_norm, clipped_gradients(c),
                    attr<double>(c, "clip_norm"), c.out("GlobalNorm"));
}

}  // namespace

void register_clip_grad_ops(OpRegistry& r) {
  r.add("squared_l2_norm")
      .doc("Out = sum(X^2) over all elements, [1] (of the dense tensor selected rows stand for).")
      .input("X", "float32 or float64 tensor (or selected rows), any shape")
      .output("Out", "[1] of X's dtype")
      .infer_shape(infer_squared_l2_norm)
      .bind({DType::kF32, DType::kF64}, squared_l2_norm<KernelContext>,
            squared_l2_norm<EmitContext>)
      .grad(squared_l2_norm_grad_maker);

  r.add("squared_l2_norm_grad")
      .doc("X@GRAD = 2 * X * Out@GRAD.")
      .input("X", "the forward X (dense)")
      .input("Out@GRAD", "gradient of Out, one element")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad_like_x)
      .bind({DType::kF32, DType::kF64}, squared_l2_norm_grad<KernelContext>,
            squared_l2_norm_grad<EmitContext>)
      .kernel_dtype_from("X");

  r.add("clip_by_global_norm")
      .doc(
          "Out[i] = X[i] * clip_norm / max(GlobalNorm, clip_norm), GlobalNorm = sqrt(sum_i "
          "|X[i]|^2) over all the gradients (selected rows count as the dense tensors they "
          "stand for): scales every gradient by one factor so that their joint L2 norm is at "
          "most clip_norm. Out[i] usually names X[i] (in place); X without a value is skipped.")
      .inputs("X", "gradients: float32/float64 tensors or selected rows")
      .outputs("Out", "the clipped gradients, one per X, same kind, shape and dtype")
      .optional_output("GlobalNorm", "[1]: the norm before clipping, of X[0]'s dtype")
      .attr("clip_norm", 1.0, "the largest joint L2 norm let through (> 0)")
      .infer_shape(infer_clip_by_global_norm)
      .bind({DType::kF32, DType::kF64}, clip_by_global_norm<KernelContext>,
            clip_by_global_norm<EmitContext>)
      .kernel_dtype_from("X");
}

const OpRegistrar kClipGradOps(register_clip_grad_ops);

}  // namespace skiff
