// What the reductions over a list of dims share (reduce_sum and reduce_mean in reduce.cc,
// reduce_max, reduce_min and reduce_prod in reduce_extreme.cc): the dim / keep_dim /
// reduce_all attrs, Out's shape, and the grad op that reads X and Out@GRAD.
//
//   with_dim_reduction_attrs(r.add("reduce_sum").doc(...).input("X", "..."))
//       .infer_shape(infer_reduce_sum)
//       .bind(dtypes, reduce_sum<KernelContext>, reduce_sum<EmitContext>)
//       .grad(reduce_sum_grad_maker);   // calls add_dim_reduction_grad(g)
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/kernels/cpu/reduce.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

// The reduced axes (a bit mask) of a rank-`rank` input under the op's dim / reduce_all
// attrs; Ctx is a ShapeContext or a KernelContext.
template <typename Ctx>
uint32_t reduced_axes(const Ctx& ctx, int rank) {
  return kernels::reduce_axes(rank, ctx.template attr_ref<std::vector<int64_t>>("dim"),
                              ctx.template attr<bool>("reduce_all"));
}

// The reduced axes of a binding's input `x` (slot X): from its rank at run time; compiled,
// a literal from X's declared rank.
inline uint32_t reduced_axes_of(const KernelContext& c, const Tensor& x) {
  return reduced_axes(c, x.rank());
}
Expr reduced_axes_of(const EmitContext& c, const TensorExpr& x);

// Declares a forward reduction's Out and its dim, keep_dim and reduce_all attrs.
OpBuilder& with_dim_reduction_attrs(OpBuilder& op);

// Declares a reduction grad op's Out@GRAD, X@GRAD (shaped like X), the forward attrs and
// its shape inference; the caller declares X first.
OpBuilder& with_dim_reduction_grad_slots(OpBuilder& op);

// Declares Out: `dtype`, X's shape `x` reduced under the op's attrs.
void set_reduced_output(ShapeContext& ctx, const Shape& x, DType dtype);

// Appends "<forward type>_grad" with X, Out@GRAD, X@GRAD and the forward attrs;
// nullptr when X needs no gradient.
OpDesc* add_dim_reduction_grad(GradContext& g);

}  // namespace skiff
