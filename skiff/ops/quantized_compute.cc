// The int8 compute of quantized layers (kernels/cpu/qmatmul.h, qconv.h): quantized_matmul
// (Linear) and quantized_conv2d (Conv2D), int8 operands multiplied exactly in int32, scaled
// back to float32 per output channel with the bias and relu fused, or requantized to int8
// for the next int8 layer (OutScale). passes/int8.h makes them from a converted model's
// fake-quantized program. Not differentiable.
#include "skiff/kernels/cpu/qconv.h"
#include "skiff/kernels/cpu/qmatmul.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/conv_attrs.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// Out's dtype: int8 when requantized (OutScale given), else float32. Checks the scales.
DType out_dtype(ShapeContext& ctx, const char* op, std::initializer_list<const char*> scales) {
  for (const char* name : scales) {
    if (!ctx.has_input(name)) continue;
    const VarDesc& s = ctx.in_var(name);
    SKIFF_CHECK(s.dtype == DType::kF32, op, ": ", name, " ('", s.name, "') must be float32, got ",
                dtype_name(s.dtype));
  }
  return ctx.has_input("OutScale") ? DType::kI8 : DType::kF32;
}

void infer_quantized_matmul(ShapeContext& ctx) {
  const VarDesc& x = ctx.in_var("X");
  const VarDesc& w = ctx.in_var("W");
  SKIFF_CHECK(
      x.dtype == DType::kI8 && w.dtype == DType::kI8 && w.shape.rank() == 2 && x.shape.rank() >= 1,
      "quantized_matmul: X ('", x.name, "') must be int8 [..., K] and W ('", w.name,
      "') int8 [K, N], got ", dtype_name(x.dtype), x.shape, " and ", dtype_name(w.dtype), w.shape);
  const int64_t k = x.shape[x.shape.rank() - 1];
  SKIFF_CHECK(k < 0 || w.shape[0] < 0 || k == w.shape[0], "quantized_matmul: X ('", x.name, "') ",
              x.shape, " and W ('", w.name, "') ", w.shape, " do not chain");
  Shape out = x.shape;
  out[out.rank() - 1] = w.shape[1];
  ctx.set_output("Out", out,
                 out_dtype(ctx, "quantized_matmul", {"XScale", "WScale", "Bias", "OutScale"}));
}

template <typename C>
void quantized_matmul(C& c) {
  SKIFF_KERNEL_CALL(c, "qmatmul", kernels::quantized_matmul, c.in("X"), c.in("W"), c.in("XScale"),
                    c.in("WScale"), in_or_empty(c, "Bias"), attr<bool>(c, "fuse_relu"),
                    in_or_empty(c, "OutScale"), c.out("Out"));
}

void infer_quantized_conv2d(ShapeContext& ctx) {
  const VarDesc& x = ctx.in_var("Input");
  const VarDesc& w = ctx.in_var("Filter");
  SKIFF_CHECK(x.dtype == DType::kI8 && w.dtype == DType::kI8, "quantized_conv2d: Input ('", x.name,
              "') and Filter ('", w.name, "') must be int8, got ", dtype_name(x.dtype), " and ",
              dtype_name(w.dtype));
  Shape out = kernels::conv2d_shape(x.shape, w.shape, conv_params_of(ctx));
  if (ctx.has_input("Bias")) {
    const VarDesc& bias = ctx.in_var("Bias");
    SKIFF_CHECK(kernels::conv2d_bias_shape_ok(bias.shape, out[1]), "quantized_conv2d: Bias ('",
                bias.name, "') must be [", out[1], "] or [1, ", out[1], ", 1, 1], got ",
                bias.shape);
  }
  if (ctx.attr<bool>("fuse_max_pool_2x2")) {
    SKIFF_CHECK(ctx.has_input("OutScale"),
                "quantized_conv2d: fuse_max_pool_2x2 pools int8 outputs only (give OutScale)");
    for (int d = 2; d < 4; ++d) {
      SKIFF_CHECK(out[d] < 0 || out[d] >= 2, "quantized_conv2d: fuse_max_pool_2x2 needs a 2x2 ",
                  "window: the convolution's output ", out, " is smaller");
      if (out[d] > 0) out[d] /= 2;
    }
  }
  ctx.set_output(
      "Output", out,
      out_dtype(ctx, "quantized_conv2d", {"InputScale", "FilterScale", "Bias", "OutScale"}));
}

template <typename C>
void quantized_conv2d(C& c) {
  SKIFF_KERNEL_CALL(c, "qconv", kernels::quantized_conv2d, c.in("Input"), c.in("Filter"),
                    c.in("InputScale"), c.in("FilterScale"), in_or_empty(c, "Bias"),
                    conv2d_params_value(c), attr<bool>(c, "fuse_relu"),
                    attr<bool>(c, "fuse_max_pool_2x2"), in_or_empty(c, "OutScale"),
                    c.out("Output"));
}

}  // namespace

void register_quantized_compute_ops(OpRegistry& r) {
  r.add("quantized_matmul")
      .doc(
          "Out = (X · W, accumulated in int32) * XScale * WScale + Bias, relu'd when "
          "fuse_relu: the int8 compute of a quantized Linear (exact int32 sums: AVX2 16-bit "
          "multiply-adds, oneDNN's int8 matmul where the CPU has AVX-512 VNNI); float32, or "
          "int8 on OutScale's grid when given. Not differentiable.")
      .input("X", "int8 [..., K]: the input on its grid")
      .input("W", "int8 [K, N]")
      .input("XScale", "float32 [1]: X's scale")
      .input("WScale", "float32 [1] or [N]: W's scales (per output channel)")
      .optional_input("Bias", "float32 [N]")
      .optional_input("OutScale",
                      "float32 [1]: requantize Out to int8 on this grid (the next int8 layer's "
                      "input scale)")
      .output("Out", "float32 [..., N], or int8 given OutScale")
      .attr("fuse_relu", false, "apply relu to Out")
      .infer_shape(infer_quantized_matmul)
      .bind({DType::kI8}, quantized_matmul<KernelContext>, quantized_matmul<EmitContext>)
      .kernel_dtype_from("X");

  OpBuilder conv = r.add("quantized_conv2d");
  conv.doc(
          "Output = conv2d(Input, Filter), accumulated exactly in int32, * InputScale * "
          "FilterScale[m] + Bias[m], relu'd when fuse_relu: the int8 compute of a quantized "
          "Conv2D (oneDNN's int8 convolution where exact, else im2col in int8 and the int8 "
          "products of quantized_matmul); float32, or int8 on OutScale's grid when given, "
          "max-pooled 2x2 when fuse_max_pool_2x2. Not differentiable.")
      .input("Input", "int8 [N, C, H, W]: the input on its grid")
      .input("Filter", "int8 [M, C / groups, KH, KW]")
      .input("InputScale", "float32 [1]: Input's scale")
      .input("FilterScale", "float32 [1] or [M]: Filter's scales (per output channel)")
      .optional_input("Bias", "float32 [M] or [1, M, 1, 1]")
      .optional_input("OutScale", "float32 [1]: requantize Output to int8 on this grid")
      .output("Output",
              "float32 [N, M, OH, OW] (as conv2d's), or int8 given OutScale (pooled: [N, M, OH "
              "/ 2, OW / 2])");
  add_conv_attrs(conv);
  conv.attr("fuse_relu", false, "apply relu to Output")
      .attr("fuse_max_pool_2x2", false,
            "then 2x2 max pooling at stride 2, as pool2d's (Output [N, M, OH / 2, OW / 2]; int8 "
            "Output only)")
      .infer_shape(infer_quantized_conv2d)
      .bind({DType::kI8}, quantized_conv2d<KernelContext>, quantized_conv2d<EmitContext>)
      .kernel_dtype_from("Input");
}

const OpRegistrar kQuantizedComputeOps(register_quantized_compute_ops);

}  // namespace skiff
