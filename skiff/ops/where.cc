// where: elementwise selection by a boolean condition with broadcasting, and its
// grad op.
#include "skiff/kernels/cpu/where.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

void infer_where(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.in_dtype("Condition") == DType::kBool, "where: Condition must be bool, got ",
              dtype_name(ctx.in_dtype("Condition")));
  SKIFF_CHECK(ctx.in_dtype("X") == ctx.in_dtype("Y"), "where: X is ", dtype_name(ctx.in_dtype("X")),
              " but Y is ", dtype_name(ctx.in_dtype("Y")), "; both need the same dtype");
  ctx.set_output(
      "Out", kernels::where_shape(ctx.in_shape("Condition"), ctx.in_shape("X"), ctx.in_shape("Y")),
      ctx.in_dtype("X"));
}

template <typename C>
void where(C& c) {
  SKIFF_KERNEL_CALL(c, "where", kernels::where, c.in("Condition"), c.in("X"), c.in("Y"),
                    c.out("Out"));
}

void where_grad_maker(GradContext& g) {
  if (!g.wants("X") && !g.wants("Y")) return;
  const OpDesc& fwd = g.fwd();
  g.add("where_grad")
      .set_input("Condition", {fwd.first_input("Condition")})
      .set_input("X", {fwd.first_input("X")})
      .set_input("Y", {fwd.first_input("Y")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_output("Y@GRAD", {g.in_grad("Y")});
}

void infer_where_grad(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("X"), ctx.in_dtype("Out@GRAD"));
  ctx.set_output("Y@GRAD", ctx.in_shape("Y"), ctx.in_dtype("Out@GRAD"));
}

template <typename C>
void where_grad(C& c) {
  SKIFF_KERNEL_CALL(c, "where", kernels::where_grad, c.in("Condition"), c.in("Out@GRAD"),
                    c.in("X").shape(), c.in("Y").shape(), c.out("X@GRAD"), c.out("Y@GRAD"));
}

}  // namespace

void register_where_ops(OpRegistry& r) {
  r.add("where")
      .doc("Out = Condition ? X : Y elementwise; the three broadcast together (numpy rule).")
      .input("Condition", "bool, broadcastable with X and Y")
      .input("X", "values where Condition holds; any dtype")
      .input("Y", "values elsewhere; X's dtype")
      .output("Out", "the broadcast shape, X's dtype")
      .infer_shape(infer_where)
      .bind({DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool},
            where<KernelContext>, where<EmitContext>)
      .grad(where_grad_maker);

  r.add("where_grad")
      .doc(
          "X@GRAD = Out@GRAD where Condition holds (else 0) and Y@GRAD the rest, each summed "
          "over the dims its input was broadcast along.")
      .input("Condition", "the forward Condition")
      .input("X", "the forward X (for its shape)")
      .input("Y", "the forward Y (for its shape)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X (\"\" when not needed)")
      .output("Y@GRAD", "gradient of Y (\"\" when not needed)")
      .infer_shape(infer_where_grad)
      .bind({DType::kF32, DType::kF64}, where_grad<KernelContext>, where_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");
}

const OpRegistrar kWhereOps(register_where_ops);

}  // namespace skiff
