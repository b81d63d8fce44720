// If/else selection (select_input) and tensor arrays (write_to_array,
// read_from_array, array_length) with their gradients. Array kernels accept an array
// variable that holds nothing yet (an array of length 0).
#include <algorithm>

#include "skiff/kernels/cpu/copy.h"
#include "skiff/kernels/cpu/tensor_array.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// The array a variable holds; an empty array for a variable holding nothing.
const TensorArray& array_of(const Variable* v, const char* slot) {
  static const TensorArray kEmpty;
  if (!v || v->empty() || (v->is_tensor() && !v->tensor()->initialized())) return kEmpty;
  SKIFF_CHECK(v->is_array(), slot, " must hold a tensor array, not a dense tensor");
  return *v->array();
}

TensorArray* mutable_array_of(Variable* v, const char* slot) {
  SKIFF_CHECK(!(v->is_tensor() && v->tensor()->initialized()) && !v->is_selected_rows(), slot,
              " must hold a tensor array, not a dense tensor");
  return v->mutable_array();
}

void check_array_var(const ShapeContext& ctx, const char* slot) {
  const VarDesc& v = ctx.in_var(slot);
  SKIFF_CHECK(v.kind == VarKind::kTensorArray, slot, " '", v.name,
              "' must be declared as a tensor array, it is a ", var_kind_name(v.kind));
}

// ---- select_input ----

int64_t mask_index(const Tensor& mask, int count) {
  SKIFF_CHECK(mask.numel() == 1 && mask.dtype() != DType::kF32 && mask.dtype() != DType::kF64,
              "Mask must be one bool or integer element, got ", mask.type_str());
  int64_t k = mask.item<int64_t>();
  SKIFF_CHECK(k >= 0 && k < count, "Mask is ", k, " but X has ", count, " inputs (valid: 0 to ",
              count - 1, ")");
  return k;
}

void infer_select_input(ShapeContext& ctx) {
  VarDesc out = ctx.in_var("X", 0);
  for (int i = 1; i < ctx.in_count("X"); ++i) {
    const VarDesc& x = ctx.in_var("X", i);
    SKIFF_CHECK(x.dtype == out.dtype && x.kind == out.kind, "select_input: X[", i, "] is ",
                var_kind_name(x.kind), " ", dtype_name(x.dtype), " but X[0] is ",
                var_kind_name(out.kind), " ", dtype_name(out.dtype));
    if (out.kind != VarKind::kDenseTensor) continue;
    SKIFF_CHECK(x.shape.rank() == out.shape.rank(), "select_input: X[", i, "] has shape ", x.shape,
                " but X[0] has ", out.shape);
    for (int d = 0; d < out.shape.rank(); ++d)
      if (x.shape[d] != out.shape[d]) out.shape[d] = -1;
  }
  ctx.set_output("Out", out.shape, out.dtype, 0, out.kind);
}

void select_input_kernel(KernelContext& ctx) {
  int64_t k = mask_index(ctx.in("Mask"), ctx.in_count("X"));
  const Variable* src = ctx.in_var("X", static_cast<int>(k));
  SKIFF_CHECK(src && !src->empty(), "X[", k, "], selected by Mask, has no value");
  kernels::copy_variable(*src, ctx.out_var("Out"));
}

void infer_select_input_grad(ShapeContext& ctx) {
  const VarDesc& g = ctx.in_var("Out@GRAD");
  for (int i = 0; i < ctx.out_count("X@GRAD"); ++i)
    ctx.set_output("X@GRAD", g.shape, g.dtype, i, g.kind);
}

void select_input_grad_kernel(KernelContext& ctx) {
  const int count = ctx.out_count("X@GRAD");
  const int k = static_cast<int>(mask_index(ctx.in("Mask"), count));
  const Variable* g = ctx.in_var("Out@GRAD");
  SKIFF_CHECK(g && !g->empty(), "Out@GRAD has no value");
  if (Variable* selected = ctx.out_var("X@GRAD", k)) kernels::copy_variable(*g, selected);
  for (int i = 0; i < count; ++i) {
    Variable* other = ctx.out_var("X@GRAD", i);
    if (i != k && other && other != g) other->clear();
  }
}

void select_input_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("select_input_grad")
      .set_input("Mask", {g.fwd().first_input("Mask")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", g.in_grads("X"));
}

// ---- write_to_array ----

void infer_write_to_array(ShapeContext& ctx) {
  ctx.set_output("Out", ctx.in_shape("X"), ctx.in_dtype("X"), 0, VarKind::kTensorArray);
}

void write_to_array_kernel(KernelContext& ctx) {
  kernels::write_to_array(ctx.in("X"), ctx.in("I"), mutable_array_of(ctx.out_var("Out"), "Out"));
}

void infer_write_to_array_grad(ShapeContext& ctx) {
  const VarDesc& x = ctx.in_var("X");
  ctx.set_output("X@GRAD", x.shape, x.dtype);
  ctx.set_output("Array@GRAD", x.shape, x.dtype, 0, VarKind::kTensorArray);
}

void write_to_array_grad_kernel(KernelContext& ctx) {
  const Variable* grad_var = ctx.in_var("Out@GRAD");
  const TensorArray& grads = array_of(grad_var, "Out@GRAD");
  Variable* back = ctx.out_var("Array@GRAD");
  TensorArray* array_grad = nullptr;
  if (back && back == grad_var) {
    // Array@GRAD names Out@GRAD: its entry is cleared in place (when it holds an array).
    if (back->is_array()) array_grad = back->mutable_array();
  } else if (back) {
    array_grad = mutable_array_of(back, "Array@GRAD");
  }
  kernels::write_to_array_grad(ctx.in("X"), ctx.in("I"), grads, ctx.out("X@GRAD"), array_grad);
}

void write_to_array_grad_maker(GradContext& g) {
  g.add("write_to_array_grad")
      .set_input("X", {g.fwd().first_input("X")})
      .set_input("I", {g.fwd().first_input("I")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_output("Array@GRAD", {g.out_grad("Out")});
}

// ---- read_from_array ----

void infer_read_from_array(ShapeContext& ctx) {
  check_array_var(ctx, "X");
  ctx.set_output("Out", ctx.in_shape("X"), ctx.in_dtype("X"));
}

void read_from_array_kernel(KernelContext& ctx) {
  kernels::read_from_array(array_of(ctx.in_var("X"), "X"), ctx.in("I"), ctx.out("Out"));
}

void infer_read_from_array_grad(ShapeContext& ctx) {
  const VarDesc& x = ctx.in_var("X");
  ctx.set_output("X@GRAD", x.shape, x.dtype, 0, VarKind::kTensorArray);
}

void read_from_array_grad_kernel(KernelContext& ctx) {
  Variable* x_grad = ctx.out_var("X@GRAD");
  if (!x_grad) return;
  kernels::read_from_array_grad(array_of(ctx.in_var("X"), "X"), ctx.in("I"), ctx.in("Out@GRAD"),
                                mutable_array_of(x_grad, "X@GRAD"));
}

void read_from_array_grad_maker(GradContext& g) {
  std::string x_grad = g.in_grad("X");
  if (x_grad.empty()) return;
  g.add("read_from_array_grad")
      .set_input("X", {g.fwd().first_input("X")})
      .set_input("I", {g.fwd().first_input("I")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {x_grad});
}

// ---- array_length ----

void infer_array_length(ShapeContext& ctx) {
  check_array_var(ctx, "X");
  ctx.set_output("Out", Shape{1}, DType::kI64);
}

void array_length_kernel(KernelContext& ctx) {
  kernels::array_length(array_of(ctx.in_var("X"), "X"), ctx.out("Out"));
}

}  // namespace

void register_array_ops(OpRegistry& r) {
  r.add("select_input")
      .doc(
          "Out = a copy of X[Mask] (Mask false/0 picks X[0], true/1 picks X[1]); joins "
          "the branches of if/else.")
      .inputs("X", "the candidates (tensors or tensor arrays)")
      .input("Mask", "bool or integer scalar: the index of the candidate")
      .output("Out", "a copy of the selected candidate")
      .infer_shape(infer_select_input)
      .kernel(kDataDTypes, select_input_kernel)
      .grad(select_input_grad_maker);

  r.add("select_input_grad")
      .doc("X@GRAD[Mask] = Out@GRAD; the other X@GRAD are cleared (no gradient).")
      .input("Mask", "the forward op's Mask")
      .input("Out@GRAD", "gradient of Out")
      .outputs("X@GRAD", "gradients of X (\"\" where not needed)")
      .infer_shape(infer_select_input_grad)
      .kernel(kDataDTypes, select_input_grad_kernel)
      .kernel_dtype_from("Out@GRAD");

  r.add("write_to_array")
      .doc(
          "Out[I] = a copy of X; the array grows to length I + 1 if shorter and keeps "
          "its other entries.")
      .input("X", "the tensor to store")
      .input("I", "int64 scalar index")
      .output("Out", "the tensor array (written in place)")
      .infer_shape(infer_write_to_array)
      .kernel(kDataDTypes, write_to_array_kernel)
      .kernel_dtype_from("X")
      .grad(write_to_array_grad_maker);

  r.add("write_to_array_grad")
      .doc(
          "X@GRAD = entry I of the array gradient (zeros if it has none); that entry is "
          "then cleared in Array@GRAD, which names the array gradient itself.")
      .input("X", "the forward op's X")
      .input("I", "the forward op's I")
      .input("Out@GRAD", "gradient of the array")
      .output("X@GRAD", "gradient of X")
      .output("Array@GRAD", "the array gradient with entry I cleared (names Out@GRAD)")
      .infer_shape(infer_write_to_array_grad)
      .kernel({DType::kF32, DType::kF64}, write_to_array_grad_kernel)
      .kernel_dtype_from("X");

  r.add("read_from_array")
      .doc("Out = a copy of entry I of the tensor array X.")
      .input("X", "the tensor array")
      .input("I", "int64 scalar index, 0 <= I < length")
      .output("Out", "the entry")
      .infer_shape(infer_read_from_array)
      .kernel(kDataDTypes, read_from_array_kernel)
      .grad(read_from_array_grad_maker);

  r.add("read_from_array_grad")
      .doc("X@GRAD = an array as long as X with only entry I set (to Out@GRAD).")
      .input("X", "the forward op's X (gives the length)")
      .input("I", "the forward op's I")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of the array")
      .infer_shape(infer_read_from_array_grad)
      .kernel({DType::kF32, DType::kF64}, read_from_array_grad_kernel)
      .kernel_dtype_from("Out@GRAD");

  r.add("array_length")
      .doc("Out = the number of entries of the tensor array X (int64, shape [1]).")
      .input("X", "the tensor array")
      .output("Out", "int64 [1]")
      .infer_shape(infer_array_length)
      .kernel({DType::kI64}, array_length_kernel);
}

const OpRegistrar kArrayOps(register_array_ops);

}  // namespace skiff
