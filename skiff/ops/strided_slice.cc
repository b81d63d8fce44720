// strided_slice (x[a:b:s] along several axes) and set_value (x[a:b:s, i] = v, the op
// behind index assignment), with their grad ops.
#include <vector>

#include "skiff/kernels/cpu/strided_slice.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

using Ints = std::vector<int64_t>;

constexpr std::initializer_list<DType> kAll = {DType::kF32,  DType::kF64, DType::kI32, DType::kI64,
                                               DType::kBool, DType::kC64, DType::kC128};

// The op's StridedSpec over its box attrs (`steps` and `decrease` name the attrs that
// differ between strided_slice and set_value): a view of the attrs, or its expression.
template <typename C>
auto strided_spec(const C& c, const char* steps, const char* decrease) {
  return SKIFF_KERNEL_STRUCT(c, kernels::StridedSpec, attr_ref<Ints>(c, "axes"),
                             attr_ref<Ints>(c, "starts"), attr_ref<Ints>(c, "ends"),
                             attr_ref<Ints>(c, steps), attr_ref<Ints>(c, decrease));
}

kernels::StridedSpec slice_spec(const OpDesc& op) {
  return kernels::StridedSpec{op.attr_ref<Ints>("axes"), op.attr_ref<Ints>("starts"),
                              op.attr_ref<Ints>("ends"), op.attr_ref<Ints>("strides"),
                              op.attr_ref<Ints>("decrease_axis")};
}

kernels::StridedSpec set_spec(const OpDesc& op) {
  return kernels::StridedSpec{op.attr_ref<Ints>("axes"), op.attr_ref<Ints>("starts"),
                              op.attr_ref<Ints>("ends"), op.attr_ref<Ints>("steps"),
                              op.attr_ref<Ints>("decrease_axes")};
}

// Copies the box attrs of the forward op onto its grad op.
void copy_attrs(const OpDesc& fwd, OpDesc& op, std::initializer_list<const char*> names) {
  for (const char* name : names) op.set_attr(name, fwd.attr<Ints>(name));
}

// ---- strided_slice ----

void infer_strided_slice(ShapeContext& ctx) {
  ctx.set_output("Out", kernels::strided_slice_shape(ctx.in_shape("Input"), slice_spec(ctx.op())),
                 ctx.in_dtype("Input"));
}

template <typename C>
void strided_slice(C& c) {
  SKIFF_KERNEL_CALL(c, "strided_slice", kernels::strided_slice, c.in("Input"),
                    strided_spec(c, "strides", "decrease_axis"), c.out("Out"));
}

void strided_slice_grad_maker(GradContext& g) {
  if (!g.wants("Input")) return;
  OpDesc& op = g.add("strided_slice_grad")
                   .set_input("Input", {g.fwd().first_input("Input")})
                   .set_input("Out@GRAD", {g.out_grad("Out")})
                   .set_output("Input@GRAD", {g.in_grad("Input")});
  copy_attrs(g.fwd(), op, {"axes", "starts", "ends", "strides", "decrease_axis"});
}

void infer_strided_slice_grad(ShapeContext& ctx) {
  ctx.set_output("Input@GRAD", ctx.in_shape("Input"), ctx.in_dtype("Out@GRAD"));
}

template <typename C>
void strided_slice_grad(C& c) {
  if (!c.has_out("Input@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "strided_slice", kernels::strided_slice_grad, c.in("Out@GRAD"),
                    c.in("Input").shape(), strided_spec(c, "strides", "decrease_axis"),
                    c.out("Input@GRAD"));
}

void register_strided_slice(OpRegistry& r) {
  r.add("strided_slice")
      .doc(
          "Out = Input[starts[i]:ends[i]:strides[i]] along each of `axes`, with Python's slice "
          "rules: negative starts and ends count from the back, then clamp; a negative stride "
          "walks backwards (an end below -dim reaches the first element). Axes in "
          "decrease_axis (each keeping one entry) are dropped.")
      .input("Input", "any shape and dtype (but bfloat16)")
      .output("Out", "the selected elements, Input's dtype")
      .required_attr("axes", AttrType::kInts, "the sliced axes (negative: from the back)")
      .required_attr("starts", AttrType::kInts, "first index per axis")
      .required_attr("ends", AttrType::kInts, "index past the last per axis")
      .required_attr("strides", AttrType::kInts, "step per axis, non-zero")
      .attr("decrease_axis", Ints{}, "axes to drop from Out (each must keep one entry)")
      .infer_shape(infer_strided_slice)
      .bind(kAll, strided_slice<KernelContext>, strided_slice<EmitContext>)
      .grad(strided_slice_grad_maker);
  r.add("strided_slice_grad")
      .doc("Input@GRAD = zeros with Out@GRAD written into the selected elements.")
      .input("Input", "the forward Input (for its shape)")
      .input("Out@GRAD", "gradient of Out")
      .output("Input@GRAD", "gradient of Input")
      .required_attr("axes", AttrType::kInts, "as in the forward op")
      .required_attr("starts", AttrType::kInts, "as in the forward op")
      .required_attr("ends", AttrType::kInts, "as in the forward op")
      .required_attr("strides", AttrType::kInts, "as in the forward op")
      .attr("decrease_axis", Ints{}, "as in the forward op")
      .infer_shape(infer_strided_slice_grad)
      .bind({DType::kF32, DType::kF64, DType::kC64, DType::kC128},
            strided_slice_grad<KernelContext>, strided_slice_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");
}

// ---- set_value ----

void infer_set_value(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("Input");
  SKIFF_CHECK(ctx.in_dtype("ValueTensor") == ctx.in_dtype("Input"), "set_value: ValueTensor is ",
              dtype_name(ctx.in_dtype("ValueTensor")), " but Input is ",
              dtype_name(ctx.in_dtype("Input")));
  kernels::strided_slice_shape(x, set_spec(ctx.op()));  // checks the attrs
  ctx.set_output("Out", x, ctx.in_dtype("Input"));
}

template <typename C>
void set_value(C& c) {
  SKIFF_KERNEL_CALL(c, "strided_slice", kernels::set_strided, c.in("Input"), c.in("ValueTensor"),
                    strided_spec(c, "steps", "decrease_axes"), c.out("Out"));
}

void set_value_grad_maker(GradContext& g) {
  if (!g.wants("Input") && !g.wants("ValueTensor")) return;
  OpDesc& op = g.add("set_value_grad")
                   .set_input("ValueTensor", {g.fwd().first_input("ValueTensor")})
                   .set_input("Out@GRAD", {g.out_grad("Out")})
                   .set_output("Input@GRAD", {g.in_grad("Input")})
                   .set_output("ValueTensor@GRAD", {g.in_grad("ValueTensor")});
  copy_attrs(g.fwd(), op, {"axes", "starts", "ends", "steps", "decrease_axes"});
}

void infer_set_value_grad(ShapeContext& ctx) {
  ctx.set_output("Input@GRAD", ctx.in_shape("Out@GRAD"), ctx.in_dtype("Out@GRAD"));
  ctx.set_output("ValueTensor@GRAD", ctx.in_shape("ValueTensor"), ctx.in_dtype("Out@GRAD"));
}

template <typename C>
void set_value_grad(C& c) {
  SKIFF_KERNEL_CALL(c, "strided_slice", kernels::set_strided_grad, c.in("Out@GRAD"),
                    c.in("ValueTensor").shape(), strided_spec(c, "steps", "decrease_axes"),
                    c.out("Input@GRAD"), c.out("ValueTensor@GRAD"));
}

void register_set_value(OpRegistry& r) {
  r.add("set_value")
      .doc(
          "Out = Input with the elements Input[starts[i]:ends[i]:steps[i]] (along each of "
          "`axes`, Python's slice rules as in strided_slice) set to ValueTensor broadcast to "
          "their shape (decrease_axes dropped). Out may name Input (x[...] = v in place).")
      .input("Input", "any shape and dtype (but bfloat16)")
      .input("ValueTensor", "Input's dtype; broadcastable to the selected box")
      .output("Out", "Input's shape and dtype")
      .required_attr("axes", AttrType::kInts, "the indexed axes (negative: from the back)")
      .required_attr("starts", AttrType::kInts, "first index per axis")
      .required_attr("ends", AttrType::kInts, "index past the last per axis")
      .required_attr("steps", AttrType::kInts, "step per axis, non-zero")
      .attr("decrease_axes", Ints{}, "axes indexed by an integer (each selects one entry)")
      .infer_shape(infer_set_value)
      .bind(kAll, set_value<KernelContext>, set_value<EmitContext>)
      .grad(set_value_grad_maker);
  r.add("set_value_grad")
      .doc(
          "Input@GRAD = Out@GRAD with the set elements zeroed; ValueTensor@GRAD = Out@GRAD "
          "over the set elements summed down to ValueTensor's shape.")
      .input("ValueTensor", "the forward ValueTensor (for its shape)")
      .input("Out@GRAD", "gradient of Out")
      .output("Input@GRAD", "gradient of Input (\"\" when not needed)")
      .output("ValueTensor@GRAD", "gradient of ValueTensor (\"\" when not needed)")
      .required_attr("axes", AttrType::kInts, "as in the forward op")
      .required_attr("starts", AttrType::kInts, "as in the forward op")
      .required_attr("ends", AttrType::kInts, "as in the forward op")
      .required_attr("steps", AttrType::kInts, "as in the forward op")
      .attr("decrease_axes", Ints{}, "as in the forward op")
      .infer_shape(infer_set_value_grad)
      .bind({DType::kF32, DType::kF64}, set_value_grad<KernelContext>, set_value_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");
}

}  // namespace

void register_strided_slice_ops(OpRegistry& r) {
  register_strided_slice(r);
  register_set_value(r);
}

const OpRegistrar kStridedSliceOps(register_strided_slice_ops);

}  // namespace skiff
