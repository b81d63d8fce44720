// unfold (im2col) and fold (col2im): each is the other's adjoint, so the gradient of one
// is the other op with the same window attributes.
#include "skiff/kernels/cpu/unfold.h"

#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

using Ints = std::vector<int64_t>;

template <typename Ctx>
kernels::UnfoldGeometry geometry_of(const Ctx& ctx, const char* op) {
  return kernels::unfold_geometry(
      op, ctx.template attr_ref<Ints>("kernel_sizes"), ctx.template attr_ref<Ints>("strides"),
      ctx.template attr_ref<Ints>("paddings"), ctx.template attr_ref<Ints>("dilations"));
}

template <typename Ctx>
void output_sizes_of(const Ctx& ctx, int64_t* h, int64_t* w) {
  const Ints& sizes = ctx.template attr_ref<Ints>("output_sizes");
  SKIFF_CHECK(sizes.size() == 2, "fold: output_sizes must hold 2 values (H, W), got ",
              sizes.size());
  *h = sizes[0];
  *w = sizes[1];
}

void check_floating(const ShapeContext& ctx) {
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(is_floating(dtype), ctx.op().type, ": X must be float32 or float64, got ",
              dtype_name(dtype), ctx.in_shape("X"));
}

void infer_unfold(ShapeContext& ctx) {
  check_floating(ctx);
  ctx.set_output("Out", kernels::unfold_shape(ctx.in_shape("X"), geometry_of(ctx, "unfold")),
                 ctx.in_dtype("X"));
}

void infer_fold(ShapeContext& ctx) {
  check_floating(ctx);
  int64_t h = 0, w = 0;
  output_sizes_of(ctx, &h, &w);
  ctx.set_output("Out", kernels::fold_shape(ctx.in_shape("X"), geometry_of(ctx, "fold"), h, w),
                 ctx.in_dtype("X"));
}

void unfold_kernel(KernelContext& ctx) {
  kernels::unfold(ctx.in("X"), geometry_of(ctx, "unfold"), ctx.out("Out"));
}

void fold_kernel(KernelContext& ctx) {
  int64_t h = 0, w = 0;
  output_sizes_of(ctx, &h, &w);
  kernels::fold(ctx.in("X"), geometry_of(ctx, "fold"), h, w, ctx.out("Out"));
}

void copy_window_attrs(const OpDesc& fwd, OpDesc& op) {
  for (const char* name : {"kernel_sizes", "strides", "paddings", "dilations"}) {
    if (const Attr* a = fwd.attrs.find(name)) op.set_attr(name, *a);
  }
}

// d unfold(X) / dX applied to Out@GRAD is fold(Out@GRAD) onto X's (H, W).
void unfold_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  OpDesc& op = g.add("unfold_grad")
                   .set_input("X", {g.fwd().first_input("X")})
                   .set_input("Out@GRAD", {g.out_grad("Out")})
                   .set_output("X@GRAD", {g.in_grad("X")});
  copy_window_attrs(g.fwd(), op);
}

void unfold_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  if (!dx) return;
  const Tensor& x = ctx.in("X");
  SKIFF_CHECK(x.rank() == 4, "unfold_grad: X must be 4-D, got ", x.shape());
  kernels::fold(ctx.in("Out@GRAD"), geometry_of(ctx, "unfold_grad"), x.dim(2), x.dim(3), dx);
}

// fold's gradient is unfold of Out@GRAD: a plain unfold op.
void fold_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  OpDesc& op =
      g.add("unfold").set_input("X", {g.out_grad("Out")}).set_output("Out", {g.in_grad("X")});
  copy_window_attrs(g.fwd(), op);
}

OpBuilder& window_attrs(OpBuilder& b) {
  return b.required_attr("kernel_sizes", AttrType::kInts, "window (kh, kw)")
      .attr("strides", Ints{1, 1}, "window strides (h, w)")
      .attr("paddings", Ints{0, 0, 0, 0},
            "zero padding: (h, w) on both sides, or (top, left, bottom, right)")
      .attr("dilations", Ints{1, 1}, "spacing of the window's cells (h, w)");
}

}  // namespace

void register_unfold_ops(OpRegistry& r) {
  OpBuilder unfold = r.add("unfold");
  unfold
      .doc(
          "Out[n, (c * kh + i) * kw + j, l] = X[n, c] at cell (i, j) of window l (row-major "
          "window positions), 0 in padding: Paddle's unfold (im2col).")
      .input("X", "float32 or float64 [N, C, H, W]")
      .output("Out", "[N, C * kh * kw, L], L the number of window positions");
  window_attrs(unfold)
      .infer_shape(infer_unfold)
      .kernel({DType::kF32, DType::kF64}, unfold_kernel)
      .kernel_dtype_from("X")
      .grad(unfold_grad_maker);

  OpBuilder unfold_grad = r.add("unfold_grad");
  unfold_grad.doc("X@GRAD of unfold: fold of Out@GRAD onto X's height and width.")
      .input("X", "the forward X (its shape)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X");
  window_attrs(unfold_grad)
      .infer_shape(infer_x_grad_like_x)
      .kernel({DType::kF32, DType::kF64}, unfold_grad_kernel)
      .kernel_dtype_from("X");

  OpBuilder fold = r.add("fold");
  fold.doc(
          "Out [N, C, H, W] = the columns of X added back into the cells their windows cover "
          "(Paddle's fold, col2im; the adjoint of unfold).")
      .input("X", "float32 or float64 [N, C * kh * kw, L]")
      .output("Out", "[N, C, H, W], (H, W) = output_sizes");
  window_attrs(fold)
      .required_attr("output_sizes", AttrType::kInts, "output (H, W)")
      .infer_shape(infer_fold)
      .kernel({DType::kF32, DType::kF64}, fold_kernel)
      .kernel_dtype_from("X")
      .grad(fold_grad_maker);
}

}  // namespace skiff
