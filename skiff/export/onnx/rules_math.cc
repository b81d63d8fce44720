// ONNX rules for elementwise math: binary ops (with PaddlePaddle's axis broadcasting),
// comparisons and logic, activations, scale, clip, cast and increment.
#include <cmath>
#include <limits>

#include "skiff/export/onnx/onnx_rules.h"
#include "skiff/ops/fuse_activation.h"

namespace skiff::onnx_export {

namespace {

const std::map<std::string, const char*> kBinary = {
    {"elementwise_add", "Add"},    {"elementwise_sub", "Sub"},  {"elementwise_mul", "Mul"},
    {"elementwise_div", "Div"},    {"elementwise_max", "Max"},  {"elementwise_min", "Min"},
    {"elementwise_pow", "Pow"},    {"equal", "Equal"},          {"less_than", "Less"},
    {"less_equal", "LessOrEqual"}, {"greater_than", "Greater"}, {"greater_equal", "GreaterOrEqual"},
    {"logical_and", "And"},        {"logical_or", "Or"},        {"logical_xor", "Xor"}};

const std::map<std::string, const char*> kUnary = {
    {"relu", "Relu"},       {"tanh", "Tanh"},   {"sigmoid", "Sigmoid"}, {"exp", "Exp"},
    {"log", "Log"},         {"sqrt", "Sqrt"},   {"abs", "Abs"},         {"floor", "Floor"},
    {"ceil", "Ceil"},       {"sin", "Sin"},     {"cos", "Cos"},         {"sign", "Sign"},
    {"logical_not", "Not"}, {"tan", "Tan"},     {"atan", "Atan"},       {"asin", "Asin"},
    {"acos", "Acos"},       {"sinh", "Sinh"},   {"cosh", "Cosh"},       {"asinh", "Asinh"},
    {"acosh", "Acosh"},     {"atanh", "Atanh"}, {"erf", "Erf"}};

bool is_float(DType t) { return t == DType::kF32 || t == DType::kF64; }

// X and Y ready for numpy broadcasting: with a PaddlePaddle axis (>= 0, ranks
// differ), the lower-rank operand gets the trailing 1-dims that put it at `axis`.
std::pair<std::string, std::string> aligned_operands(GraphEmitter& g, const OpDesc& op) {
  std::string x = g.in(op, "X"), y = g.in(op, "Y");
  // Comparisons and logical ops have no axis: they broadcast as numpy does.
  const int64_t axis = op.attrs.has("axis") ? op.attr<int64_t>("axis") : -1;
  const int rx = g.shape(op, "X").rank(), ry = g.shape(op, "Y").rank();
  if (axis == -1 || rx == ry) return {x, y};
  const int small = std::min(rx, ry), room = std::max(rx, ry) - small;
  SKIFF_CHECK(axis >= 0 && axis <= room, "axis ", axis, " must be -1 or in [0, ", room,
              "] for operands of ranks ", rx, " and ", ry);
  std::vector<int64_t> trailing;
  for (int k = 0; k < room - axis; ++k) trailing.push_back(small + k);
  if (trailing.empty()) return {x, y};
  std::string& lower = rx < ry ? x : y;
  lower = g.apply("Unsqueeze", {lower, g.ints(trailing)});
  return {x, y};
}

// An elementwise op's fused activation (fuse_activation) becomes a node after it.
void binary(GraphEmitter& g, const OpDesc& op) {
  auto [x, y] = aligned_operands(g, op);
  const std::string fused = op.attr_or<std::string>("fuse_activation", "");
  if (fused.empty()) {
    g.node(kBinary.at(op.type), {x, y}, {g.out(op, "Out")});
    return;
  }
  SKIFF_CHECK(is_fusable_activation(fused), op.type, ": fuse_activation '", fused,
              "' is not one of relu, tanh, sigmoid");
  g.node(kUnary.at(fused), {g.apply(kBinary.at(op.type), {x, y})}, {g.out(op, "Out")});
}

void not_equal(GraphEmitter& g, const OpDesc& op) {
  auto [x, y] = aligned_operands(g, op);
  const std::string eq = g.apply("Equal", {x, y});
  g.node("Not", {eq}, {g.out(op, "Out")});
}

// bitwise_and/or/xor/not: ONNX's Bitwise* (opset 18) on integers, And/Or/Xor/Not on bools.
void bitwise(GraphEmitter& g, const OpDesc& op) {
  const bool is_bool = g.dtype(op, "X") == DType::kBool;
  if (op.type == "bitwise_not") {
    SKIFF_CHECK(is_bool || g.opset() >= 18, "bitwise_not on integers needs opset 18, got ",
                g.opset());
    g.node(is_bool ? "Not" : "BitwiseNot", {g.in(op, "X")}, {g.out(op, "Out")});
    return;
  }
  static const std::map<std::string, std::pair<const char*, const char*>> kOps = {
      {"bitwise_and", {"And", "BitwiseAnd"}},
      {"bitwise_or", {"Or", "BitwiseOr"}},
      {"bitwise_xor", {"Xor", "BitwiseXor"}}};
  const auto& [logical, bitwise_op] = kOps.at(op.type);
  SKIFF_CHECK(is_bool || g.opset() >= 18, op.type, " on integers needs opset 18, got ", g.opset());
  auto [x, y] = aligned_operands(g, op);
  g.node(is_bool ? logical : bitwise_op, {x, y}, {g.out(op, "Out")});
}

// Python's floor division: floats floor the quotient; integers correct the
// truncated quotient where the remainder is nonzero and the signs differ.
void floordiv(GraphEmitter& g, const OpDesc& op) {
  auto [x, y] = aligned_operands(g, op);
  const DType t = g.dtype(op, "X");
  const std::string q = g.apply("Div", {x, y});
  if (is_float(t)) {
    g.node("Floor", {q}, {g.out(op, "Out")});
    return;
  }
  std::string r = g.temp("rem");
  g.node("Mod", {x, y}, {r}).i("fmod", 1);
  const std::string zero = g.scalar(0, t);
  const std::string inexact = g.apply("Not", {g.apply("Equal", {r, zero})});
  const std::string signs_differ =
      g.apply("Xor", {g.apply("Less", {x, zero}), g.apply("Less", {y, zero})});
  std::string fix = g.temp("fix");
  g.node("Cast", {g.apply("And", {inexact, signs_differ})}, {fix}).i("to", onnx_elem_type(t));
  g.node("Sub", {q, fix}, {g.out(op, "Out")});
}

// Python's %: the remainder takes the sign of Y.
void mod(GraphEmitter& g, const OpDesc& op) {
  auto [x, y] = aligned_operands(g, op);
  const DType t = g.dtype(op, "X");
  if (!is_float(t)) {
    g.node("Mod", {x, y}, {g.out(op, "Out")}).i("fmod", 0);
    return;
  }
  std::string r = g.temp("rem");
  g.node("Mod", {x, y}, {r}).i("fmod", 1);
  const std::string zero = g.scalar(0, t);
  const std::string nonzero = g.apply("Not", {g.apply("Equal", {r, zero})});
  const std::string signs_differ =
      g.apply("Xor", {g.apply("Less", {r, zero}), g.apply("Less", {y, zero})});
  const std::string shift = g.apply("Where", {g.apply("And", {nonzero, signs_differ}), y, zero});
  g.node("Add", {r, shift}, {g.out(op, "Out")});
}

void unary(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  g.node(kUnary.at(op.type), {x}, {g.out(op, "Out")});
}

void assign(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  g.node("Identity", {x}, {g.out(op, "Out")});
}

// print's side effect (writing to stdout) has no ONNX form; its value passes through.
void print(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "In");
  g.node("Identity", {x}, {g.out(op, "Out")});
}

void gelu(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const bool approximate = op.attr<bool>("approximate");
  if (g.opset() >= 20) {
    g.node("Gelu", {x}, {g.out(op, "Out")}).s("approximate", approximate ? "tanh" : "none");
    return;
  }
  const DType t = g.dtype(op, "X");
  std::string inner;
  if (approximate) {  // tanh(sqrt(2 / pi) * (x + 0.044715 x^3))
    const std::string cube = g.apply("Mul", {g.apply("Mul", {x, x}), x});
    const std::string sum = g.apply("Add", {x, g.apply("Mul", {cube, g.scalar(0.044715, t)})});
    inner = g.apply("Tanh", {g.apply("Mul", {sum, g.scalar(0.7978845608028654, t)})});
  } else {  // erf(x / sqrt(2))
    inner = g.apply("Erf", {g.apply("Mul", {x, g.scalar(1.0 / std::sqrt(2.0), t)})});
  }
  const std::string half_x = g.apply("Mul", {x, g.scalar(0.5, t)});
  const std::string one_plus = g.apply("Add", {inner, g.scalar(1, t)});
  g.node("Mul", {half_x, one_plus}, {g.out(op, "Out")});
}

void leaky_relu(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  g.node("LeakyRelu", {x}, {g.out(op, "Out")}).f("alpha", op.attr<double>("alpha"));
}

void elu(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  g.node("Elu", {x}, {g.out(op, "Out")}).f("alpha", op.attr<double>("alpha"));
}

// log(1 + exp(beta x)) / beta, and x itself where beta x > threshold.
void softplus(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const DType t = g.dtype(op, "X");
  const double beta = op.attr<double>("beta");
  const double threshold = op.attr<double>("threshold");
  const std::string bx = beta == 1.0 ? x : g.apply("Mul", {x, g.scalar(beta, t)});
  std::string sp = g.apply("Softplus", {bx});
  if (beta != 1.0) sp = g.apply("Div", {sp, g.scalar(beta, t)});
  const std::string linear = g.apply("Greater", {bx, g.scalar(threshold, t)});
  g.node("Where", {linear, x, sp}, {g.out(op, "Out")});
}

void silu(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  g.node("Mul", {x, g.apply("Sigmoid", {x})}, {g.out(op, "Out")});
}

void square(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  g.node("Mul", {x, x}, {g.out(op, "Out")});
}

void rsqrt(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  g.node("Reciprocal", {g.apply("Sqrt", {x})}, {g.out(op, "Out")});
}

void log1p(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  g.node("Log", {g.apply("Add", {x, g.scalar(1, g.dtype(op, "X"))})}, {g.out(op, "Out")});
}

void expm1(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  g.node("Sub", {g.apply("Exp", {x}), g.scalar(1, g.dtype(op, "X"))}, {g.out(op, "Out")});
}

// Halves away from zero (ONNX Round rounds them to even): sign(x) floor(|x| + 0.5).
void round(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const DType t = g.dtype(op, "X");
  if (!is_float(t)) {
    g.node("Identity", {x}, {g.out(op, "Out")});
    return;
  }
  const std::string mag =
      g.apply("Floor", {g.apply("Add", {g.apply("Abs", {x}), g.scalar(0.5, t)})});
  g.node("Mul", {g.apply("Sign", {x}), mag}, {g.out(op, "Out")});
}

void isnan(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  if (is_float(g.dtype(op, "X"))) {
    g.node("IsNaN", {x}, {g.out(op, "Out")});
  } else {  // never NaN: x != x is false everywhere
    g.node("Not", {g.apply("Equal", {x, x})}, {g.out(op, "Out")});
  }
}

void isinf(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  if (is_float(g.dtype(op, "X"))) {
    g.node("IsInf", {x}, {g.out(op, "Out")});
  } else {
    g.node("Not", {g.apply("Equal", {x, x})}, {g.out(op, "Out")});
  }
}

void isfinite(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  if (is_float(g.dtype(op, "X"))) {
    const std::string bad = g.apply("Or", {g.apply("IsNaN", {x}), g.apply("IsInf", {x})});
    g.node("Not", {bad}, {g.out(op, "Out")});
  } else {  // always finite: x == x
    g.node("Equal", {x, x}, {g.out(op, "Out")});
  }
}

void pow(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const std::string factor = g.scalar(op.attr<double>("factor"), g.dtype(op, "X"));
  g.node("Pow", {x, factor}, {g.out(op, "Out")});
}

void clip(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const DType t = g.dtype(op, "X");
  const double lo = op.attr<double>("min"), hi = op.attr<double>("max");
  const std::string min = std::isinf(lo) ? "" : g.scalar(lo, t);
  const std::string max = std::isinf(hi) ? "" : g.scalar(hi, t);
  g.node("Clip", {x, min, max}, {g.out(op, "Out")});
}

// scale * X + bias, or scale * (X + bias); integers with a fractional factor are
// computed in float64 and truncated, as the kernel does.
void scale(GraphEmitter& g, const OpDesc& op) {
  std::string x = g.in(op, "X");
  const DType t = g.dtype(op, "X");
  const double s = op.attr<double>("scale"), b = op.attr<double>("bias");
  const bool after = op.attr<bool>("bias_after_scale");
  std::vector<std::pair<const char*, double>> steps;
  if (!after && b != 0) steps.emplace_back("Add", b);
  if (s != 1) steps.emplace_back("Mul", s);
  if (after && b != 0) steps.emplace_back("Add", b);
  const bool fractional = !is_float(t) && (s != std::floor(s) || b != std::floor(b));
  if (fractional) {
    std::string cast = g.temp("as_f64");
    g.node("Cast", {x}, {cast}).i("to", onnx_elem_type(DType::kF64));
    for (const auto& [onnx, v] : steps) cast = g.apply(onnx, {cast, g.scalar(v, DType::kF64)});
    g.node("Cast", {cast}, {g.out(op, "Out")}).i("to", onnx_elem_type(t));
    return;
  }
  if (steps.empty()) {
    g.node("Identity", {x}, {g.out(op, "Out")});
    return;
  }
  for (size_t k = 0; k < steps.size(); ++k) {
    const std::string v = g.scalar(steps[k].second, t);
    if (k + 1 < steps.size()) {
      x = g.apply(steps[k].first, {x, v});
    } else {
      g.node(steps[k].first, {x, v}, {g.out(op, "Out")});
    }
  }
}

void cast(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const DType to = dtype_from_name(op.attr<std::string>("out_dtype"));
  g.node("Cast", {x}, {g.out(op, "Out")}).i("to", onnx_elem_type(to));
}

void increment(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const std::string step = g.scalar(op.attr<double>("step"), g.dtype(op, "X"));
  g.node("Add", {x, step}, {g.out(op, "Out")});
}

void sum(GraphEmitter& g, const OpDesc& op) {
  for (const std::string& v : op.input("X"))
    SKIFF_CHECK(g.var_desc(v).kind == VarKind::kDenseTensor, "'", v,
                "' is not a dense tensor; only sums of tensors export");
  const std::vector<std::string> xs = g.ins(op, "X");
  SKIFF_CHECK(!xs.empty(), "X is empty");
  g.node(xs.size() == 1 ? "Identity" : "Sum", xs, {g.out(op, "Out")});
}

}  // namespace

void add_math_rules(RuleTable& t) {
  for (const auto& [type, onnx] : kBinary) t[type] = binary;
  for (const auto& [type, onnx] : kUnary) t[type] = unary;
  t["not_equal"] = not_equal;
  t["elementwise_floordiv"] = floordiv;
  t["elementwise_mod"] = mod;
  for (const char* type : {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"})
    t[type] = bitwise;
  t["assign"] = assign;
  t["print"] = print;
  t["gelu"] = gelu;
  t["leaky_relu"] = leaky_relu;
  t["elu"] = elu;
  t["softplus"] = softplus;
  t["silu"] = silu;
  t["square"] = square;
  t["rsqrt"] = rsqrt;
  t["log1p"] = log1p;
  t["expm1"] = expm1;
  t["round"] = round;
  t["isnan"] = isnan;
  t["isinf"] = isinf;
  t["isfinite"] = isfinite;
  t["pow"] = pow;
  t["clip"] = clip;
  t["scale"] = scale;
  t["cast"] = cast;
  t["increment"] = increment;
  t["sum"] = sum;
}

}  // namespace skiff::onnx_export
