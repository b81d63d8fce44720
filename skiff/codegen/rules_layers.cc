// Emitter rules of layer ops: batch_norm and layer_norm (with their grad ops), dropout,
// transpose and concat. As elsewhere, each writes the call its kernel wrapper in ops/ makes.
#include "skiff/codegen/op_rules.h"
#include "skiff/kernels/cpu/transpose.h"

namespace skiff::codegen {

namespace {

bool running_stats(OpEmitter& e) {
  return e.attr<bool>("is_test") || e.attr<bool>("use_global_stats");
}

void emit_batch_norm(OpEmitter& e) {
  e.include("norm");
  e.line("k::batch_norm(" + e.in("X") + ", " + e.in("Scale") + ", " + e.in("Bias") + ", " +
         e.in("Mean") + ", " + e.in("Variance") + ", k::BatchNormOptions{" +
         OpEmitter::lit(e.attr<double>("epsilon")) + ", " +
         OpEmitter::lit(e.attr<double>("momentum")) + ", " + OpEmitter::lit(running_stats(e)) +
         "},");
  e.line("              " + e.out("Y") + ", " + e.out("MeanOut") + ", " + e.out("VarianceOut") +
         ", " + e.out("SavedMean") + ", " + e.out("SavedVariance") + ");");
}

void emit_batch_norm_grad(OpEmitter& e) {
  e.include("norm");
  e.line("k::batch_norm_grad(" + e.in("X") + ", " + e.in("Scale") + ", " + e.in("SavedMean") +
         ", " + e.in("SavedVariance") + ", " + e.in("Y@GRAD") + ", " +
         OpEmitter::lit(running_stats(e)) + ", " + e.out("X@GRAD") + ", " + e.out("Scale@GRAD") +
         ", " + e.out("Bias@GRAD") + ");");
}

std::string optional_in(OpEmitter& e, const char* slot) {
  return e.has_in(slot) ? "&" + e.in(slot) : "nullptr";
}

void emit_layer_norm(OpEmitter& e) {
  e.include("norm");
  e.line("k::layer_norm(" + e.in("X") + ", " + optional_in(e, "Scale") + ", " +
         optional_in(e, "Bias") + ", " + OpEmitter::lit(e.attr<int64_t>("begin_norm_axis")) + ", " +
         OpEmitter::lit(e.attr<double>("epsilon")) + ", " + e.out("Y") + ", " + e.out("Mean") +
         ", " + e.out("Variance") + ");");
}

void emit_layer_norm_grad(OpEmitter& e) {
  e.include("norm");
  e.line("k::layer_norm_grad(" + e.in("X") + ", " + optional_in(e, "Scale") + ", " + e.in("Mean") +
         ", " + e.in("Variance") + ", " + e.in("Y@GRAD") + ", " +
         OpEmitter::lit(e.attr<int64_t>("begin_norm_axis")) + ", " +
         OpEmitter::lit(e.attr<double>("epsilon")) + ", " + e.out("X@GRAD") + ", " +
         e.out("Scale@GRAD") + ", " + e.out("Bias@GRAD") + ");");
}

void emit_dropout(OpEmitter& e) {
  e.include("dropout");
  e.line("k::dropout(" + e.in("X") + ", " + OpEmitter::lit(e.attr<double>("dropout_prob")) + ", " +
         OpEmitter::lit(e.attr<bool>("is_test")) + ", " +
         std::to_string(static_cast<uint64_t>(e.attr<int64_t>("seed"))) + "u, k::dropout_mode(" +
         OpEmitter::lit(e.attr<std::string>("dropout_implementation")) + "), " + e.out("Out") +
         ", " + e.out("Mask") + ");");
}

// The permutation of the op's axis attr for X's declared rank, as a literal.
std::string permutation(OpEmitter& e, const char* slot, bool inverse) {
  const VarDesc* x = e.in_var(slot);
  SKIFF_CHECK(x, e.what(), ": ", slot, " is not declared, so its rank is unknown");
  std::vector<int> perm =
      kernels::transpose_permutation(e.attr<std::vector<int64_t>>("axis"), x->shape.rank());
  if (inverse) perm = kernels::inverse_permutation(perm);
  std::string out = "{";
  for (size_t i = 0; i < perm.size(); ++i) out += (i ? ", " : "") + std::to_string(perm[i]);
  return out + "}";
}

void emit_transpose(OpEmitter& e) {
  e.include("transpose");
  const std::string perm = e.unique("permutation");
  e.line("static const std::vector<int> " + perm + " = " + permutation(e, "X", false) + ";");
  e.line("k::transpose(" + e.in("X") + ", " + perm + ", " + e.out("Out") + ");");
}

void emit_transpose_grad(OpEmitter& e) {
  e.include("transpose");
  if (!e.has_out("X@GRAD")) return;
  const std::string perm = e.unique("permutation");
  e.line("static const std::vector<int> " + perm + " = " + permutation(e, "Out@GRAD", true) + ";");
  e.line("k::transpose(" + e.in("Out@GRAD") + ", " + perm + ", " + e.out("X@GRAD") + ");");
}

void emit_concat(OpEmitter& e) {
  e.include("join");
  std::string xs;
  for (int i = 0; i < e.in_count("X"); ++i) {
    SKIFF_CHECK(e.has_in("X", i), e.what(), ": X[", i, "] is empty");
    xs += (i ? ", " : "") + e.in("X", i);
  }
  e.line("k::concat({" + xs + "}, " + OpEmitter::lit(e.attr<int64_t>("axis")) + ", " +
         e.out("Out") + ");");
}

// {&v.a, nullptr, &v.c}: a slot's outputs as the Tensor* list the join kernels take
// (absent ones are skipped).
std::string output_list(OpEmitter& e, const char* slot) {
  std::string outs;
  const int n = static_cast<int>(e.op().output(slot).size());
  for (int i = 0; i < n; ++i) outs += (i ? ", " : "") + e.out(slot, i);
  return "{" + outs + "}";
}

void emit_split(OpEmitter& e) {
  e.include("join");
  const std::string sections = e.unique("split_sections");
  e.line("static const std::vector<int64_t> " + sections + " = " +
         OpEmitter::lit(e.attr<std::vector<int64_t>>("sections")) + ";");
  const std::string axis = OpEmitter::lit(e.attr<int64_t>("axis"));
  e.line("k::split(" + e.in("X") + ", " + axis + ", k::split_sizes(" + e.in("X") + ".shape(), " +
         axis + ", " + OpEmitter::lit(e.attr<int64_t>("num")) + ", " + sections + "), " +
         output_list(e, "Out") + ");");
}

void emit_stack(OpEmitter& e) {
  e.include("join");
  std::string xs;
  for (int i = 0; i < e.in_count("X"); ++i) {
    SKIFF_CHECK(e.has_in("X", i), e.what(), ": X[", i, "] is empty");
    xs += (i ? ", " : "") + e.in("X", i);
  }
  e.line("k::stack({" + xs + "}, " + OpEmitter::lit(e.attr<int64_t>("axis")) + ", " + e.out("Y") +
         ");");
}

void emit_stack_grad(OpEmitter& e) {
  e.include("join");
  e.line("k::unstack(" + e.in("Y@GRAD") + ", " + OpEmitter::lit(e.attr<int64_t>("axis")) + ", " +
         output_list(e, "X@GRAD") + ");");
}

}  // namespace

void add_layer_rules(RuleTable& t) {
  t["batch_norm"] = emit_batch_norm;
  t["batch_norm_grad"] = emit_batch_norm_grad;
  t["layer_norm"] = emit_layer_norm;
  t["layer_norm_grad"] = emit_layer_norm_grad;
  t["dropout"] = emit_dropout;
  t["transpose"] = emit_transpose;
  t["transpose_grad"] = emit_transpose_grad;
  t["concat"] = emit_concat;
  t["split"] = emit_split;
  t["stack"] = emit_stack;
  t["stack_grad"] = emit_stack_grad;
}

}  // namespace skiff::codegen
