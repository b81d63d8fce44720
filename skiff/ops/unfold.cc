// unfold (im2col) and fold (col2im): each is the other's adjoint, so the gradient of one
// is the other op with the same window attributes.
#include "skiff/kernels/cpu/unfold.h"

#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
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

// The windows of the op (`op` names it in errors): the UnfoldGeometry, or the expression
// computing it in generated code.
template <typename C>
auto geometry_value(const C& c, const char* op) {
  return SKIFF_KERNEL_VALUE(
      c, kernels::unfold_geometry,
      constant(c, op, [](const char* name) { return cpp_literal(std::string(name)); }),
      attr_ref<Ints>(c, "kernel_sizes"), attr_ref<Ints>(c, "strides"),
      attr_ref<Ints>(c, "paddings"), attr_ref<Ints>(c, "dilations"));
}

// fold's output_sizes (H, W), checked to hold 2 values.
const Ints& output_sizes_of(const OpDesc& op) {
  const Ints& sizes = op.attr_ref<Ints>("output_sizes");
  SKIFF_CHECK(sizes.size() == 2, "fold: output_sizes must hold 2 values (H, W), got ",
              sizes.size());
  return sizes;
}

// An int64_t the binding reads of the op: the value, or its literal.
template <typename C>
auto int_constant(const C& c, const int64_t& v) {
  return constant(c, v, [](int64_t x) { return cpp_literal(x); });
}

// Dim d of the forward X (4-D) in unfold_grad: the value, or its expression.
int64_t x_dim(const KernelContext& c, int d) {
  const Tensor& x = c.in("X");
  SKIFF_CHECK(x.rank() == 4, "unfold_grad: X must be 4-D, got ", x.shape());
  return x.dim(d);
}
Expr x_dim(const EmitContext& c, int d) { return c.in("X").dim(d); }

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
  const Ints& sizes = output_sizes_of(ctx.op());
  ctx.set_output(
      "Out", kernels::fold_shape(ctx.in_shape("X"), geometry_of(ctx, "fold"), sizes[0], sizes[1]),
      ctx.in_dtype("X"));
}

template <typename C>
void unfold(C& c) {
  SKIFF_KERNEL_CALL(c, "unfold", kernels::unfold, c.in("X"), geometry_value(c, "unfold"),
                    c.out("Out"));
}

template <typename C>
void fold(C& c) {
  const Ints& sizes = output_sizes_of(c.op());
  SKIFF_KERNEL_CALL(c, "unfold", kernels::fold, c.in("X"), geometry_value(c, "fold"),
                    int_constant(c, sizes[0]), int_constant(c, sizes[1]), c.out("Out"));
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

template <typename C>
void unfold_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "unfold", kernels::fold, c.in("Out@GRAD"), geometry_value(c, "unfold_grad"),
                    x_dim(c, 2), x_dim(c, 3), c.out("X@GRAD"));
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
  OpBuilder unfold_op = r.add("unfold");
  unfold_op
      .doc(
          "Out[n, (c * kh + i) * kw + j, l] = X[n, c] at cell (i, j) of window l (row-major "
          "window positions), 0 in padding: Paddle's unfold (im2col).")
      .input("X", "float32 or float64 [N, C, H, W]")
      .output("Out", "[N, C * kh * kw, L], L the number of window positions");
  window_attrs(unfold_op)
      .infer_shape(infer_unfold)
      .bind({DType::kF32, DType::kF64}, unfold<KernelContext>, unfold<EmitContext>)
      .kernel_dtype_from("X")
      .grad(unfold_grad_maker);

  OpBuilder unfold_grad_op = r.add("unfold_grad");
  unfold_grad_op.doc("X@GRAD of unfold: fold of Out@GRAD onto X's height and width.")
      .input("X", "the forward X (its shape)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X");
  window_attrs(unfold_grad_op)
      .infer_shape(infer_x_grad_like_x)
      .bind({DType::kF32, DType::kF64}, unfold_grad<KernelContext>, unfold_grad<EmitContext>)
      .kernel_dtype_from("X");

  OpBuilder fold_op = r.add("fold");
  fold_op
      .doc(
          "Out [N, C, H, W] = the columns of X added back into the cells their windows cover "
          "(Paddle's fold, col2im; the adjoint of unfold).")
      .input("X", "float32 or float64 [N, C * kh * kw, L]")
      .output("Out", "[N, C, H, W], (H, W) = output_sizes");
  window_attrs(fold_op)
      .required_attr("output_sizes", AttrType::kInts, "output (H, W)")
      .infer_shape(infer_fold)
      .bind({DType::kF32, DType::kF64}, fold<KernelContext>, fold<EmitContext>)
      .kernel_dtype_from("X")
      .grad(fold_grad_maker);
}

const OpRegistrar kUnfoldOps(register_unfold_ops);

}  // namespace skiff
