// ONNX mappings of the *_interp_v2 resizes: one Resize node whose
// coordinate_transformation_mode follows align_corners / align_mode (align_corners;
// pytorch_half_pixel for align_mode 0, which like Paddle clamps a single output cell's
// source to 0; asymmetric for align_mode 1 and for nearest), sizes or scales as inputs.
#include "skiff/export/onnx/onnx_rules.h"

namespace skiff::onnx_export {

namespace {

// The `scales` input [1, 1, s...]: from the Scale input, or from the scale attribute.
std::string scales_of(GraphEmitter& g, const OpDesc& op, int spatial) {
  std::vector<std::string> parts{g.filled(Shape{2}, 1.0, DType::kF32)};
  if (g.has_in(op, "Scale")) {
    const std::string s = g.temp("scale");
    g.node("Cast", {g.in(op, "Scale")}, {s}).i("to", 1);  // FLOAT
    const int64_t count = g.shape(op, "Scale").numel();
    SKIFF_CHECK(count == 1 || count == spatial, op.type, ": Scale must hold 1 or ", spatial,
                " values to be exported, got ", g.shape(op, "Scale"));
    for (int i = 0; i < (count == 1 ? spatial : 1); ++i) parts.push_back(s);
  } else {
    const std::vector<double> scale = op.attr<std::vector<double>>("scale");
    for (int i = 0; i < spatial; ++i) {
      parts.push_back(g.filled(Shape{1}, scale.size() == 1 ? scale[0] : scale[i], DType::kF32));
    }
  }
  const std::string out = g.temp("scales");
  g.node("Concat", parts, {out}).i("axis", 0);
  return out;
}

// The `sizes` input [N, C, out...]: N and C from X, the rest from OutSize or the attributes.
std::string sizes_of(GraphEmitter& g, const OpDesc& op, const std::string& x, const Shape& shape) {
  const int spatial = shape.rank() - 2;
  std::string rest;
  if (g.has_in(op, "OutSize")) {
    rest = g.temp("out_size");
    g.node("Cast", {g.in(op, "OutSize")}, {rest}).i("to", 7);  // INT64
  } else {
    const std::vector<int64_t> dhw{op.attr<int64_t>("out_d"), op.attr<int64_t>("out_h"),
                                   op.attr<int64_t>("out_w")};
    rest = g.ints(std::vector<int64_t>(dhw.end() - spatial, dhw.end()));
  }
  const std::string out = g.temp("sizes");
  g.node("Concat", {dims_of(g, x, shape, 0, 2), rest}, {out}).i("axis", 0);
  return out;
}

void resize(GraphEmitter& g, const OpDesc& op) {
  const std::string layout = op.attr<std::string>("data_layout");
  SKIFF_CHECK(layout == "NCHW" || layout == "NCW" || layout == "NCDHW", "data_layout ", layout,
              " has no ONNX mapping (only channel-first layouts)");
  const std::string x = g.in(op, "X");
  const Shape& shape = g.shape(op, "X");
  const int spatial = shape.rank() - 2;
  const std::string method = op.type.substr(0, op.type.find('_'));
  const bool align_corners = op.attr<bool>("align_corners");
  const int64_t align_mode = op.attr<int64_t>("align_mode");
  const std::vector<double> scale = op.attr<std::vector<double>>("scale");
  const std::vector<int64_t> dhw{op.attr<int64_t>("out_d"), op.attr<int64_t>("out_h"),
                                 op.attr<int64_t>("out_w")};
  const bool sized =
      g.has_in(op, "OutSize") || (!g.has_in(op, "Scale") && (scale.empty() || dhw[2] > 0));
  const std::string scales = sized ? "" : scales_of(g, op, spatial);
  const std::string sizes = sized ? sizes_of(g, op, x, shape) : "";
  NodeWriter n = g.node("Resize", {x, "", scales, sizes}, {g.out(op, "Out")});
  if (method == "nearest") {
    n.s("mode", "nearest")
        .s("coordinate_transformation_mode", align_corners ? "align_corners" : "asymmetric")
        .s("nearest_mode", align_corners ? "round_prefer_ceil" : "floor");
  } else if (method == "bicubic") {
    n.s("mode", "cubic")
        .s("coordinate_transformation_mode", align_corners ? "align_corners" : "half_pixel")
        .f("cubic_coeff_a", -0.75);
  } else {
    n.s("mode", "linear")
        .s("coordinate_transformation_mode", align_corners     ? "align_corners"
                                             : align_mode == 0 ? "pytorch_half_pixel"
                                                               : "asymmetric");
  }
}

}  // namespace

void add_resample_rules(RuleTable& t) {
  for (const char* type : {"nearest_interp_v2", "linear_interp_v2", "bilinear_interp_v2",
                           "trilinear_interp_v2", "bicubic_interp_v2"}) {
    t[type] = resize;
  }
}

}  // namespace skiff::onnx_export
