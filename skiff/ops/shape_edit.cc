// Ops that regroup or repeat dims: flatten, squeeze, unsqueeze (views, no copy),
// expand and broadcast_to (broadcast copies), tile, and the grad ops of the copies.
#include <vector>

#include "skiff/kernels/cpu/repeat.h"
#include "skiff/kernels/cpu/reshape.h"
#include "skiff/kernels/cpu/shape_edit.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"
#include "skiff/ops/view_dtypes.h"

namespace skiff {

namespace {

using Ints = std::vector<int64_t>;

constexpr std::initializer_list<DType> kGradDTypes = {DType::kF32, DType::kF64, DType::kC64,
                                                      DType::kC128};

// ---- flatten, squeeze, unsqueeze: Out is a view of X with another shape ----

Shape flatten_shape_of(const Shape& x, const OpDesc& op) {
  return kernels::flatten_shape(x, op.attr<int64_t>("start_axis"), op.attr<int64_t>("stop_axis"));
}
Shape squeeze_shape_of(const Shape& x, const OpDesc& op) {
  return kernels::squeeze_shape(x, op.attr_ref<Ints>("axes"));
}
Shape unsqueeze_shape_of(const Shape& x, const OpDesc& op) {
  return kernels::unsqueeze_shape(x, op.attr_ref<Ints>("axes"));
}

template <Shape (*kShapeOf)(const Shape&, const OpDesc&)>
void infer_view(ShapeContext& ctx) {
  ctx.set_output("Out", kShapeOf(ctx.in_shape("X"), ctx.op()), ctx.in_dtype("X"));
}

// The views call reshape (skiff/kernels/cpu/reshape.h) with a shape function of
// shape_edit.h, which generated code includes too.
void include_shape_edit(const KernelContext&) {}
void include_shape_edit(const EmitContext& c) { c.writer().include("shape_edit"); }

template <typename C>
void flatten(C& c) {
  include_shape_edit(c);
  const auto& x = c.in("X");
  SKIFF_KERNEL_CALL(
      c, "reshape", kernels::reshape, x,
      SKIFF_KERNEL_VALUE(c, kernels::flatten_shape, x.shape(), attr<int64_t>(c, "start_axis"),
                         attr<int64_t>(c, "stop_axis")),
      c.out("Out"));
}

template <typename C>
void squeeze(C& c) {
  include_shape_edit(c);
  const auto& x = c.in("X");
  SKIFF_KERNEL_CALL(
      c, "reshape", kernels::reshape, x,
      SKIFF_KERNEL_VALUE(c, kernels::squeeze_shape, x.shape(), attr_ref<Ints>(c, "axes")),
      c.out("Out"));
}

template <typename C>
void unsqueeze(C& c) {
  include_shape_edit(c);
  const auto& x = c.in("X");
  SKIFF_KERNEL_CALL(
      c, "reshape", kernels::reshape, x,
      SKIFF_KERNEL_VALUE(c, kernels::unsqueeze_shape, x.shape(), attr_ref<Ints>(c, "axes")),
      c.out("Out"));
}

// The gradient of a view is Out@GRAD viewed with X's shape: reshape_grad.
void view_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("reshape_grad")
      .set_input("X", {g.fwd().first_input("X")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")});
}

// ---- expand / broadcast_to, tile ----

void infer_expand(ShapeContext& ctx) {
  ctx.set_output("Out", kernels::expand_shape(ctx.in_shape("X"), ctx.attr_ref<Ints>("shape")),
                 ctx.in_dtype("X"));
}

template <typename C>
void expand(C& c) {
  SKIFF_KERNEL_CALL(
      c, "repeat", kernels::expand, c.in("X"),
      SKIFF_KERNEL_VALUE(c, kernels::expand_shape, c.in("X").shape(), attr_ref<Ints>(c, "shape")),
      c.out("Out"));
}

void infer_tile(ShapeContext& ctx) {
  ctx.set_output("Out", kernels::tile_shape(ctx.in_shape("X"), ctx.attr_ref<Ints>("repeat_times")),
                 ctx.in_dtype("X"));
}

template <typename C>
void tile(C& c) {
  SKIFF_KERNEL_CALL(c, "repeat", kernels::tile, c.in("X"), attr_ref<Ints>(c, "repeat_times"),
                    c.out("Out"));
}

// <op>_grad(X, Out@GRAD) -> X@GRAD, carrying the forward op's attr
// `attr` when it is not null.
void repeat_grad_maker(GradContext& g, const char* grad_type, const char* attr) {
  if (!g.wants("X")) return;
  OpDesc& op = g.add(grad_type)
                   .set_input("X", {g.fwd().first_input("X")})
                   .set_input("Out@GRAD", {g.out_grad("Out")})
                   .set_output("X@GRAD", {g.in_grad("X")});
  if (attr) op.set_attr(attr, g.fwd().attr<Ints>(attr));
}
void expand_grad_maker(GradContext& g) { repeat_grad_maker(g, "expand_grad", nullptr); }
void tile_grad_maker(GradContext& g) { repeat_grad_maker(g, "tile_grad", "repeat_times"); }

void infer_x_grad(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("X"), ctx.in_dtype("Out@GRAD"));
}

template <typename C>
void expand_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "repeat", kernels::expand_grad, c.in("Out@GRAD"), c.in("X").shape(),
                    c.out("X@GRAD"));
}

template <typename C>
void tile_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "repeat", kernels::tile_grad, c.in("Out@GRAD"), c.in("X").shape(),
                    attr_ref<Ints>(c, "repeat_times"), c.out("X@GRAD"));
}

void register_expand(OpRegistry& r, const char* type, const char* doc) {
  r.add(type)
      .doc(doc)
      .input("X", "any shape and dtype")
      .output("Out", "X broadcast to `shape`, X's dtype")
      .required_attr("shape", AttrType::kInts,
                     "the target dims, aligned with X's last dims; -1 keeps X's dim")
      .infer_shape(infer_expand)
      .bind(kDataDTypes, expand<KernelContext>, expand<EmitContext>)
      .grad(expand_grad_maker);
}

}  // namespace

void register_shape_edit_ops(OpRegistry& r) {
  r.add("flatten")
      .doc(
          "Out = X viewed with dims start_axis..stop_axis merged into one (PaddlePaddle's "
          "flatten_contiguous_range; no copy). A rank-0 X gives [1].")
      .input("X", "any shape and dtype")
      .output("Out", "X's dims with the range merged, X's dtype")
      .attr("start_axis", int64_t{1}, "first merged axis (negative: from the back)")
      .attr("stop_axis", int64_t{-1}, "last merged axis (negative: from the back)")
      .infer_shape(infer_view<flatten_shape_of>)
      .bind(kViewDTypes, flatten<KernelContext>, flatten<EmitContext>)
      .grad(view_grad_maker)
      .moves_values()
      .views_input();

  r.add("squeeze")
      .doc(
          "Out = X viewed without size-1 dims: those `axes` names (named dims of another "
          "size stay), or all of them when `axes` is empty. No copy.")
      .input("X", "any shape and dtype")
      .output("Out", "X's dims without the squeezed ones, X's dtype")
      .attr("axes", Ints{}, "axes to drop if they have size 1 (negative: from the back)")
      .infer_shape(infer_view<squeeze_shape_of>)
      .bind(kViewDTypes, squeeze<KernelContext>, squeeze<EmitContext>)
      .grad(view_grad_maker)
      .moves_values()
      .views_input();

  r.add("unsqueeze")
      .doc(
          "Out = X viewed with a size-1 dim inserted at each of `axes` in turn (each axis "
          "indexes the shape grown by the earlier ones; -1 appends). No copy.")
      .input("X", "any shape and dtype")
      .output("Out", "X's dims with 1s inserted, X's dtype")
      .required_attr("axes", AttrType::kInts, "where to insert the new dims")
      .infer_shape(infer_view<unsqueeze_shape_of>)
      .bind(kViewDTypes, unsqueeze<KernelContext>, unsqueeze<EmitContext>)
      .grad(view_grad_maker)
      .moves_values()
      .views_input();

  register_expand(r, "expand",
                  "Out = X broadcast to `shape` (PaddlePaddle's expand_v2): X aligns with the "
                  "last dims of `shape`; each X dim is 1 (repeated) or equal; -1 keeps X's dim; "
                  "leading new dims must be >= 1.");
  register_expand(r, "broadcast_to",
                  "Out = X broadcast to `shape`; the same rule as expand (-1 keeps X's dim).");

  r.add("expand_grad")
      .doc("X@GRAD = Out@GRAD summed over the dims that expand or broadcast_to repeated X along.")
      .input("X", "the forward X (for its shape)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad)
      .bind(kGradDTypes, expand_grad<KernelContext>, expand_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");

  r.add("tile")
      .doc(
          "Out = X repeated repeat_times[i] times along dim i; the shorter of X's dims and "
          "repeat_times is padded with leading 1s.")
      .input("X", "any shape and dtype")
      .output("Out", "X's dims times repeat_times, X's dtype")
      .required_attr("repeat_times", AttrType::kInts, "copies per dim, each >= 1")
      .infer_shape(infer_tile)
      .bind(kDataDTypes, tile<KernelContext>, tile<EmitContext>)
      .grad(tile_grad_maker);

  r.add("tile_grad")
      .doc("X@GRAD = the sum of Out@GRAD's tiles.")
      .input("X", "the forward X (for its shape)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .required_attr("repeat_times", AttrType::kInts, "as in the forward op")
      .infer_shape(infer_x_grad)
      .bind(kGradDTypes, tile_grad<KernelContext>, tile_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");
}

const OpRegistrar kShapeEditOps(register_shape_edit_ops);

}  // namespace skiff
