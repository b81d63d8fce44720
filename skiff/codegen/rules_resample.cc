// Emitter rules of the resize and window ops: the *_interp_v2 family and unfold / fold, with
// their grad ops. Their attributes become function-local constants (InterpOptions,
// UnfoldGeometry) made once; OutSize and Scale inputs are read at each call.
#include "skiff/codegen/op_rules.h"

namespace skiff::codegen {

namespace {

using Ints = std::vector<int64_t>;

// Declares the op's InterpOptions as a function-local constant; returns the expression of
// the options for this call (the constant, or the constant with the OutSize / Scale inputs).
std::string interp_options(OpEmitter& e) {
  const std::string layout = e.attr_or<std::string>("data_layout", "NCHW");
  SKIFF_CHECK(layout == "NCHW" || layout == "NCW" || layout == "NCDHW", e.what(),
              ": data_layout \"", layout, "\" is not supported; only channel-first layouts");
  const VarDesc* x = e.in_var("X");
  SKIFF_CHECK(x != nullptr, e.what(), ": X is not declared");
  const std::string type = e.op().type;
  const std::string method = type.substr(0, type.find('_'));
  std::string scales;
  for (double s : e.attr_or<std::vector<double>>("scale", {})) {
    scales += (scales.empty() ? "" : ", ") + OpEmitter::lit(s);
  }
  const std::string name = e.unique("interp_options");
  e.line("static const k::InterpOptions " + name + " = k::interp_options(" +
         OpEmitter::lit(method) + ", " + std::to_string(x->shape.rank() - 2) + ", " +
         OpEmitter::lit(Ints{e.attr_or<int64_t>("out_d", -1), e.attr_or<int64_t>("out_h", -1),
                             e.attr_or<int64_t>("out_w", -1)}) +
         ", std::vector<double>{" + scales + "}, " +
         OpEmitter::lit(e.attr_or<bool>("align_corners", false)) + ", " +
         std::to_string(e.attr_or<int64_t>("align_mode", 0)) + ");");
  if (!e.has_in("OutSize") && !e.has_in("Scale")) return name;
  const std::string out_size = e.has_in("OutSize") ? "&" + e.in("OutSize") : "nullptr";
  const std::string scale = e.has_in("Scale") ? "&" + e.in("Scale") : "nullptr";
  return "k::with_size_inputs(" + name + ", " + out_size + ", " + scale + ")";
}

void emit_interp(OpEmitter& e) {
  e.include("interpolate");
  const std::string options = interp_options(e);
  e.line("k::interpolate(" + e.in("X") + ", " + options + ", " + e.out("Out") + ");");
}

void emit_interp_grad(OpEmitter& e) {
  e.include("interpolate");
  if (!e.has_out("X@GRAD")) return;
  const std::string options = interp_options(e);
  e.line("k::interpolate_grad(" + e.in("X") + ".shape(), " + e.in("Out@GRAD") + ", " + options +
         ", " + e.out("X@GRAD") + ");");
}

// Declares the op's UnfoldGeometry as a function-local constant; returns its name.
std::string unfold_geometry(OpEmitter& e) {
  const std::string name = e.unique("unfold_geometry");
  e.line("static const k::UnfoldGeometry " + name + " = k::unfold_geometry(" +
         OpEmitter::lit(e.op().type) + ", " + OpEmitter::lit(e.attr<Ints>("kernel_sizes")) + ", " +
         OpEmitter::lit(e.attr_or<Ints>("strides", {1, 1})) + ", " +
         OpEmitter::lit(e.attr_or<Ints>("paddings", {0, 0, 0, 0})) + ", " +
         OpEmitter::lit(e.attr_or<Ints>("dilations", {1, 1})) + ");");
  return name;
}

void emit_unfold(OpEmitter& e) {
  e.include("unfold");
  const std::string g = unfold_geometry(e);
  e.line("k::unfold(" + e.in("X") + ", " + g + ", " + e.out("Out") + ");");
}

void emit_unfold_grad(OpEmitter& e) {
  e.include("unfold");
  if (!e.has_out("X@GRAD")) return;
  const std::string g = unfold_geometry(e);
  const std::string x = e.in("X");
  e.line("k::fold(" + e.in("Out@GRAD") + ", " + g + ", " + x + ".dim(2), " + x + ".dim(3), " +
         e.out("X@GRAD") + ");");
}

void emit_fold(OpEmitter& e) {
  e.include("unfold");
  const std::string g = unfold_geometry(e);
  const Ints sizes = e.attr<Ints>("output_sizes");
  SKIFF_CHECK(sizes.size() == 2, e.what(), ": output_sizes must hold 2 values");
  e.line("k::fold(" + e.in("X") + ", " + g + ", " + OpEmitter::lit(sizes[0]) + ", " +
         OpEmitter::lit(sizes[1]) + ", " + e.out("Out") + ");");
}

}  // namespace

void add_resample_rules(RuleTable& t) {
  for (const char* type : {"nearest_interp_v2", "linear_interp_v2", "bilinear_interp_v2",
                           "trilinear_interp_v2", "bicubic_interp_v2"}) {
    t[type] = emit_interp;
    t[std::string(type) + "_grad"] = emit_interp_grad;
  }
  t["unfold"] = emit_unfold;
  t["unfold_grad"] = emit_unfold_grad;
  t["fold"] = emit_fold;
}

}  // namespace skiff::codegen
