// matmul (numpy / PaddlePaddle matmul_v2 semantics) and its grad op.
#include "skiff/kernels/cpu/matmul.h"

#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// Out's dtype: the out_dtype attr, or X's when it is empty.
DType out_dtype(const std::string& requested, DType x) {
  return requested.empty() ? x : dtype_from_name(requested);
}

void infer_matmul(ShapeContext& ctx) {
  const DType x = ctx.in_dtype("X"), y = ctx.in_dtype("Y");
  const DType out = out_dtype(ctx.attr<std::string>("out_dtype"), x);
  SKIFF_CHECK(is_floating(x) && x == y,
              "matmul: X and Y must both be float32, both float64 or both bfloat16, got ",
              dtype_name(x), ctx.in_shape("X"), " and ", dtype_name(y), ctx.in_shape("Y"));
  kernels::check_matmul_dtypes(x, y, out);
  ctx.set_output("Out",
                 kernels::matmul_shape(ctx.in_shape("X"), ctx.in_shape("Y"),
                                       ctx.attr<bool>("trans_x"), ctx.attr<bool>("trans_y")),
                 out);
}

DType out_dtype_of(const KernelContext& c, const Tensor& x) {
  return out_dtype(c.attr_ref<std::string>("out_dtype"), x.dtype());
}
Expr out_dtype_of(const EmitContext& c, const TensorExpr& x) {
  const std::string& requested = c.op().attr_ref<std::string>("out_dtype");
  return requested.empty() ? x.dtype() : Expr{dtype_literal(dtype_from_name(requested))};
}

template <typename C>
void matmul(C& c) {
  const auto& x = c.in("X");
  SKIFF_KERNEL_CALL(c, "matmul", kernels::matmul, x, c.in("Y"), attr<bool>(c, "trans_x"),
                    attr<bool>(c, "trans_y"), out_dtype_of(c, x), c.out("Out"));
}

void matmul_grad_maker(GradContext& g) {
  if (!g.wants("X") && !g.wants("Y")) return;
  const OpDesc& fwd = g.fwd();
  g.add("matmul_grad")
      .set_input("X", {fwd.first_input("X")})
      .set_input("Y", {fwd.first_input("Y")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_output("Y@GRAD", {g.in_grad("Y")})
      .set_attr("trans_x", fwd.attr<bool>("trans_x"))
      .set_attr("trans_y", fwd.attr<bool>("trans_y"));
}

template <typename C>
void matmul_grad(C& c) {
  if (!c.has_out("X@GRAD") && !c.has_out("Y@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "matmul", kernels::matmul_grad, c.in("X"), c.in("Y"), c.in("Out@GRAD"),
                    attr<bool>(c, "trans_x"), attr<bool>(c, "trans_y"), c.out("X@GRAD"),
                    c.out("Y@GRAD"));
}

}  // namespace

void register_matmul_ops(OpRegistry& r) {
  r.add("matmul")
      .doc(
          "Out = X · Y with numpy matmul semantics: a 1-D X is a row and a 1-D Y a column "
          "(that dim is dropped from Out); leading batch dims broadcast. float32 runs oneDNN "
          "(a direct loop for tiny products), float64 skiff's blocked loops, bfloat16 oneDNN "
          "with float32 accumulation.")
      .input("X", "[..., M, K] ([..., K, M] with trans_x), or [K]")
      .input("Y", "[..., K, N] ([..., N, K] with trans_y), or [K]; X's dtype")
      .output("Out", "[broadcast batch..., M, N] without the dims of 1-D operands")
      .attr("trans_x", false, "transpose the last two dims of X (ignored for 1-D X)")
      .attr("trans_y", false, "transpose the last two dims of Y (ignored for 1-D Y)")
      .attr("out_dtype", std::string(),
            "Out's dtype: \"\" for X's, or \"float32\" for bfloat16 X and Y (the float32 "
            "sums, not rounded)")
      .infer_shape(infer_matmul)
      .bind({DType::kF32, DType::kF64, DType::kBF16}, matmul<KernelContext>, matmul<EmitContext>)
      .kernel_dtype_from("X")
      .grad(matmul_grad_maker)
      .amp(AmpPolicy::kLowPrecision)
      .int8_form({.x = "X",
                  .w = "Y",
                  .out = "Out",
                  .w_rank = 2,
                  .w_axis = 1,
                  .int8_op = "quantized_matmul",
                  .int8_x = "X",
                  .int8_w = "W",
                  .x_scale = "XScale",
                  .w_scale = "WScale",
                  .int8_out = "Out"});

  r.add("matmul_grad")
      .doc("Gradients of matmul, summed over the batch dims an operand was broadcast along.")
      .input("X", "the forward X")
      .input("Y", "the forward Y")
      .input("Out@GRAD", "gradient of Out, in Out's dtype")
      .output("X@GRAD", "gradient of X (\"\" when not needed)")
      .output("Y@GRAD", "gradient of Y (\"\" when not needed)")
      .attr("trans_x", false, "as in the forward op")
      .attr("trans_y", false, "as in the forward op")
      .infer_shape(infer_x_y_grads_like_x_y)
      .bind({DType::kF32, DType::kF64, DType::kBF16}, matmul_grad<KernelContext>,
            matmul_grad<EmitContext>)
      .kernel_dtype_from("X");
}

const OpRegistrar kMatmulOps(register_matmul_ops);

}  // namespace skiff
