// Emitter rules of the tensor and math families: creation, copies, casts, comparisons,
// elementwise arithmetic, activations, matmul and reductions, and their grad ops. Each
// rule writes the call that the op's kernel wrapper in ops/ makes, with the attributes
// turned into literals at compile time.
#include "skiff/codegen/op_rules.h"
#include "skiff/codegen/program_emitter.h"
#include "skiff/kernels/cpu/reduce.h"

namespace skiff::codegen {

namespace {

using Ints = std::vector<int64_t>;

// ---- creation and copies

void emit_fill_constant(OpEmitter& e) {
  e.include("fill");
  e.line("k::fill_constant(" + OpEmitter::shape_lit(Shape(e.attr<Ints>("shape"))) + ", " +
         OpEmitter::dtype_lit(dtype_from_name(e.attr<std::string>("dtype"))) + ", " +
         OpEmitter::lit(e.attr<double>("value")) + ", " + e.out("Out") + ");");
}

void emit_fill_any_like(OpEmitter& e) {
  e.include("fill");
  const std::string name = e.attr<std::string>("dtype");
  const std::string dtype =
      name.empty() ? e.in("X") + ".dtype()" : OpEmitter::dtype_lit(dtype_from_name(name));
  e.line("k::fill_constant(" + e.in("X") + ".shape(), " + dtype + ", " +
         OpEmitter::lit(e.attr<double>("value")) + ", " + e.out("Out") + ");");
}

// A tensor, or a tensor array (an array of zeros entry by entry).
void emit_fill_zeros_like(OpEmitter& e) {
  e.include("fill");
  if (e.in_kind("X") == VarKind::kTensorArray) {
    e.line("k::zeros_like(" + e.in_array("X") + ", " + e.out_array("Out") + ");");
    return;
  }
  e.line("k::zeros_like(" + e.in("X") + ", " + e.out("Out") + ");");
}

// A copy of a tensor, a tensor array or selected rows.
void emit_assign(OpEmitter& e) {
  if (e.same_var("X", "Out")) {
    e.line("// (X and Out are one variable: nothing to copy)");
    e.program_emitter().count_fast_op();
    return;
  }
  if (e.in_kind("X") == VarKind::kTensorArray) {
    e.include("copy");
    e.line("k::copy_array(" + e.in_array("X") + ", " + e.out_array("Out") + ");");
    return;
  }
  if (e.in_kind("X") == VarKind::kSelectedRows) {
    e.include("copy");
    e.line("k::copy_rows(" + e.in_rows("X") + ", " + e.out_rows("Out") + ");");
    return;
  }
  if (emit_static_assign(e)) return;
  e.line(e.out_ref("Out") + ".copy_from(" + e.in("X") + ");");
}

void emit_cast(OpEmitter& e) {
  e.include("cast");
  e.line("k::cast(" + e.in("X") + ", " +
         OpEmitter::dtype_lit(dtype_from_name(e.attr<std::string>("out_dtype"))) + ", " +
         e.out("Out") + ");");
}

void emit_increment(OpEmitter& e) {
  if (emit_static_increment(e)) return;
  e.include("cast");
  e.line("k::increment(" + e.in("X") + ", " + OpEmitter::lit(e.attr<double>("step")) + ", " +
         e.out("Out") + ");");
}

// The present X of a sum, as the expressions `in` gives for their kind.
std::vector<std::string> sum_terms(OpEmitter& e, VarKind kind) {
  std::vector<std::string> terms;
  for (int i = 0; i < e.in_count("X"); ++i) {
    if (!e.has_in("X", i) || e.in_kind("X", i) != kind) continue;
    terms.push_back(kind == VarKind::kTensorArray    ? e.in_array("X", i)
                    : kind == VarKind::kSelectedRows ? e.in_rows("X", i)
                                                     : e.in("X", i));
  }
  return terms;
}

// "{&a, &b}"
std::string address_list(const std::vector<std::string>& exprs) {
  std::string out;
  for (const std::string& x : exprs) out += (out.empty() ? "&" : ", &") + x;
  return "{" + out + "}";
}

// sum (gradient accumulation). Dense tensors: Out = X[0] + X[1] + ...; when Out is one of
// the inputs the others are added into it. Tensor arrays: entry by entry. Selected rows:
// their entries concatenated; with dense tensors, added into the dense sum.
void emit_sum(OpEmitter& e) {
  e.include("accumulate");
  const std::vector<std::string> arrays = sum_terms(e, VarKind::kTensorArray);
  const std::vector<std::string> rows = sum_terms(e, VarKind::kSelectedRows);
  const std::vector<std::string> dense = sum_terms(e, VarKind::kDenseTensor);
  if (!arrays.empty()) {
    SKIFF_CHECK(rows.empty() && dense.empty(), e.what(),
                ": tensor arrays add only to tensor arrays");
    e.include("tensor_array");
    e.line("k::sum_arrays(" + address_list(arrays) + ", " + e.out_array("Out") + ");");
    return;
  }
  if (!rows.empty() && dense.empty()) {
    e.include("selected_rows");
    e.line("k::concat_rows(" + address_list(rows) + ", " + e.out_rows("Out") + ");");
    return;
  }
  const std::string out = e.out_ref("Out");
  std::vector<std::string> terms;
  bool in_place = false;
  for (const std::string& x : dense) {
    if (x == out) {
      in_place = true;
    } else {
      terms.push_back(x);
    }
  }
  SKIFF_CHECK(in_place || !terms.empty(), e.what(), " has no inputs");
  if (!rows.empty()) {
    // Selected rows into a dense sum: accumulated apart when Out is an input, as the
    // kernel wrapper does.
    e.include("selected_rows");
    e.open("{");
    const std::string acc = in_place ? "sum_dense" : out;
    if (in_place) e.line("Tensor sum_dense;");
    e.line(acc + ".copy_from(" + dense[0] + ");");
    for (size_t i = 1; i < dense.size(); ++i)
      e.line("k::add_inplace(" + dense[i] + ", &" + acc + ");");
    for (const std::string& r : rows) e.line("k::scatter_add_rows(" + r + ", &" + acc + ");");
    if (in_place) e.line(out + " = std::move(sum_dense);");
    e.close();
    return;
  }
  size_t first = 0;
  if (!in_place) e.line(out + ".copy_from(" + terms[first++] + ");");
  for (size_t i = first; i < terms.size(); ++i)
    e.line("k::add_inplace(" + terms[i] + ", &" + out + ");");
}

// ---- comparisons and logic

const char* compare_operator(const std::string& op) {
  if (op == "kLess") return "<";
  if (op == "kLessEqual") return "<=";
  if (op == "kGreater") return ">";
  if (op == "kGreaterEqual") return ">=";
  if (op == "kEqual") return "==";
  return "!=";
}

template <const char* kOp>
void emit_compare(OpEmitter& e) {
  if (emit_static_compare(e, compare_operator(kOp))) return;
  e.include("compare");
  e.line(std::string("k::compare(k::CompareOp::") + kOp + ", " + e.in("X") + ", " + e.in("Y") +
         ", " + e.out("Out") + ");");
}

constexpr char kLess[] = "kLess", kLessEqual[] = "kLessEqual", kGreater[] = "kGreater",
               kGreaterEqual[] = "kGreaterEqual", kEqual[] = "kEqual", kNotEqual[] = "kNotEqual";

template <const char* kOp>
void emit_logical(OpEmitter& e) {
  e.include("compare");
  e.line(std::string("k::logical(k::LogicalOp::") + kOp + ", " + e.in("X") + ", " + e.in("Y") +
         ", " + e.out("Out") + ");");
}

constexpr char kAnd[] = "kAnd", kOr[] = "kOr", kXor[] = "kXor";

void emit_logical_not(OpEmitter& e) {
  e.include("compare");
  e.line("k::logical_not(" + e.in("X") + ", " + e.out("Out") + ");");
}

// ---- elementwise arithmetic

// The broadcast axis as the kernel wrapper picks it: -1 for equal shapes.
std::string axis_expr(OpEmitter& e) {
  const int64_t axis = e.attr<int64_t>("axis");
  if (axis == -1) return "-1";
  return e.in("X") + ".shape() == " + e.in("Y") + ".shape() ? -1 : " + OpEmitter::lit(axis);
}

// The C++ operator of add / sub / mul / div, or nullptr (max / min keep the kernel's NaN
// rule).
const char* binary_operator(const std::string& op) {
  if (op == "kAdd") return "+";
  if (op == "kSub") return "-";
  if (op == "kMul") return "*";
  if (op == "kDiv") return "/";
  return nullptr;
}

template <const char* kOp>
void emit_binary(OpEmitter& e) {
  const char* cpp_op = binary_operator(kOp);
  if (cpp_op && e.attr<int64_t>("axis") == -1 && emit_static_binary(e, cpp_op)) return;
  e.include("elementwise");
  e.line(std::string("k::elementwise_binary(k::BinaryOp::") + kOp + ", " + e.in("X") + ", " +
         e.in("Y") + ", " + e.out("Out") + ", " + axis_expr(e) + ");");
}

template <const char* kOp>
void emit_binary_grad(OpEmitter& e) {
  e.include("elementwise");
  if (!e.has_out("X@GRAD") && !e.has_out("Y@GRAD")) return;
  const std::string out = e.has_in("Out") ? e.in("Out") : "kNoTensor";
  e.line(std::string("k::elementwise_binary_grad(k::BinaryOp::") + kOp + ", " + e.in("X") + ", " +
         e.in("Y") + ", " + out + ", " + e.in("Out@GRAD") + ", " + e.out("X@GRAD") + ", " +
         e.out("Y@GRAD") + ", " + axis_expr(e) + ");");
}

constexpr char kAdd[] = "kAdd", kSub[] = "kSub", kMul[] = "kMul", kDiv[] = "kDiv", kMax[] = "kMax",
               kMin[] = "kMin";

void emit_scale(OpEmitter& e) {
  e.include("elementwise");
  e.line("k::scale(" + e.in("X") + ", " + OpEmitter::lit(e.attr<double>("scale")) + ", " +
         OpEmitter::lit(e.attr<double>("bias")) + ", " +
         OpEmitter::lit(e.attr<bool>("bias_after_scale")) + ", " + e.out("Out") + ");");
}

// ---- activations

// relu, tanh, sigmoid, exp: a static fast path where the shapes allow, else the binding.
template <bool (*kFastPath)(OpEmitter&)>
void emit_activation(OpEmitter& e) {
  if (!kFastPath(e)) emit_binding(e);
}

bool static_tanh(OpEmitter& e) { return emit_static_eigen_activation(e, "tanh"); }
bool static_sigmoid(OpEmitter& e) { return emit_static_eigen_activation(e, "logistic"); }
bool static_exp(OpEmitter& e) { return emit_static_eigen_activation(e, "exp"); }

// ---- matmul

void emit_matmul(OpEmitter& e) {
  const std::string out_dtype = e.attr<std::string>("out_dtype");
  if (out_dtype.empty() && emit_static_matmul(e)) return;
  e.include("matmul");
  const std::string dtype =
      out_dtype.empty() ? "" : ", " + OpEmitter::dtype_lit(dtype_from_name(out_dtype));
  e.line("k::matmul(" + e.in("X") + ", " + e.in("Y") + ", " +
         OpEmitter::lit(e.attr<bool>("trans_x")) + ", " + OpEmitter::lit(e.attr<bool>("trans_y")) +
         dtype + ", " + e.out("Out") + ");");
}

void emit_matmul_grad(OpEmitter& e) {
  e.include("matmul");
  if (!e.has_out("X@GRAD") && !e.has_out("Y@GRAD")) return;
  e.line("k::matmul_grad(" + e.in("X") + ", " + e.in("Y") + ", " + e.in("Out@GRAD") + ", " +
         OpEmitter::lit(e.attr<bool>("trans_x")) + ", " + OpEmitter::lit(e.attr<bool>("trans_y")) +
         ", " + e.out("X@GRAD") + ", " + e.out("Y@GRAD") + ");");
}

// ---- reductions

// The reduced axes as a bit mask, fixed at compile time by X's declared rank.
std::string reduce_axes_lit(OpEmitter& e) {
  const VarDesc* x = e.in_var("X");
  SKIFF_CHECK(x, e.what(), ": X is not declared, so its rank is unknown");
  const uint32_t axes =
      kernels::reduce_axes(x->shape.rank(), e.attr<Ints>("dim"), e.attr<bool>("reduce_all"));
  return std::to_string(axes) + "u";
}

template <bool kMean>
void emit_reduce(OpEmitter& e) {
  e.include("reduce");
  e.line(std::string(kMean ? "k::reduce_mean(" : "k::reduce_sum(") + e.in("X") + ", " +
         reduce_axes_lit(e) + ", " + OpEmitter::lit(e.attr<bool>("keep_dim")) + ", " +
         e.out("Out") + ");");
}

template <bool kMean>
void emit_reduce_grad(OpEmitter& e) {
  e.include("reduce");
  if (!e.has_out("X@GRAD")) return;
  e.line(std::string(kMean ? "k::reduce_mean_grad(" : "k::reduce_sum_grad(") + e.in("Out@GRAD") +
         ", " + e.in("X") + ".shape(), " + reduce_axes_lit(e) + ", " + e.out("X@GRAD") + ");");
}

// ---- running reductions (sequence_math) and the scatter of cummax / cummin gradients

void emit_cumsum(OpEmitter& e) {
  e.include("sequence_math");
  e.line("k::cumsum(" + e.in("X") + ", " + OpEmitter::lit(e.attr<int64_t>("axis")) + ", " +
         OpEmitter::lit(e.attr<bool>("exclusive")) + ", " +
         OpEmitter::lit(e.attr<bool>("reverse")) + ", " + e.out("Out") + ");");
}

// cumprod, logcumsumexp: k::<op>(X, axis, Out).
template <const char* kKernel>
void emit_scan(OpEmitter& e) {
  e.include("sequence_math");
  e.line(std::string("k::") + kKernel + "(" + e.in("X") + ", " +
         OpEmitter::lit(e.attr<int64_t>("axis")) + ", " + e.out("Out") + ");");
}

// cumprod_grad, logcumsumexp_grad: k::<op>_grad(X, Out, Out@GRAD, axis, X@GRAD).
template <const char* kKernel>
void emit_scan_grad(OpEmitter& e) {
  e.include("sequence_math");
  if (!e.has_out("X@GRAD")) return;
  e.line(std::string("k::") + kKernel + "_grad(" + e.in("X") + ", " + e.in("Out") + ", " +
         e.in("Out@GRAD") + ", " + OpEmitter::lit(e.attr<int64_t>("axis")) + ", " +
         e.out("X@GRAD") + ");");
}

template <bool kLargest>
void emit_cum_extreme(OpEmitter& e) {
  e.include("sequence_math");
  e.line("k::cum_extreme(" + e.in("X") + ", " + OpEmitter::lit(e.attr<int64_t>("axis")) + ", " +
         OpEmitter::lit(kLargest) + ", " + e.out("Out") + ", " + e.out("Indices") + ");");
}

constexpr char kCumprod[] = "cumprod";
constexpr char kLogcumsumexp[] = "logcumsumexp";

}  // namespace

void add_math_rules(RuleTable& t) {
  t["fill_constant"] = emit_fill_constant;
  t["fill_any_like"] = emit_fill_any_like;
  t["fill_zeros_like"] = emit_fill_zeros_like;
  t["assign"] = emit_assign;
  t["cast"] = emit_cast;
  t["increment"] = emit_increment;
  t["sum"] = emit_sum;

  t["less_than"] = emit_compare<kLess>;
  t["less_equal"] = emit_compare<kLessEqual>;
  t["greater_than"] = emit_compare<kGreater>;
  t["greater_equal"] = emit_compare<kGreaterEqual>;
  t["equal"] = emit_compare<kEqual>;
  t["not_equal"] = emit_compare<kNotEqual>;
  t["logical_and"] = emit_logical<kAnd>;
  t["logical_or"] = emit_logical<kOr>;
  t["logical_xor"] = emit_logical<kXor>;
  t["logical_not"] = emit_logical_not;

  t["elementwise_add"] = emit_binary<kAdd>;
  t["elementwise_sub"] = emit_binary<kSub>;
  t["elementwise_mul"] = emit_binary<kMul>;
  t["elementwise_div"] = emit_binary<kDiv>;
  t["elementwise_max"] = emit_binary<kMax>;
  t["elementwise_min"] = emit_binary<kMin>;
  t["elementwise_add_grad"] = emit_binary_grad<kAdd>;
  t["elementwise_sub_grad"] = emit_binary_grad<kSub>;
  t["elementwise_mul_grad"] = emit_binary_grad<kMul>;
  t["elementwise_div_grad"] = emit_binary_grad<kDiv>;
  t["elementwise_max_grad"] = emit_binary_grad<kMax>;
  t["elementwise_min_grad"] = emit_binary_grad<kMin>;
  t["scale"] = emit_scale;

  t["relu"] = emit_activation<emit_static_relu>;
  t["tanh"] = emit_activation<static_tanh>;
  t["sigmoid"] = emit_activation<static_sigmoid>;
  t["exp"] = emit_activation<static_exp>;

  t["matmul"] = emit_matmul;
  t["matmul_grad"] = emit_matmul_grad;
  t["reduce_mean"] = emit_reduce<true>;
  t["reduce_sum"] = emit_reduce<false>;
  t["reduce_mean_grad"] = emit_reduce_grad<true>;
  t["reduce_sum_grad"] = emit_reduce_grad<false>;
  t["cumsum"] = emit_cumsum;
  t["cumprod"] = emit_scan<kCumprod>;
  t["cumprod_grad"] = emit_scan_grad<kCumprod>;
  t["logcumsumexp"] = emit_scan<kLogcumsumexp>;
  t["logcumsumexp_grad"] = emit_scan_grad<kLogcumsumexp>;
  t["cummax"] = emit_cum_extreme<true>;
  t["cummin"] = emit_cum_extreme<false>;
}

}  // namespace skiff::codegen
