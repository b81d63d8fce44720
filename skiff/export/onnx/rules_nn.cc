// ONNX rules for network layers: convolutions, pooling, batch and layer
// normalization (inference form) and dropout (inference: identity or a scale).
#include "skiff/export/onnx/onnx_rules.h"

namespace skiff::onnx_export {

namespace {

// skiff's [pad_h, pad_w] or [top, bottom, left, right] as ONNX's [top, left,
// bottom, right].
std::vector<int64_t> onnx_pads(const std::vector<int64_t>& p) {
  if (p.size() == 2) return {p[0], p[1], p[0], p[1]};
  SKIFF_CHECK(p.size() == 4, "paddings must hold 2 or 4 values, got ", p.size());
  return {p[0], p[2], p[1], p[3]};
}

// Ops that take a data_format (conv2d) must use NCHW; pool2d has none (always NCHW).
void check_nchw(const OpDesc& op) {
  if (!op.attrs.has("data_format")) return;
  const std::string layout = op.attr<std::string>("data_format");
  SKIFF_CHECK(layout == "NCHW", "data_format ", layout, " has no ONNX mapping (only NCHW)");
}

void conv2d(GraphEmitter& g, const OpDesc& op) {
  check_nchw(op);
  const std::string x = g.in(op, "Input"), w = g.in(op, "Filter");
  std::vector<std::string> inputs = {x, w};
  if (g.has_in(op, "Bias")) {
    std::string bias = g.in(op, "Bias");
    if (g.shape(op, "Bias").rank() != 1) bias = g.apply("Reshape", {bias, g.ints({-1})});
    inputs.push_back(bias);
  }
  const bool relu = op.attr<bool>("fuse_relu");
  const std::string out = relu ? g.temp("conv") : g.out(op, "Output");
  g.node("Conv", inputs, {out})
      .ints("strides", op.attr<std::vector<int64_t>>("strides"))
      .ints("pads", onnx_pads(op.attr<std::vector<int64_t>>("paddings")))
      .ints("dilations", op.attr<std::vector<int64_t>>("dilations"))
      .i("group", op.attr<int64_t>("groups"));
  if (relu) g.node("Relu", {out}, {g.out(op, "Output")});
}

void conv2d_transpose(GraphEmitter& g, const OpDesc& op) {
  check_nchw(op);
  const std::string x = g.in(op, "Input"), w = g.in(op, "Filter");
  NodeWriter n = g.node("ConvTranspose", {x, w}, {g.out(op, "Output")});
  n.ints("strides", op.attr<std::vector<int64_t>>("strides"))
      .ints("pads", onnx_pads(op.attr<std::vector<int64_t>>("paddings")))
      .ints("dilations", op.attr<std::vector<int64_t>>("dilations"))
      .i("group", op.attr<int64_t>("groups"));
  const std::vector<int64_t> extra = op.attr<std::vector<int64_t>>("output_padding");
  if (!extra.empty()) n.ints("output_padding", extra);
}

// With ceil_mode, skiff (like PyTorch and ONNX Runtime) drops a last window that
// starts past the input; ONNX's shape rule keeps it. For known H and W where the two
// differ, the output sizes to cut the ONNX result to; otherwise empty.
std::vector<int64_t> ceil_mode_sizes(const Shape& in, const std::vector<int64_t>& ksize,
                                     const std::vector<int64_t>& strides,
                                     const std::vector<int64_t>& pads) {
  if (in.rank() != 4 || in[2] < 0 || in[3] < 0) return {};
  std::vector<int64_t> sizes;
  bool differ = false;
  for (int d = 0; d < 2; ++d) {
    const int64_t span = in[2 + d] + pads[d] + pads[d + 2] - ksize[d], s = strides[d];
    const int64_t onnx = (span + s - 1) / s + 1;
    const int64_t kept = (onnx - 1) * s >= in[2 + d] + pads[d] ? onnx - 1 : onnx;
    differ = differ || kept != onnx;
    sizes.push_back(kept);
  }
  return differ ? sizes : std::vector<int64_t>{};
}

void pool2d(GraphEmitter& g, const OpDesc& op) {
  check_nchw(op);
  const std::string x = g.in(op, "X");
  const std::string type = op.attr<std::string>("pooling_type");
  SKIFF_CHECK(type == "max" || type == "avg", "pooling_type ", type, " has no ONNX mapping");
  const bool is_max = type == "max";
  std::vector<int64_t> ksize = op.attr<std::vector<int64_t>>("ksize");
  std::vector<int64_t> strides = op.attr<std::vector<int64_t>>("strides");
  std::vector<int64_t> pads = onnx_pads(op.attr<std::vector<int64_t>>("paddings"));
  bool global = op.attr<bool>("global_pooling");
  if (op.attr<bool>("adaptive") && !global) {
    // Adaptive windows are plain windows when the output size divides the input's.
    const Shape& in = g.shape(op, "X");
    global = ksize == std::vector<int64_t>{1, 1};
    if (!global) {
      const bool divides = in.rank() == 4 && in[2] > 0 && in[3] > 0 && in[2] % ksize[0] == 0 &&
                           in[3] % ksize[1] == 0;
      SKIFF_CHECK(divides, "adaptive pooling to ", Shape(ksize), " of a ", in,
                  " input has no ONNX mapping (it needs known H and W that the output size "
                  "divides)");
      strides = {in[2] / ksize[0], in[3] / ksize[1]};
      ksize = strides;
      pads = {0, 0, 0, 0};
    }
  }
  if (global) {
    g.node(is_max ? "GlobalMaxPool" : "GlobalAveragePool", {x}, {g.out(op, "Out")});
    return;
  }
  const bool ceil = op.attr<bool>("ceil_mode");
  const std::vector<int64_t> cut =
      ceil ? ceil_mode_sizes(g.shape(op, "X"), ksize, strides, pads) : std::vector<int64_t>{};
  const std::string pooled = cut.empty() ? g.out(op, "Out") : g.temp("pooled");
  NodeWriter n = g.node(is_max ? "MaxPool" : "AveragePool", {x}, {pooled});
  n.ints("kernel_shape", ksize).ints("strides", strides).ints("pads", pads).i("ceil_mode", ceil);
  if (!is_max) n.i("count_include_pad", !op.attr<bool>("exclusive"));
  if (!cut.empty()) {
    const std::string starts = g.ints({0, 0}), axes = g.ints({2, 3});
    g.node("Slice", {pooled, starts, g.ints(cut), axes}, {g.out(op, "Out")});
  }
}

// Normalizes with the running statistics (the inference form, whatever is_test says).
void batch_norm(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X"), scale = g.in(op, "Scale"), bias = g.in(op, "Bias");
  const std::string mean = g.in(op, "Mean"), var = g.in(op, "Variance");
  g.node("BatchNormalization", {x, scale, bias, mean, var}, {g.out(op, "Y")})
      .f("epsilon", op.attr<double>("epsilon"))
      .f("momentum", op.attr<double>("momentum"));
  // The running statistics stay as they were.
  if (g.has_out(op, "MeanOut")) g.bind(op.first_output("MeanOut"), mean);
  if (g.has_out(op, "VarianceOut")) g.bind(op.first_output("VarianceOut"), var);
}

void layer_norm(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const Shape& shape = g.shape(op, "X");
  const DType t = g.dtype(op, "X");
  const int rank = shape.rank();
  const int axis = static_cast<int>(normalize_axis(op.attr<int64_t>("begin_norm_axis"), rank));
  const double eps = op.attr<double>("epsilon");
  // Scale and Bias hold the normalized dims flattened; ONNX wants them shaped.
  const bool flat = rank - axis == 1;
  std::string norm_shape;
  auto shaped = [&](const char* slot) -> std::string {
    const std::string v = g.in(op, slot);
    if (flat) return v;
    if (norm_shape.empty()) norm_shape = dims_of(g, x, shape, axis, rank);
    return g.apply("Reshape", {v, norm_shape});
  };
  std::string scale = g.has_in(op, "Scale") ? shaped("Scale") : "";
  const std::string bias = g.has_in(op, "Bias") ? shaped("Bias") : "";
  if (g.opset() >= 17) {
    if (scale.empty()) {
      if (norm_shape.empty()) norm_shape = dims_of(g, x, shape, axis, rank);
      scale = g.temp("ones");
      g.node("ConstantOfShape", {norm_shape}, {scale}).t("value", tensor_proto(Shape{1}, t, {1}));
    }
    g.node("LayerNormalization", {x, scale, bias}, {g.out(op, "Y")})
        .i("axis", axis)
        .f("epsilon", eps);
    return;
  }
  std::vector<int64_t> axes;
  for (int i = axis; i < rank; ++i) axes.push_back(i);
  const std::string mean = g.temp("mean"), var = g.temp("var");
  reduce_node(g, "ReduceMean", x, axes, true, mean);
  const std::string centered = g.apply("Sub", {x, mean});
  reduce_node(g, "ReduceMean", g.apply("Mul", {centered, centered}), axes, true, var);
  const std::string std_dev = g.apply("Sqrt", {g.apply("Add", {var, g.scalar(eps, t)})});
  std::string y = g.apply("Div", {centered, std_dev});
  if (!scale.empty()) y = g.apply("Mul", {y, scale});
  if (!bias.empty()) y = g.apply("Add", {y, bias});
  g.node("Identity", {y}, {g.out(op, "Y")});
}

// Inference: upscale_in_train passes X through, downgrade_in_infer scales it.
void dropout(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const std::string mode = op.attr<std::string>("dropout_implementation");
  if (mode == "upscale_in_train") {
    g.node("Identity", {x}, {g.out(op, "Out")});
    return;
  }
  SKIFF_CHECK(mode == "downgrade_in_infer", "dropout_implementation ", mode, " is unknown");
  const double keep = 1.0 - op.attr<double>("dropout_prob");
  g.node("Mul", {x, g.scalar(keep, g.dtype(op, "X"))}, {g.out(op, "Out")});
}

}  // namespace

void add_nn_rules(RuleTable& t) {
  t["conv2d"] = conv2d;
  t["conv2d_transpose"] = conv2d_transpose;
  t["pool2d"] = pool2d;
  t["batch_norm"] = batch_norm;
  t["layer_norm"] = layer_norm;
  t["dropout"] = dropout;
}

}  // namespace skiff::onnx_export
