// reshape and transpose, and their grad ops.
#include <vector>

#include "skiff/kernels/cpu/reshape.h"
#include "skiff/kernels/cpu/transpose.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

constexpr std::initializer_list<DType> kShapeOpDTypes = {DType::kF32, DType::kF64, DType::kI32,
                                                         DType::kI64, DType::kBool};

// ---- reshape ----

void infer_reshape(ShapeContext& ctx) {
  ctx.set_output(
      "Out", kernels::reshape_shape(ctx.in_shape("X"), ctx.attr_ref<std::vector<int64_t>>("shape")),
      ctx.in_dtype("X"));
}

void reshape_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.in("X");
  kernels::reshape(x,
                   kernels::reshape_shape(x.shape(), ctx.attr_ref<std::vector<int64_t>>("shape")),
                   ctx.out("Out"));
}

void reshape_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("reshape_grad")
      .set_input("X", {g.fwd().first_input("X")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")});
}

void reshape_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  if (!dx) return;
  kernels::reshape(ctx.in("Out@GRAD"), ctx.in("X").shape(), dx);
}

// ---- transpose ----

std::vector<int> permutation_of(const std::vector<int64_t>& axis, int rank) {
  return kernels::transpose_permutation(axis, rank);
}

void infer_transpose(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const auto perm = permutation_of(ctx.attr_ref<std::vector<int64_t>>("axis"), x.rank());
  ctx.set_output("Out", kernels::transposed_shape(x, perm), ctx.in_dtype("X"));
}

void transpose_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.in("X");
  kernels::transpose(x, permutation_of(ctx.attr_ref<std::vector<int64_t>>("axis"), x.rank()),
                     ctx.out("Out"));
}

void transpose_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("transpose_grad")
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_attr("axis", g.fwd().attr<std::vector<int64_t>>("axis"));
}

void infer_transpose_grad(ShapeContext& ctx) {
  const Shape out = ctx.in_shape("Out@GRAD");
  const auto perm = permutation_of(ctx.attr_ref<std::vector<int64_t>>("axis"), out.rank());
  ctx.set_output("X@GRAD", kernels::transposed_shape(out, kernels::inverse_permutation(perm)),
                 ctx.in_dtype("Out@GRAD"));
}

void transpose_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  if (!dx) return;
  const Tensor& dout = ctx.in("Out@GRAD");
  const auto perm = permutation_of(ctx.attr_ref<std::vector<int64_t>>("axis"), dout.rank());
  kernels::transpose(dout, kernels::inverse_permutation(perm), dx);
}

}  // namespace

void register_shape_ops(OpRegistry& r) {
  r.add("reshape")
      .doc(
          "Out = X viewed with a new shape (no copy): in `shape`, 0 copies X's dim at that "
          "index and one -1 is inferred from the element count.")
      .input("X", "any shape")
      .output("Out", "the requested shape, X's dtype")
      .required_attr("shape", AttrType::kInts, "the new dims (0: copy X's, -1: infer one)")
      .infer_shape(infer_reshape)
      .kernel(kShapeOpDTypes, reshape_kernel)
      .grad(reshape_grad_maker);

  r.add("reshape_grad")
      .doc("X@GRAD = Out@GRAD viewed with X's shape.")
      .input("X", "the forward X (for its shape)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad_like_x)
      .kernel(kShapeOpDTypes, reshape_grad_kernel)
      .kernel_dtype_from("Out@GRAD");

  r.add("transpose")
      .doc("Out = X with its axes permuted: Out's axis i is X's axis axis[i].")
      .input("X", "any shape")
      .output("Out", "X's dims permuted, X's dtype")
      .required_attr("axis", AttrType::kInts, "a permutation of X's axes (negative: from the back)")
      .infer_shape(infer_transpose)
      .kernel(kShapeOpDTypes, transpose_kernel)
      .grad(transpose_grad_maker);

  r.add("transpose_grad")
      .doc("X@GRAD = Out@GRAD transposed by the inverse permutation.")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .required_attr("axis", AttrType::kInts, "as in the forward op")
      .infer_shape(infer_transpose_grad)
      .kernel(kShapeOpDTypes, transpose_grad_kernel)
      .kernel_dtype_from("Out@GRAD");
}

}  // namespace skiff
