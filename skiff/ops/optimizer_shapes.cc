#include "skiff/ops/optimizer_shapes.h"

namespace skiff::optimizer_shapes {

void check_like_param(ShapeContext& ctx, const char* slot) {
  const VarDesc& p = ctx.in_var("Param");
  const VarDesc& v = ctx.in_var(slot);
  SKIFF_CHECK(shapes_compatible(p.shape, v.shape) && p.dtype == v.dtype, slot, " ('", v.name, "', ",
              dtype_name(v.dtype), v.shape, ") does not match Param ('", p.name, "', ",
              dtype_name(p.dtype), p.shape, ")");
}

void check_one_element(ShapeContext& ctx, const char* slot) {
  const VarDesc& v = ctx.in_var(slot);
  SKIFF_CHECK(is_floating(v.dtype) && (!v.shape.known() || v.shape.numel() == 1), slot, " ('",
              v.name, "') must be a one-element floating tensor, got ", dtype_name(v.dtype),
              v.shape);
}

// A sparse gradient (selected rows) has its own row count: only dtypes must agree.
void check_grad(ShapeContext& ctx, bool sparse_ok) {
  const VarDesc& g = ctx.in_var("Grad");
  if (g.kind == VarKind::kSelectedRows) {
    SKIFF_CHECK(sparse_ok, "Grad ('", g.name, "') holds selected rows; ", ctx.op().type,
                " takes a dense gradient (sgd, adam and adamw take sparse ones)");
    SKIFF_CHECK(g.dtype == ctx.in_dtype("Param"), "Grad ('", g.name, "') is ", dtype_name(g.dtype),
                ", Param is ", dtype_name(ctx.in_dtype("Param")));
  } else {
    check_like_param(ctx, "Grad");
  }
}

void set_like(ShapeContext& ctx, const char* out_slot, const char* in_slot) {
  ctx.set_output(out_slot, ctx.in_shape(in_slot), ctx.in_dtype(in_slot));
}

}  // namespace skiff::optimizer_shapes
