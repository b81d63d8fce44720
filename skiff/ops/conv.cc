// conv2d and conv2d_transpose (PaddlePaddle semantics, NCHW), conv3d (NCDHW) and their grad
// ops.
#include "skiff/kernels/cpu/conv.h"

#include <string>
#include <vector>

#include "skiff/ops/binding.h"
#include "skiff/ops/conv_attrs.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

using Ints = std::vector<int64_t>;

template <typename Ctx>
kernels::ConvParams conv3d_params_of(const Ctx& ctx) {
  check_data_format(ctx, "NCDHW");
  return kernels::conv3d_params(
      ctx.template attr_ref<Ints>("strides"), ctx.template attr_ref<Ints>("paddings"),
      ctx.template attr_ref<Ints>("dilations"), ctx.template attr<int64_t>("groups"));
}

template <typename Ctx>
kernels::ConvParams transpose3d_params_of(const Ctx& ctx) {
  check_data_format(ctx, "NCDHW");
  return kernels::conv3d_params(
      ctx.template attr_ref<Ints>("strides"), ctx.template attr_ref<Ints>("paddings"),
      ctx.template attr_ref<Ints>("dilations"), ctx.template attr<int64_t>("groups"),
      ctx.template attr_ref<Ints>("output_padding"));
}

template <typename Ctx>
kernels::ConvParams transpose_params_of(const Ctx& ctx) {
  check_data_format(ctx);
  return kernels::conv_params(
      ctx.template attr_ref<Ints>("strides"), ctx.template attr_ref<Ints>("paddings"),
      ctx.template attr_ref<Ints>("dilations"), ctx.template attr<int64_t>("groups"),
      ctx.template attr_ref<Ints>("output_padding"));
}

constexpr const char* kFusedReluHasNoGrad =
    "conv2d with fuse_relu=true is made by the inference pass fuse_conv_bias_relu and has no "
    "gradient; train with conv2d followed by relu";

// Checks Input / Filter (/ Bias) dtypes at build time.
DType infer_conv_dtype(ShapeContext& ctx, bool with_bias) {
  const DType x = ctx.in_dtype("Input"), w = ctx.in_dtype("Filter");
  SKIFF_CHECK(is_floating(x) && w == x, "Input (", dtype_name(x), ctx.in_shape("Input"),
              ") and Filter (", dtype_name(w), ctx.in_shape("Filter"),
              ") must share one floating dtype (float32, float64; bfloat16 for conv2d)");
  if (with_bias) {
    const DType b = ctx.in_dtype("Bias");
    SKIFF_CHECK(b == x, "Bias is ", dtype_name(b), " but Input is ", dtype_name(x));
  }
  return x;
}

// ---------------------------------------------------------------- conv2d

void infer_conv2d(ShapeContext& ctx) {
  const bool with_bias = ctx.has_input("Bias");
  const DType dtype = infer_conv_dtype(ctx, with_bias);
  const Shape out =
      kernels::conv2d_shape(ctx.in_shape("Input"), ctx.in_shape("Filter"), conv_params_of(ctx));
  if (with_bias) {
    const Shape bias = ctx.in_shape("Bias");
    SKIFF_CHECK(kernels::conv2d_bias_shape_ok(bias, out[1]), "Bias must be [", out[1], "] or [1, ",
                out[1], ", 1, 1] (one value per output channel of Filter ", ctx.in_shape("Filter"),
                "), got ", bias);
  }
  ctx.set_output("Output", out, dtype);
}

template <typename C>
void conv2d(C& c) {
  SKIFF_KERNEL_CALL(c, "conv", kernels::conv2d, c.in("Input"), c.in("Filter"), c.in_or_null("Bias"),
                    conv2d_params_value(c), attr<bool>(c, "fuse_relu"), c.out("Output"));
}

// conv2d's and conv3d's grad maker.
void conv2d_grad_maker(GradContext& g) {
  if (!g.wants("Input") && !g.wants("Filter") && !g.wants("Bias")) return;
  const OpDesc& fwd = g.fwd();
  SKIFF_CHECK(!fwd.attr<bool>("fuse_relu"), kFusedReluHasNoGrad);
  OpDesc& op = g.add(fwd.type + "_grad");  // conv2d_grad or conv3d_grad
  op.set_input("Input", {fwd.first_input("Input")})
      .set_input("Filter", {fwd.first_input("Filter")})
      .set_input("Output@GRAD", {g.out_grad("Output")})
      .set_output("Input@GRAD", {g.in_grad("Input")})
      .set_output("Filter@GRAD", {g.in_grad("Filter")});
  if (!fwd.first_input("Bias").empty()) {
    op.set_input("Bias", {fwd.first_input("Bias")}).set_output("Bias@GRAD", {g.in_grad("Bias")});
  }
  for (const char* name : {"strides", "paddings", "dilations"}) {
    op.set_attr(name, fwd.attr_ref<Ints>(name));
  }
  op.set_attr("groups", fwd.attr<int64_t>("groups"))
      .set_attr("data_format", fwd.attr<std::string>("data_format"));
}

void infer_conv2d_grad(ShapeContext& ctx) {
  SKIFF_CHECK(!ctx.op().attr_or<bool>("fuse_relu", false), kFusedReluHasNoGrad);
  const DType dtype = infer_conv_dtype(ctx, false);
  const Shape filter = ctx.in_shape("Filter");
  ctx.set_output("Input@GRAD", ctx.in_shape("Input"), dtype);
  ctx.set_output("Filter@GRAD", filter, dtype);
  if (ctx.has_output("Bias@GRAD")) {
    ctx.set_output("Bias@GRAD", ctx.has_input("Bias") ? ctx.in_shape("Bias") : Shape{filter[0]},
                   dtype);
  }
}

template <typename C>
void conv2d_grad(C& c) {
  SKIFF_CHECK(!c.op().template attr_or<bool>("fuse_relu", false), kFusedReluHasNoGrad);
  if (!c.has_out("Input@GRAD") && !c.has_out("Filter@GRAD") && !c.has_out("Bias@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "conv", kernels::conv2d_grad, c.in("Input"), c.in("Filter"),
                    c.in("Output@GRAD"), conv2d_params_value(c), c.out("Input@GRAD"),
                    c.out("Filter@GRAD"), c.out("Bias@GRAD"));
  if (c.has_out("Bias@GRAD") && c.has_in("Bias"))  // a [1, M, 1, 1] Bias
    reshape_output(c, c.out("Bias@GRAD"), c.in("Bias").shape());
}

// ---------------------------------------------------------------- conv3d

void infer_conv3d(ShapeContext& ctx) {
  const bool with_bias = ctx.has_input("Bias");
  const DType dtype = infer_conv_dtype(ctx, with_bias);
  const Shape out =
      kernels::conv3d_shape(ctx.in_shape("Input"), ctx.in_shape("Filter"), conv3d_params_of(ctx));
  if (with_bias) {
    const Shape bias = ctx.in_shape("Bias");
    SKIFF_CHECK(kernels::conv3d_bias_shape_ok(bias, out[1]), "Bias must be [", out[1], "] or [1, ",
                out[1], ", 1, 1, 1] (one value per output channel of Filter ",
                ctx.in_shape("Filter"), "), got ", bias);
  }
  ctx.set_output("Output", out, dtype);
}

// The op's ConvParams, or the expression making them.
template <typename C>
auto conv3d_params_value(const C& c) {
  check_data_format(c, "NCDHW");
  return SKIFF_KERNEL_VALUE(c, kernels::conv3d_params, attr_ref<Ints>(c, "strides"),
                            attr_ref<Ints>(c, "paddings"), attr_ref<Ints>(c, "dilations"),
                            attr<int64_t>(c, "groups"));
}

template <typename C>
void conv3d(C& c) {
  SKIFF_KERNEL_CALL(c, "conv", kernels::conv3d, c.in("Input"), c.in("Filter"), c.in_or_null("Bias"),
                    conv3d_params_value(c), attr<bool>(c, "fuse_relu"), c.out("Output"));
}

template <typename C>
void conv3d_grad(C& c) {
  SKIFF_CHECK(!c.op().template attr_or<bool>("fuse_relu", false), kFusedReluHasNoGrad);
  if (!c.has_out("Input@GRAD") && !c.has_out("Filter@GRAD") && !c.has_out("Bias@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "conv", kernels::conv3d_grad, c.in("Input"), c.in("Filter"),
                    c.in("Output@GRAD"), conv3d_params_value(c), c.out("Input@GRAD"),
                    c.out("Filter@GRAD"), c.out("Bias@GRAD"));
  if (c.has_out("Bias@GRAD") && c.has_in("Bias"))  // a [1, M, 1, 1, 1] Bias
    reshape_output(c, c.out("Bias@GRAD"), c.in("Bias").shape());
}

// ---------------------------------------------------------------- conv2d_transpose

void infer_conv2d_transpose(ShapeContext& ctx) {
  const DType dtype = infer_conv_dtype(ctx, false);
  ctx.set_output("Output",
                 kernels::conv2d_transpose_shape(ctx.in_shape("Input"), ctx.in_shape("Filter"),
                                                 transpose_params_of(ctx)),
                 dtype);
}

// The transposed convolution's ConvParams, or the expression making them.
template <typename C>
auto transpose_params_value(const C& c) {
  check_data_format(c);
  return SKIFF_KERNEL_VALUE(c, kernels::conv_params, attr_ref<Ints>(c, "strides"),
                            attr_ref<Ints>(c, "paddings"), attr_ref<Ints>(c, "dilations"),
                            attr<int64_t>(c, "groups"), attr_ref<Ints>(c, "output_padding"));
}

template <typename C>
void conv2d_transpose(C& c) {
  SKIFF_KERNEL_CALL(c, "conv", kernels::conv2d_transpose, c.in("Input"), c.in("Filter"),
                    transpose_params_value(c), c.out("Output"));
}

void conv2d_transpose_grad_maker(GradContext& g) {
  if (!g.wants("Input") && !g.wants("Filter")) return;
  const OpDesc& fwd = g.fwd();
  OpDesc& op = g.add(fwd.type + "_grad");  // conv2d_transpose_grad or conv3d_transpose_grad
  op.set_input("Input", {fwd.first_input("Input")})
      .set_input("Filter", {fwd.first_input("Filter")})
      .set_input("Output@GRAD", {g.out_grad("Output")})
      .set_output("Input@GRAD", {g.in_grad("Input")})
      .set_output("Filter@GRAD", {g.in_grad("Filter")});
  for (const char* name : {"strides", "paddings", "dilations", "output_padding"}) {
    op.set_attr(name, fwd.attr_ref<Ints>(name));
  }
  op.set_attr("groups", fwd.attr<int64_t>("groups"))
      .set_attr("data_format", fwd.attr<std::string>("data_format"));
}

void infer_conv2d_transpose_grad(ShapeContext& ctx) {
  const DType dtype = infer_conv_dtype(ctx, false);
  ctx.set_output("Input@GRAD", ctx.in_shape("Input"), dtype);
  ctx.set_output("Filter@GRAD", ctx.in_shape("Filter"), dtype);
}

template <typename C>
void conv2d_transpose_grad(C& c) {
  if (!c.has_out("Input@GRAD") && !c.has_out("Filter@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "conv", kernels::conv2d_transpose_grad, c.in("Input"), c.in("Filter"),
                    c.in("Output@GRAD"), transpose_params_value(c), c.out("Input@GRAD"),
                    c.out("Filter@GRAD"));
}

// ---------------------------------------------------------------- conv3d_transpose

void infer_conv3d_transpose(ShapeContext& ctx) {
  const DType dtype = infer_conv_dtype(ctx, false);
  ctx.set_output("Output",
                 kernels::conv3d_transpose_shape(ctx.in_shape("Input"), ctx.in_shape("Filter"),
                                                 transpose3d_params_of(ctx)),
                 dtype);
}

template <typename C>
auto transpose3d_params_value(const C& c) {
  check_data_format(c, "NCDHW");
  return SKIFF_KERNEL_VALUE(c, kernels::conv3d_params, attr_ref<Ints>(c, "strides"),
                            attr_ref<Ints>(c, "paddings"), attr_ref<Ints>(c, "dilations"),
                            attr<int64_t>(c, "groups"), attr_ref<Ints>(c, "output_padding"));
}

template <typename C>
void conv3d_transpose(C& c) {
  SKIFF_KERNEL_CALL(c, "conv", kernels::conv3d_transpose, c.in("Input"), c.in("Filter"),
                    transpose3d_params_value(c), c.out("Output"));
}

template <typename C>
void conv3d_transpose_grad(C& c) {
  if (!c.has_out("Input@GRAD") && !c.has_out("Filter@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "conv", kernels::conv3d_transpose_grad, c.in("Input"), c.in("Filter"),
                    c.in("Output@GRAD"), transpose3d_params_value(c), c.out("Input@GRAD"),
                    c.out("Filter@GRAD"));
}

// conv3d's attributes (and its grad op's).
void add_conv3d_attrs(OpBuilder& b) {
  b.attr("strides", Ints{1, 1, 1}, "[stride_d, stride_h, stride_w]")
      .attr("paddings", Ints{0, 0, 0},
            "zero padding: [pad_d, pad_h, pad_w] on both sides, or [front, back, top, bottom, "
            "left, right]")
      .attr("dilations", Ints{1, 1, 1}, "[dilation_d, dilation_h, dilation_w]; 1 is dense")
      .attr("groups", int64_t{1},
            "channel groups: input and output channels split into this many independent "
            "convolutions")
      .attr("data_format", std::string("NCDHW"), "layout of Input and Output; only \"NCDHW\"");
}

void register_conv3d(OpRegistry& r) {
  OpBuilder conv = r.add("conv3d");
  conv.doc(
          "3-D convolution (cross-correlation, as in PaddlePaddle) over NCDHW: Output[n, m] = "
          "sum over the input channels of m's group of Input[n, c] * Filter[m, c], with "
          "strides, zero padding, dilations and groups; plus Bias[m] when given. float32 and "
          "bfloat16 run oneDNN, float64 im2col + gemm loops.")
      .input("Input", "[N, C, D, H, W], float32, float64 or bfloat16")
      .input("Filter", "[M, C / groups, KD, KH, KW], Input's dtype")
      .optional_input("Bias", "[M] or [1, M, 1, 1, 1], added per output channel")
      .output("Output",
              "[N, M, OD, OH, OW], OD = (D + pad_front + pad_back - dilation_d * (KD - 1) - 1) "
              "/ stride_d + 1 (OH, OW alike)");
  add_conv3d_attrs(conv);
  conv.attr("fuse_relu", false, "apply relu to the output (such an op has no gradient)")
      .infer_shape(infer_conv3d)
      .bind({DType::kF32, DType::kF64, DType::kBF16}, conv3d<KernelContext>, conv3d<EmitContext>)
      .kernel_dtype_from("Input")
      .grad(conv2d_grad_maker);

  OpBuilder conv_grad = r.add("conv3d_grad");
  conv_grad.doc("Gradients of conv3d.")
      .input("Input", "the forward Input")
      .input("Filter", "the forward Filter")
      .input("Output@GRAD", "gradient of Output")
      .optional_input("Bias", "the forward Bias, when present (gives Bias@GRAD its shape)")
      .output("Input@GRAD", "gradient of Input (\"\" when not needed)")
      .output("Filter@GRAD", "gradient of Filter (\"\" when not needed)")
      .optional_output("Bias@GRAD", "gradient of Bias: Output@GRAD summed over N, OD, OH, OW");
  add_conv3d_attrs(conv_grad);
  conv_grad.attr("fuse_relu", false, "must be false: a fused relu has no gradient")
      .infer_shape(infer_conv2d_grad)
      .bind({DType::kF32, DType::kF64, DType::kBF16}, conv3d_grad<KernelContext>,
            conv3d_grad<EmitContext>)
      .kernel_dtype_from("Input");

  OpBuilder transpose = r.add("conv3d_transpose");
  transpose
      .doc(
          "3-D transposed convolution (PaddlePaddle conv3d_transpose) over NCDHW: the adjoint "
          "of conv3d with the same attributes. float32 runs oneDNN, float64 gemm + col2im "
          "loops.")
      .input("Input", "[N, C, D, H, W], float32 or float64")
      .input("Filter", "[C, M / groups, KD, KH, KW], Input's dtype")
      .output("Output",
              "[N, M, OD, OH, OW], OD = (D - 1) * stride_d - pad_front - pad_back + dilation_d "
              "* (KD - 1) + 1 + output_padding_d (OH, OW alike)");
  add_conv3d_attrs(transpose);
  transpose
      .attr("output_padding", Ints{},
            "[extra_d, extra_h, extra_w] added at the back / bottom / right of Output, each "
            "below the stride or the dilation (empty: none)")
      .infer_shape(infer_conv3d_transpose)
      .bind({DType::kF32, DType::kF64}, conv3d_transpose<KernelContext>,
            conv3d_transpose<EmitContext>)
      .kernel_dtype_from("Input")
      .grad(conv2d_transpose_grad_maker);

  OpBuilder transpose_grad = r.add("conv3d_transpose_grad");
  transpose_grad.doc("Gradients of conv3d_transpose.")
      .input("Input", "the forward Input")
      .input("Filter", "the forward Filter")
      .input("Output@GRAD", "gradient of Output")
      .output("Input@GRAD", "gradient of Input (\"\" when not needed)")
      .output("Filter@GRAD", "gradient of Filter (\"\" when not needed)");
  add_conv3d_attrs(transpose_grad);
  transpose_grad.attr("output_padding", Ints{}, "as in the forward op")
      .infer_shape(infer_conv2d_transpose_grad)
      .bind({DType::kF32, DType::kF64}, conv3d_transpose_grad<KernelContext>,
            conv3d_transpose_grad<EmitContext>)
      .kernel_dtype_from("Input");
}

}  // namespace

void add_conv_attrs(OpBuilder& b) {
  b.attr("strides", Ints{1, 1}, "[stride_h, stride_w]")
      .attr("paddings", Ints{0, 0},
            "zero padding: [pad_h, pad_w] on both sides, or [top, bottom, left, right]")
      .attr("dilations", Ints{1, 1}, "[dilation_h, dilation_w]; 1 is a dense kernel")
      .attr("groups", int64_t{1},
            "channel groups: input and output channels split into this many independent "
            "convolutions (groups = channels: depthwise)")
      .attr("data_format", std::string("NCHW"), "layout of Input and Output; only \"NCHW\"");
}

void register_conv_ops(OpRegistry& r) {
  register_conv3d(r);
  OpBuilder conv = r.add("conv2d");
  conv.doc(
          "2-D convolution (cross-correlation, as in PaddlePaddle): Output[n, m] = sum over the "
          "input channels of m's group of Input[n, c] * Filter[m, c], with strides, zero "
          "padding, dilations and groups; plus Bias[m] when given, then max(0, .) when "
          "fuse_relu. float32 and bfloat16 run oneDNN (bf16 accumulates in float32), float64 "
          "im2col + gemm loops.")
      .input("Input", "[N, C, H, W], float32, float64 or bfloat16")
      .input("Filter", "[M, C / groups, KH, KW], Input's dtype")
      .optional_input("Bias", "[M] or [1, M, 1, 1], added per output channel")
      .output("Output",
              "[N, M, OH, OW], OH = (H + pad_top + pad_bottom - dilation_h * (KH - 1) - 1) / "
              "stride_h + 1 (OW alike)");
  add_conv_attrs(conv);
  conv.attr("fuse_relu", false,
            "apply relu to the output (set by the inference pass fuse_conv_bias_relu; such an "
            "op has no gradient)")
      .infer_shape(infer_conv2d)
      .bind({DType::kF32, DType::kF64, DType::kBF16}, conv2d<KernelContext>, conv2d<EmitContext>)
      .kernel_dtype_from("Input")
      .grad(conv2d_grad_maker)
      .amp(AmpPolicy::kLowPrecision)
      .int8_form({.x = "Input",
                  .w = "Filter",
                  .out = "Output",
                  .w_rank = 4,
                  .w_axis = 0,
                  .int8_op = "quantized_conv2d",
                  .int8_x = "Input",
                  .int8_w = "Filter",
                  .x_scale = "InputScale",
                  .w_scale = "FilterScale",
                  .int8_out = "Output"});

  OpBuilder conv_grad = r.add("conv2d_grad");
  conv_grad.doc("Gradients of conv2d (without fused relu).")
      .input("Input", "the forward Input")
      .input("Filter", "the forward Filter")
      .input("Output@GRAD", "gradient of Output")
      .optional_input("Bias", "the forward Bias, when present (gives Bias@GRAD its shape)")
      .output("Input@GRAD", "gradient of Input (\"\" when not needed)")
      .output("Filter@GRAD", "gradient of Filter (\"\" when not needed)")
      .optional_output("Bias@GRAD", "gradient of Bias: Output@GRAD summed over N, OH, OW");
  add_conv_attrs(conv_grad);
  conv_grad.attr("fuse_relu", false, "must be false: a fused relu has no gradient")
      .infer_shape(infer_conv2d_grad)
      .bind({DType::kF32, DType::kF64, DType::kBF16}, conv2d_grad<KernelContext>,
            conv2d_grad<EmitContext>)
      .kernel_dtype_from("Input");

  OpBuilder transpose = r.add("conv2d_transpose");
  transpose
      .doc(
          "2-D transposed convolution (PaddlePaddle conv2d_transpose): the adjoint of conv2d "
          "with the same attributes, each Input pixel scattering Filter into Output. float32 "
          "runs oneDNN, float64 gemm + col2im loops.")
      .input("Input", "[N, C, H, W], float32 or float64")
      .input("Filter", "[C, M / groups, KH, KW], Input's dtype")
      .output("Output",
              "[N, M, OH, OW], OH = (H - 1) * stride_h - pad_top - pad_bottom + dilation_h * "
              "(KH - 1) + 1 + output_padding_h (OW alike)");
  add_conv_attrs(transpose);
  transpose
      .attr("output_padding", Ints{},
            "[extra_h, extra_w] rows / columns added at the bottom / right of Output, each "
            "below the stride or the dilation (empty: none)")
      .infer_shape(infer_conv2d_transpose)
      .bind({DType::kF32, DType::kF64}, conv2d_transpose<KernelContext>,
            conv2d_transpose<EmitContext>)
      .kernel_dtype_from("Input")
      .grad(conv2d_transpose_grad_maker);

  OpBuilder transpose_grad = r.add("conv2d_transpose_grad");
  transpose_grad.doc("Gradients of conv2d_transpose.")
      .input("Input", "the forward Input")
      .input("Filter", "the forward Filter")
      .input("Output@GRAD", "gradient of Output")
      .output("Input@GRAD", "gradient of Input (\"\" when not needed)")
      .output("Filter@GRAD", "gradient of Filter (\"\" when not needed)");
  add_conv_attrs(transpose_grad);
  transpose_grad.attr("output_padding", Ints{}, "as in the forward op")
      .infer_shape(infer_conv2d_transpose_grad)
      .bind({DType::kF32, DType::kF64}, conv2d_transpose_grad<KernelContext>,
            conv2d_transpose_grad<EmitContext>)
      .kernel_dtype_from("Input");
}

const OpRegistrar kConvOps(register_conv_ops);

}  // namespace skiff
