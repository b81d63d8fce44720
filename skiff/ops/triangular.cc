// tril_triu: the lower or upper triangle of the matrices in the last two dims. Its
// gradient is tril_triu of Out@GRAD with the same attrs.
#include "skiff/kernels/cpu/triangular.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

void infer_tril_triu(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  SKIFF_CHECK(x.rank() >= 2, "tril_triu: X must have at least 2 dims, got ", x);
  SKIFF_CHECK(ctx.in_dtype("X") != DType::kBF16, "tril_triu: X must not be bfloat16");
  ctx.set_output("Out", x, ctx.in_dtype("X"));
}

template <typename C>
void tril_triu(C& c) {
  SKIFF_KERNEL_CALL(c, "triangular", kernels::triangle, c.in("X"), attr<int64_t>(c, "diagonal"),
                    attr<bool>(c, "lower"), c.out("Out"));
}

void tril_triu_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("tril_triu")
      .set_input("X", {g.out_grad("Out")})
      .set_output("Out", {g.in_grad("X")})
      .set_attr("diagonal", g.fwd().attr<int64_t>("diagonal"))
      .set_attr("lower", g.fwd().attr<bool>("lower"));
}

}  // namespace

void register_triangular_ops(OpRegistry& r) {
  r.add("tril_triu")
      .doc(
          "Out = X with each matrix (last two dims) zeroed outside its lower triangle "
          "(column - row <= diagonal) or, with lower false, its upper triangle (column - row "
          ">= diagonal).")
      .input("X", "rank >= 2; any dtype but bfloat16")
      .output("Out", "X's shape and dtype")
      .attr("diagonal", int64_t{0},
            "which diagonal bounds the triangle: 0 the main one, > 0 "
            "above it, < 0 below it")
      .attr("lower", true, "keep the lower triangle (tril), else the upper one (triu)")
      .infer_shape(infer_tril_triu)
      .bind({DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool},
            tril_triu<KernelContext>, tril_triu<EmitContext>)
      .grad(tril_triu_grad_maker);
}

const OpRegistrar kTriangularOps(register_triangular_ops);

}  // namespace skiff
