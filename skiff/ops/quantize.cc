// Linear quantization ops (kernels/cpu/quantize.h): quantize_linear and dequantize_linear
// (ONNX's QuantizeLinear / DequantizeLinear: real integer tensors), and
// fake_quantize_dequantize, the float-in float-out op quantization-aware training inserts,
// whose gradient is the straight-through estimate (PyTorch's fake_quantize_*_affine).
// Scale holds one value (per tensor) or one per index of quant_axis (per channel);
// ZeroPoint (optional) as many integers. The int8 compute they feed is quantized_compute.cc's.
#include "skiff/kernels/cpu/quantize.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// Scale's (and ZeroPoint's) declared shape against X's: one value, or X's extent along
// quant_axis.
void check_grid(ShapeContext& ctx, const char* op) {
  const VarDesc& x = ctx.in_var("X");
  const VarDesc& scale = ctx.in_var("Scale");
  SKIFF_CHECK(scale.dtype == DType::kF32 || scale.dtype == DType::kF64, op, ": Scale ('",
              scale.name, "') must be float32 or float64, got ", dtype_name(scale.dtype));
  const int64_t rank = x.shape.rank();
  int64_t axis = ctx.attr<int64_t>("quant_axis");
  if (axis < 0) axis += rank;
  if (scale.shape.known() && scale.shape.numel() > 1 && x.shape.rank() > 0) {
    SKIFF_CHECK(axis >= 0 && axis < rank, op, ": quant_axis ", ctx.attr<int64_t>("quant_axis"),
                " is out of range for X ('", x.name, "') ", x.shape);
    SKIFF_CHECK(x.shape[axis] < 0 || x.shape[axis] == scale.shape.numel(), op, ": Scale ('",
                scale.name, "') ", scale.shape, " has one value per channel but X ('", x.name,
                "') ", x.shape, " has ", x.shape[axis], " along quant_axis ", axis);
  }
  if (ctx.has_input("ZeroPoint")) {
    const VarDesc& zero = ctx.in_var("ZeroPoint");
    SKIFF_CHECK(!is_floating(zero.dtype) && zero.dtype != DType::kBool, op, ": ZeroPoint ('",
                zero.name, "') must hold integers, got ", dtype_name(zero.dtype));
  }
}

void infer_quantize(ShapeContext& ctx) {
  check_grid(ctx, "quantize_linear");
  const DType to = dtype_from_name(ctx.attr<std::string>("out_dtype"));
  int64_t lo, hi;
  kernels::quant_range(to, &lo, &hi);
  ctx.set_output("Y", ctx.in_shape("X"), to);
}

template <typename C>
void quantize(C& c) {
  SKIFF_KERNEL_CALL(c, "quantize", kernels::quantize_linear, c.in("X"), c.in("Scale"),
                    in_or_empty(c, "ZeroPoint"), attr<int64_t>(c, "quant_axis"),
                    attr<int64_t>(c, "round_type"), dtype_attr(c, "out_dtype"), c.out("Y"));
}

void infer_dequantize(ShapeContext& ctx) {
  check_grid(ctx, "dequantize_linear");
  const DType x = ctx.in_dtype("X");
  SKIFF_CHECK(!is_floating(x) && x != DType::kBool, "dequantize_linear: X ('", ctx.in_var("X").name,
              "') must hold integers, got ", dtype_name(x));
  const DType to = dtype_from_name(ctx.attr<std::string>("out_dtype"));
  SKIFF_CHECK(to == DType::kF32 || to == DType::kF64,
              "dequantize_linear: out_dtype must be float32 or float64, got ", dtype_name(to));
  ctx.set_output("Y", ctx.in_shape("X"), to);
}

template <typename C>
void dequantize(C& c) {
  SKIFF_KERNEL_CALL(c, "quantize", kernels::dequantize_linear, c.in("X"), c.in("Scale"),
                    in_or_empty(c, "ZeroPoint"), attr<int64_t>(c, "quant_axis"),
                    dtype_attr(c, "out_dtype"), c.out("Y"));
}

void infer_fake_quantize(ShapeContext& ctx) {
  check_grid(ctx, "fake_quantize_dequantize");
  SKIFF_CHECK(ctx.attr<int64_t>("quant_min") < ctx.attr<int64_t>("quant_max"),
              "fake_quantize_dequantize: quant_min ", ctx.attr<int64_t>("quant_min"),
              " is not below quant_max ", ctx.attr<int64_t>("quant_max"));
  const VarDesc& x = ctx.in_var("X");
  ctx.set_output("Out", x.shape, x.dtype);
}

template <typename C>
void fake_quantize(C& c) {
  SKIFF_KERNEL_CALL(c, "quantize", kernels::fake_quantize, c.in("X"), c.in("Scale"),
                    in_or_empty(c, "ZeroPoint"), attr<int64_t>(c, "quant_axis"),
                    attr<int64_t>(c, "quant_min"), attr<int64_t>(c, "quant_max"),
                    attr<int64_t>(c, "round_type"), c.out("Out"));
}

void infer_fake_quantize_grad(ShapeContext& ctx) {
  const VarDesc& x = ctx.in_var("X");
  ctx.set_output("X@GRAD", x.shape, x.dtype);
}

template <typename C>
void fake_quantize_grad(C& c) {
  SKIFF_KERNEL_CALL(c, "quantize", kernels::fake_quantize_grad, c.in("X"), c.in("Scale"),
                    in_or_empty(c, "ZeroPoint"), attr<int64_t>(c, "quant_axis"),
                    attr<int64_t>(c, "quant_min"), attr<int64_t>(c, "quant_max"),
                    attr<int64_t>(c, "round_type"), c.in("Out@GRAD"), c.out("X@GRAD"));
}

// X's gradient only: the scale and zero point are the observer's, not trained.
void fake_quantize_grad_maker(GradContext& g) {
  const std::string x_grad = g.in_grad("X");
  if (x_grad.empty()) return;
  const OpDesc& fwd = g.fwd();
  OpDesc& op = g.add("fake_quantize_dequantize_grad");
  op.set_input("X", {fwd.first_input("X")})
      .set_input("Scale", {fwd.first_input("Scale")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {x_grad});
  if (!fwd.first_input("ZeroPoint").empty())
    op.set_input("ZeroPoint", {fwd.first_input("ZeroPoint")});
  for (const char* name : {"quant_axis", "quant_min", "quant_max", "round_type"})
    op.set_attr(name, fwd.attr<int64_t>(name));
}

OpBuilder& grid_attrs(OpBuilder& b) {
  return b.input("X", "the tensor to quantize")
      .input("Scale", "float32/float64: one value (per tensor) or one per index of quant_axis")
      .optional_input("ZeroPoint", "integers, as many as Scale; absent: zeros")
      .attr("quant_axis", int64_t{0}, "the channel axis of a per-channel Scale")
      .attr("round_type", int64_t{0}, "0: to nearest, ties to even; 1: ties away from zero");
}

}  // namespace

void register_quantize_ops(OpRegistry& r) {
  grid_attrs(r.add("quantize_linear")
                 .doc("Y = clamp(round(X / Scale) + ZeroPoint) to out_dtype's range (ONNX's "
                      "QuantizeLinear). Not differentiable."))
      .output("Y", "integers of out_dtype, X's shape")
      .attr("out_dtype", std::string("int8"), "int8, uint8, int16 or int32")
      .infer_shape(infer_quantize)
      .bind({DType::kF32, DType::kF64}, quantize<KernelContext>, quantize<EmitContext>)
      .kernel_dtype_from("X");

  r.add("dequantize_linear")
      .doc("Y = (X - ZeroPoint) * Scale (ONNX's DequantizeLinear). Not differentiable.")
      .input("X", "integers (int8, uint8, int16, int32)")
      .input("Scale", "float32/float64: one value (per tensor) or one per index of quant_axis")
      .optional_input("ZeroPoint", "integers, as many as Scale; absent: zeros")
      .attr("quant_axis", int64_t{0}, "the channel axis of a per-channel Scale")
      .attr("round_type", int64_t{0}, "(unused: dequantizing does not round)")
      .output("Y", "float of out_dtype, X's shape")
      .attr("out_dtype", std::string("float32"), "float32 or float64")
      .infer_shape(infer_dequantize)
      .bind({DType::kI8, DType::kU8, DType::kI16, DType::kI32}, dequantize<KernelContext>,
            dequantize<EmitContext>)
      .kernel_dtype_from("X");

  grid_attrs(r.add("fake_quantize_dequantize")
                 .doc("Out = (clamp(round(X / Scale) + ZeroPoint, quant_min, quant_max) - "
                      "ZeroPoint) * Scale: X moved onto the integer grid, in float "
                      "(quantization-aware training; PyTorch's fake_quantize_per_tensor_affine "
                      "and _per_channel_affine). The gradient is straight-through: Out@GRAD "
                      "where X's integer lies within [quant_min, quant_max], 0 elsewhere."))
      .output("Out", "X's shape and dtype")
      .attr("quant_min", int64_t{-128}, "the smallest integer (int8: -128; uint8: 0)")
      .attr("quant_max", int64_t{127}, "the largest integer (int8: 127; uint8: 255)")
      .infer_shape(infer_fake_quantize)
      .bind({DType::kF32, DType::kF64}, fake_quantize<KernelContext>, fake_quantize<EmitContext>)
      .kernel_dtype_from("X")
      .grad(fake_quantize_grad_maker);

  grid_attrs(r.add("fake_quantize_dequantize_grad")
                 .doc("X@GRAD = Out@GRAD where X's integer lies in [quant_min, quant_max], 0 "
                      "elsewhere (straight-through)."))
      .input("Out@GRAD", "the gradient of Out")
      .output("X@GRAD", "X's shape and dtype")
      .attr("quant_min", int64_t{-128}, "as the forward op")
      .attr("quant_max", int64_t{127}, "as the forward op")
      .infer_shape(infer_fake_quantize_grad)
      .bind({DType::kF32, DType::kF64}, fake_quantize_grad<KernelContext>,
            fake_quantize_grad<EmitContext>)
      .kernel_dtype_from("X");
}

const OpRegistrar kQuantizeOps(register_quantize_ops);

}  // namespace skiff
