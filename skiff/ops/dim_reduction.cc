#include "skiff/ops/dim_reduction.h"

#include <string>

namespace skiff {

Expr reduced_axes_of(const EmitContext& c, const TensorExpr&) {
  const int rank = c.in_rank("X");
  SKIFF_CHECK(rank >= 0, c.op().type, ": X is not declared, so its rank is unknown");
  return {std::to_string(reduced_axes(c.op(), rank)) + "u"};
}

OpBuilder& with_dim_reduction_attrs(OpBuilder& op) {
  return op.output("Out", "X's dtype; X's shape without the reduced dims (1s with keep_dim)")
      .attr("dim", std::vector<int64_t>{}, "dims to reduce; negative ones count from the back")
      .attr("keep_dim", false, "keep reduced dims as size 1")
      .attr("reduce_all", false, "reduce every dim, whatever `dim` says");
}

OpBuilder& with_dim_reduction_grad_slots(OpBuilder& op) {
  return op.input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("dim", std::vector<int64_t>{}, "as in the forward op")
      .attr("keep_dim", false, "as in the forward op")
      .attr("reduce_all", false, "as in the forward op")
      .infer_shape(infer_x_grad_like_x);
}

void set_reduced_output(ShapeContext& ctx, const Shape& x, DType dtype) {
  ctx.set_output("Out",
                 kernels::reduced_shape(x, reduced_axes(ctx, x.rank()), ctx.attr<bool>("keep_dim")),
                 dtype);
}

OpDesc* add_dim_reduction_grad(GradContext& g) {
  if (!g.wants("X")) return nullptr;
  const OpDesc& fwd = g.fwd();
  return &g.add(fwd.type + "_grad")
              .set_input("X", {fwd.first_input("X")})
              .set_input("Out@GRAD", {g.out_grad("Out")})
              .set_output("X@GRAD", {g.in_grad("X")})
              .set_attr("dim", fwd.attr<std::vector<int64_t>>("dim"))
              .set_attr("keep_dim", fwd.attr<bool>("keep_dim"))
              .set_attr("reduce_all", fwd.attr<bool>("reduce_all"));
}

}  // namespace skiff
