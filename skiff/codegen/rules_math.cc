// Emitter rules of the tensor and math families where the generated code differs from
// the op's binding: fill_zeros_like, assign and sum on tensor arrays and selected rows,
// and the static-shape fast paths of increment, comparisons, elementwise arithmetic,
// activations and matmul, which fall back to the binding.
#include "skiff/codegen/op_rules.h"
#include "skiff/codegen/program_emitter.h"

namespace skiff::codegen {

namespace {

// ---- tensor arrays and selected rows

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

void emit_increment(OpEmitter& e) {
  if (!emit_static_increment(e)) emit_binding(e);
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

// ---- static fast paths of comparisons and elementwise arithmetic

template <const char* kCppOp>
void emit_compare(OpEmitter& e) {
  if (!emit_static_compare(e, kCppOp)) emit_binding(e);
}

// add / sub / mul / div with numpy broadcasting (max / min keep the kernel's NaN rule); a
// fused activation takes the binding.
template <const char* kCppOp>
void emit_binary(OpEmitter& e) {
  if (e.attr<int64_t>("axis") != -1 || !e.attr<std::string>("fuse_activation").empty() ||
      !emit_static_binary(e, kCppOp))
    emit_binding(e);
}

constexpr char kLess[] = "<", kLessEqual[] = "<=", kGreater[] = ">",
               kGreaterEqual[] = ">=", kEqual[] = "==", kNotEqual[] = "!=";
constexpr char kAdd[] = "+", kSub[] = "-", kMul[] = "*", kDiv[] = "/";

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
  if (!e.attr<std::string>("out_dtype").empty() || !emit_static_matmul(e)) emit_binding(e);
}

}  // namespace

void add_math_rules(RuleTable& t) {
  t["fill_zeros_like"] = emit_fill_zeros_like;
  t["assign"] = emit_assign;
  t["increment"] = emit_increment;
  t["sum"] = emit_sum;

  t["less_than"] = emit_compare<kLess>;
  t["less_equal"] = emit_compare<kLessEqual>;
  t["greater_than"] = emit_compare<kGreater>;
  t["greater_equal"] = emit_compare<kGreaterEqual>;
  t["equal"] = emit_compare<kEqual>;
  t["not_equal"] = emit_compare<kNotEqual>;
  t["elementwise_add"] = emit_binary<kAdd>;
  t["elementwise_sub"] = emit_binary<kSub>;
  t["elementwise_mul"] = emit_binary<kMul>;
  t["elementwise_div"] = emit_binary<kDiv>;

  t["relu"] = emit_activation<emit_static_relu>;
  t["tanh"] = emit_activation<static_tanh>;
  t["sigmoid"] = emit_activation<static_sigmoid>;
  t["exp"] = emit_activation<static_exp>;

  t["matmul"] = emit_matmul;
}

}  // namespace skiff::codegen
