// slice (PaddlePaddle semantics: negative starts/ends count from the back, both clamp
// to the dim, decrease_axis drops sliced axes of size 1) and slice_grad.
#include <vector>

#include "skiff/kernels/cpu/slice.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

using Ints = std::vector<int64_t>;

// The box the op's attrs select (a view of them: no copies on the hot path).
kernels::SliceSpec spec_of(const OpDesc& op) {
  return kernels::SliceSpec{op.attr_ref<Ints>("axes"), op.attr_ref<Ints>("starts"),
                            op.attr_ref<Ints>("ends"), op.attr_ref<Ints>("decrease_axis")};
}

void infer_slice(ShapeContext& ctx) {
  ctx.set_output("Out", kernels::slice_shape(ctx.in_shape("Input"), spec_of(ctx.op())),
                 ctx.in_dtype("Input"));
}

std::string spec_literal(const kernels::SliceSpec& s) {
  return "kernels::SliceSpec{" + cpp_literal(s.axes) + ", " + cpp_literal(s.starts) + ", " +
         cpp_literal(s.ends) + ", " + cpp_literal(s.decrease_axis) + "}";
}

template <typename C>
void slice(C& c) {
  SKIFF_KERNEL_CALL(c, "slice", kernels::slice, c.in("Input"),
                    constant(c, spec_of(c.op()), spec_literal), c.out("Out"));
}

void slice_grad_maker(GradContext& g) {
  if (!g.wants("Input")) return;
  const OpDesc& fwd = g.fwd();
  g.add("slice_grad")
      .set_input("Input", {fwd.first_input("Input")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("Input@GRAD", {g.in_grad("Input")})
      .set_attr("axes", fwd.attr<Ints>("axes"))
      .set_attr("starts", fwd.attr<Ints>("starts"))
      .set_attr("ends", fwd.attr<Ints>("ends"))
      .set_attr("decrease_axis", fwd.attr<Ints>("decrease_axis"));
}

void infer_slice_grad(ShapeContext& ctx) {
  ctx.set_output("Input@GRAD", ctx.in_shape("Input"), ctx.in_dtype("Out@GRAD"));
}

template <typename C>
void slice_grad(C& c) {
  if (!c.has_out("Input@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "slice", kernels::slice_grad, c.in("Out@GRAD"), c.in("Input").shape(),
                    constant(c, spec_of(c.op()), spec_literal), c.out("Input@GRAD"));
}

}  // namespace

void register_slice_ops(OpRegistry& r) {
  r.add("slice")
      .doc(
          "Out = Input[starts[i]:ends[i]] along each of `axes`. Negative starts and ends count "
          "from the back; both then clamp to [0, dim], and an end at or before its start "
          "selects nothing. Axes in decrease_axis (each keeping one entry) are dropped.")
      .input("Input", "any shape and dtype")
      .output("Out", "the selected box, Input's dtype")
      .required_attr("axes", AttrType::kInts, "the sliced axes (negative: from the back)")
      .required_attr("starts", AttrType::kInts, "first index per axis")
      .required_attr("ends", AttrType::kInts, "index past the last per axis")
      .attr("decrease_axis", Ints{}, "axes to drop from Out (each must keep one entry)")
      .infer_shape(infer_slice)
      .bind({DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool, DType::kC64,
             DType::kC128},
            slice<KernelContext>, slice<EmitContext>)
      .grad(slice_grad_maker);

  r.add("slice_grad")
      .doc("Input@GRAD = zeros with Out@GRAD written into the sliced box.")
      .input("Input", "the forward Input (for its shape)")
      .input("Out@GRAD", "gradient of Out")
      .output("Input@GRAD", "gradient of Input")
      .required_attr("axes", AttrType::kInts, "as in the forward op")
      .required_attr("starts", AttrType::kInts, "as in the forward op")
      .required_attr("ends", AttrType::kInts, "as in the forward op")
      .attr("decrease_axis", Ints{}, "as in the forward op")
      .infer_shape(infer_slice_grad)
      .bind({DType::kF32, DType::kF64, DType::kC64, DType::kC128}, slice_grad<KernelContext>,
            slice_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");
}

const OpRegistrar kSliceOps(register_slice_ops);

}  // namespace skiff
