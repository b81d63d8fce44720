// Values that programs built from Python need as tensors: `shape` (a tensor's dims at
// run time, for dims unknown when the program is built) and tensor_array_to_tensor
// (the entries of a tensor array stacked or concatenated, with its gradient).
#include "skiff/kernels/cpu/reshape.h"
#include "skiff/kernels/cpu/tensor_array.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

constexpr std::initializer_list<DType> kAllDTypes = {DType::kF32, DType::kF64,  DType::kI32,
                                                     DType::kI64, DType::kBool, DType::kBF16};

// ---- shape ----

void infer_shape_op(ShapeContext& ctx) {
  ctx.set_output("Out", Shape{ctx.in_shape("X").rank()}, DType::kI64);
}

template <typename C>
void shape(C& c) {
  SKIFF_KERNEL_CALL(c, "reshape", kernels::shape_of, c.in("X"), c.out("Out"));
}

// ---- tensor_array_to_tensor ----

const TensorArray& entries_of(const Variable* v) {
  SKIFF_CHECK(v && (v->is_array() || v->empty()), "X must hold a tensor array");
  static const TensorArray kEmpty;
  return v->is_array() ? *v->array() : kEmpty;
}

void infer_array_to_tensor(ShapeContext& ctx) {
  const VarDesc& x = ctx.in_var("X");
  SKIFF_CHECK(x.kind == VarKind::kTensorArray, "X '", x.name, "' must be a tensor array, it is a ",
              var_kind_name(x.kind));
  const int64_t axis = ctx.attr<int64_t>("axis");
  const bool stack = ctx.attr<bool>("use_stack");
  Shape out = x.shape;
  const int64_t rank = out.rank() + (stack ? 1 : 0);
  SKIFF_CHECK(axis >= -rank && axis < rank, "axis ", axis, " is out of range for rank ", rank);
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (stack) {
    Shape s;
    for (int64_t d = 0; d < rank; ++d) s.push_back(d == a ? -1 : out[d < a ? d : d - 1]);
    out = s;
  } else {
    out[a] = -1;  // the entry count is known at run time only
  }
  ctx.set_output("Out", out, x.dtype);
}

void array_to_tensor_kernel(KernelContext& ctx) {
  kernels::array_to_tensor(entries_of(ctx.in_var("X")), ctx.attr<int64_t>("axis"),
                           ctx.attr<bool>("use_stack"), ctx.out("Out"));
}

void infer_array_to_tensor_grad(ShapeContext& ctx) {
  const VarDesc& x = ctx.in_var("X");
  ctx.set_output("X@GRAD", x.shape, x.dtype, 0, VarKind::kTensorArray);
}

void array_to_tensor_grad_kernel(KernelContext& ctx) {
  Variable* x_grad = ctx.out_var("X@GRAD");
  if (!x_grad) return;
  kernels::array_to_tensor_grad(entries_of(ctx.in_var("X")), ctx.in("Out@GRAD"),
                                ctx.attr<int64_t>("axis"), ctx.attr<bool>("use_stack"),
                                x_grad->mutable_array());
}

void array_to_tensor_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  OpDesc& op = g.add("tensor_array_to_tensor_grad");
  op.set_input("X", {g.fwd().first_input("X")});
  op.set_input("Out@GRAD", {g.out_grad("Out")});
  op.set_output("X@GRAD", {g.in_grad("X")});
  op.set_attr("axis", g.fwd().attr<int64_t>("axis"));
  op.set_attr("use_stack", g.fwd().attr<bool>("use_stack"));
}

}  // namespace

void register_array_convert_ops(OpRegistry& r) {
  r.add("shape")
      .doc("Out = the dims of X as an int64 vector (for dims known only at run time).")
      .input("X", "any shape and dtype")
      .output("Out", "int64 [rank of X]")
      .infer_shape(infer_shape_op)
      .bind({DType::kI64}, shape<KernelContext>, shape<EmitContext>);

  r.add("tensor_array_to_tensor")
      .doc(
          "Out = the entries of the tensor array X stacked along a new axis (use_stack) or "
          "concatenated along an existing one.")
      .input("X", "a tensor array of entries of one dtype (and shape, to stack)")
      .output("Out", "the joined tensor")
      .attr("axis", int64_t{0}, "the joining axis (negative: from the back of Out)")
      .attr("use_stack", false, "stack along a new axis instead of concatenating")
      .infer_shape(infer_array_to_tensor)
      .kernel(kAllDTypes, array_to_tensor_kernel)
      .grad(array_to_tensor_grad_maker);

  r.add("tensor_array_to_tensor_grad")
      .doc("X@GRAD = Out@GRAD cut back into one entry per entry of X.")
      .input("X", "the forward op's X")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "the array of entry gradients")
      .attr("axis", int64_t{0}, "the forward op's axis")
      .attr("use_stack", false, "the forward op's use_stack")
      .infer_shape(infer_array_to_tensor_grad)
      .kernel({DType::kF32, DType::kF64}, array_to_tensor_grad_kernel);
}

const OpRegistrar kArrayConvertOps(register_array_convert_ops);

}  // namespace skiff
