// The quantization ops as ONNX's QuantizeLinear / DequantizeLinear (ties to even, as skiff's
// default rounding): quantize_linear and dequantize_linear one node each,
// fake_quantize_dequantize a QuantizeLinear-DequantizeLinear pair (the QDQ form ONNX
// runtimes turn into int8 compute). Scales become scalars (per tensor) or 1-D (per axis),
// zero points the integer dtype the node produces.
#include "skiff/export/onnx/onnx_rules.h"

namespace skiff::onnx_export {

namespace {

// The op's Scale as ONNX wants it: a scalar when it holds one value, else 1-D; in `dtype`.
std::string scale_of(GraphEmitter& g, const OpDesc& op, DType dtype, bool* per_axis) {
  std::string scale = g.in(op, "Scale");
  const Shape& shape = g.shape(op, "Scale");
  *per_axis = !(shape.known() && shape.numel() == 1);
  if (!*per_axis) scale = g.apply("Reshape", {scale, g.ints({})});
  if (g.dtype(op, "Scale") != dtype) {
    const std::string cast = g.temp("scale");
    g.node("Cast", {scale}, {cast}).i("to", onnx_elem_type(dtype));
    scale = cast;
  }
  return scale;
}

// The op's ZeroPoint in the integer dtype `q` (zeros shaped like the scale when absent).
std::string zero_point_of(GraphEmitter& g, const OpDesc& op, DType q, bool per_axis,
                          const std::string& scale) {
  if (op.first_input("ZeroPoint").empty()) {
    if (!per_axis) return g.scalar(0, q);
    const std::string zeros = g.temp("zero_point");
    g.node("ConstantOfShape", {g.apply("Shape", {scale})}, {zeros})
        .t("value", tensor_proto(Shape{1}, q, {0}));
    return zeros;
  }
  std::string zero = g.in(op, "ZeroPoint");
  if (!per_axis) zero = g.apply("Reshape", {zero, g.ints({})});
  if (g.dtype(op, "ZeroPoint") != q) {
    const std::string cast = g.temp("zero_point");
    g.node("Cast", {zero}, {cast}).i("to", onnx_elem_type(q));
    zero = cast;
  }
  return zero;
}

// The ONNX integer dtype of a quantization to `dtype` (int16 needs opset 21).
DType onnx_quantized(GraphEmitter& g, const OpDesc& op, DType dtype) {
  SKIFF_CHECK(
      dtype == DType::kI8 || dtype == DType::kU8 || (dtype == DType::kI16 && g.opset() >= 21),
      "op '", op.type, "': ONNX quantizes to int8 or uint8 (int16 from opset 21), not ",
      dtype_name(dtype), " at opset ", g.opset());
  return dtype;
}

void check_rounding(const OpDesc& op) {
  SKIFF_CHECK(op.attr_or<int64_t>("round_type", 0) == 0, "op '", op.type,
              "': ONNX rounds ties to even; round_type 1 (ties away from zero) has no ONNX form");
}

// QuantizeLinear of the op's X to `q`; per axis along quant_axis.
std::string quantize_node(GraphEmitter& g, const OpDesc& op, DType q, const std::string& out) {
  check_rounding(op);
  bool per_axis = false;
  const std::string scale = scale_of(g, op, g.dtype(op, "X"), &per_axis);
  const std::string zero = zero_point_of(g, op, q, per_axis, scale);
  NodeWriter node = g.node("QuantizeLinear", {g.in(op, "X"), scale, zero}, {out});
  if (per_axis) node.i("axis", op.attr<int64_t>("quant_axis"));
  return out;
}

void quantize_linear(GraphEmitter& g, const OpDesc& op) {
  quantize_node(g, op, onnx_quantized(g, op, g.dtype(op, "Y")), g.out(op, "Y"));
}

void dequantize_linear(GraphEmitter& g, const OpDesc& op) {
  const DType out = g.dtype(op, "Y");
  bool per_axis = false;
  const std::string scale = scale_of(g, op, out, &per_axis);
  const std::string zero = zero_point_of(g, op, g.dtype(op, "X"), per_axis, scale);
  NodeWriter node = g.node("DequantizeLinear", {g.in(op, "X"), scale, zero}, {g.out(op, "Y")});
  if (per_axis) node.i("axis", op.attr<int64_t>("quant_axis"));
}

// A QuantizeLinear-DequantizeLinear pair: the grid must be an ONNX integer type's range.
void fake_quantize(GraphEmitter& g, const OpDesc& op) {
  const int64_t lo = op.attr<int64_t>("quant_min"), hi = op.attr<int64_t>("quant_max");
  DType q;
  if (lo == -128 && hi == 127) {
    q = DType::kI8;
  } else if (lo == 0 && hi == 255) {
    q = DType::kU8;
  } else {
    fail("op '", op.type, "': quant range [", lo, ", ", hi,
         "] has no ONNX form (QuantizeLinear saturates to int8 [-128, 127] or uint8 [0, 255])");
  }
  const std::string ints = quantize_node(g, op, q, g.temp("quantized"));
  bool per_axis = false;
  const std::string scale = scale_of(g, op, g.dtype(op, "X"), &per_axis);
  const std::string zero = zero_point_of(g, op, q, per_axis, scale);
  NodeWriter node = g.node("DequantizeLinear", {ints, scale, zero}, {g.out(op, "Out")});
  if (per_axis) node.i("axis", op.attr<int64_t>("quant_axis"));
}

}  // namespace

void add_quantize_rules(RuleTable& table) {
  table["quantize_linear"] = quantize_linear;
  table["dequantize_linear"] = dequantize_linear;
  table["fake_quantize_dequantize"] = fake_quantize;
}

}  // namespace skiff::onnx_export
