// reshape and transpose, and their grad ops.
#include <vector>

#include "skiff/kernels/cpu/reshape.h"
#include "skiff/kernels/cpu/transpose.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"
#include "skiff/ops/view_dtypes.h"

namespace skiff {

namespace {

using Ints = std::vector<int64_t>;

// ---- reshape ----

void infer_reshape(ShapeContext& ctx) {
  ctx.set_output(
      "Out", kernels::reshape_shape(ctx.in_shape("X"), ctx.attr_ref<std::vector<int64_t>>("shape")),
      ctx.in_dtype("X"));
}

template <typename C>
void reshape(C& c) {
  const auto& x = c.in("X");
  SKIFF_KERNEL_CALL(
      c, "reshape", kernels::reshape, x,
      SKIFF_KERNEL_VALUE(c, kernels::reshape_shape, x.shape(), attr_ref<Ints>(c, "shape")),
      c.out("Out"));
}

void reshape_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("reshape_grad")
      .set_input("X", {g.fwd().first_input("X")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")});
}

template <typename C>
void reshape_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "reshape", kernels::reshape, c.in("Out@GRAD"), c.in("X").shape(),
                    c.out("X@GRAD"));
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

template <typename C>
void transpose(C& c) {
  const auto& x = c.in("X");
  SKIFF_KERNEL_CALL(
      c, "transpose", kernels::transpose, x,
      SKIFF_KERNEL_VALUE(c, kernels::transpose_permutation, attr_ref<Ints>(c, "axis"), x.rank()),
      c.out("Out"));
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

template <typename C>
void transpose_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  const auto& dout = c.in("Out@GRAD");
  SKIFF_KERNEL_CALL(c, "transpose", kernels::transpose, dout,
                    SKIFF_KERNEL_VALUE(c, kernels::inverse_permutation,
                                       SKIFF_KERNEL_VALUE(c, kernels::transpose_permutation,
                                                          attr_ref<Ints>(c, "axis"), dout.rank())),
                    c.out("X@GRAD"));
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
      .bind(kViewDTypes, reshape<KernelContext>, reshape<EmitContext>)
      .grad(reshape_grad_maker)
      .moves_values()
      .views_input();

  r.add("reshape_grad")
      .doc("X@GRAD = Out@GRAD viewed with X's shape.")
      .input("X", "the forward X (for its shape)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad_like_x)
      .bind(kViewDTypes, reshape_grad<KernelContext>, reshape_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");

  r.add("transpose")
      .doc("Out = X with its axes permuted: Out's axis i is X's axis axis[i].")
      .input("X", "any shape")
      .output("Out", "X's dims permuted, X's dtype")
      .required_attr("axis", AttrType::kInts, "a permutation of X's axes (negative: from the back)")
      .infer_shape(infer_transpose)
      .bind(kViewDTypes, transpose<KernelContext>, transpose<EmitContext>)
      .grad(transpose_grad_maker)
      .moves_values();

  r.add("transpose_grad")
      .doc("X@GRAD = Out@GRAD transposed by the inverse permutation.")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .required_attr("axis", AttrType::kInts, "as in the forward op")
      .infer_shape(infer_transpose_grad)
      .bind(kViewDTypes, transpose_grad<KernelContext>, transpose_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");
}

const OpRegistrar kShapeOps(register_shape_ops);

}  // namespace skiff
