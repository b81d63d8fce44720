#include "skiff/codegen/op_emitter.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "skiff/codegen/op_rules.h"
#include "skiff/codegen/program_emitter.h"
#include "skiff/core/error.h"

namespace skiff::codegen {

OpEmitter::OpEmitter(const Program& program, int block_idx, int op_idx, const OpDesc& op,
                     CppWriter* out, std::set<std::string>* kernel_headers,
                     std::function<std::string(int, const std::string&)> expr_of,
                     std::function<void(int)> emit_block, ProgramEmitter* program_emitter)
    : program_(program),
      block_idx_(block_idx),
      op_idx_(op_idx),
      op_(op),
      out_(out),
      kernel_headers_(kernel_headers),
      expr_of_(std::move(expr_of)),
      emit_block_(std::move(emit_block)),
      program_emitter_(program_emitter) {}

std::string OpEmitter::var_name(const std::vector<Slot>& slots, const char* slot, int i) const {
  for (const Slot& s : slots) {
    if (s.first != slot) continue;
    return i >= 0 && i < static_cast<int>(s.second.size()) ? s.second[i] : std::string();
  }
  return "";
}

bool OpEmitter::has_in(const char* slot, int i) const {
  return !var_name(op_.inputs, slot, i).empty();
}
bool OpEmitter::has_out(const char* slot, int i) const {
  return !var_name(op_.outputs, slot, i).empty();
}

VarKind OpEmitter::in_kind(const char* slot, int i) const {
  const std::string name = var_name(op_.inputs, slot, i);
  return name.empty() ? VarKind::kDenseTensor : program_emitter_->kind_of(block_idx_, name);
}

VarKind OpEmitter::out_kind(const char* slot, int i) const {
  const std::string name = var_name(op_.outputs, slot, i);
  return name.empty() ? VarKind::kDenseTensor : program_emitter_->kind_of(block_idx_, name);
}

std::string OpEmitter::typed(bool input, const char* slot, int i, VarKind kind) const {
  const std::string name = var_name(input ? op_.inputs : op_.outputs, slot, i);
  const char* role = input ? "input " : "output ";
  SKIFF_CHECK(!name.empty(), what(), " has no ", role, slot, "[", i, "]");
  const VarKind actual = program_emitter_->kind_of(block_idx_, name);
  SKIFF_CHECK(actual == kind, what(), ": ", role, slot, "[", i, "] '", name, "' is a ",
              var_kind_name(actual), "; the compiler's rule for ", op_.type, " takes a ",
              var_kind_name(kind), " there");
  return expr_of_(block_idx_, name);
}

std::string OpEmitter::in(const char* slot, int i) const {
  return typed(true, slot, i, VarKind::kDenseTensor);
}

std::string OpEmitter::out(const char* slot, int i) const {
  return has_out(slot, i) ? "&" + typed(false, slot, i, VarKind::kDenseTensor) : "nullptr";
}

std::string OpEmitter::out_ref(const char* slot, int i) const {
  return typed(false, slot, i, VarKind::kDenseTensor);
}

std::string OpEmitter::in_array(const char* slot, int i) const {
  return typed(true, slot, i, VarKind::kTensorArray);
}

std::string OpEmitter::out_array(const char* slot, int i) const {
  return has_out(slot, i) ? "&" + typed(false, slot, i, VarKind::kTensorArray) : "nullptr";
}

std::string OpEmitter::in_rows(const char* slot, int i) const {
  return typed(true, slot, i, VarKind::kSelectedRows);
}

std::string OpEmitter::out_rows(const char* slot, int i) const {
  return has_out(slot, i) ? "&" + typed(false, slot, i, VarKind::kSelectedRows) : "nullptr";
}

std::string OpEmitter::in_value(const char* slot, int i) const {
  return typed(true, slot, i, in_kind(slot, i));
}

std::string OpEmitter::out_value(const char* slot, int i) const {
  return typed(false, slot, i, out_kind(slot, i));
}

const VarDesc* OpEmitter::in_var(const char* slot, int i) const {
  const std::string name = var_name(op_.inputs, slot, i);
  return name.empty() ? nullptr : program_.find_var(block_idx_, name);
}

const VarDesc* OpEmitter::out_var(const char* slot, int i) const {
  const std::string name = var_name(op_.outputs, slot, i);
  return name.empty() ? nullptr : program_.find_var(block_idx_, name);
}

bool OpEmitter::same_var(const char* in_slot, const char* out_slot) const {
  const std::string a = var_name(op_.inputs, in_slot, 0);
  return !a.empty() && a == var_name(op_.outputs, out_slot, 0);
}

std::string OpEmitter::expr(const std::string& name) const { return expr_of_(block_idx_, name); }

std::string OpEmitter::what() const {
  const std::string source = op_.source();
  if (!source.empty()) return op_.type + " at " + source;
  return op_.type + " (block " + std::to_string(block_idx_) + ", op " + std::to_string(op_idx_) +
         ")";
}

void OpEmitter::use_communicator() { program_emitter_->note_collective(what()); }

std::string OpEmitter::unique(const std::string& stem) const {
  return stem + "_b" + std::to_string(block_idx_) + "_" + std::to_string(op_idx_);
}

namespace {

const RuleTable& rule_table() {
  static const RuleTable table = [] {
    RuleTable t;
    add_control_flow_rules(t);
    add_math_rules(t);
    add_tensor_array_rules(t);
    add_collective_rules(t);
    return t;
  }();
  return table;
}

}  // namespace

EmitRule find_emit_rule(const std::string& op_type) {
  auto it = rule_table().find(op_type);
  if (it != rule_table().end()) return it->second;
  return binding_of(op_type) ? emit_binding : nullptr;
}

std::vector<std::string> emitted_op_types() {
  std::set<std::string> out;
  for (const auto& [type, rule] : rule_table()) out.insert(type);
  for (const std::string& type : OpRegistry::global().types())
    if (binding_of(type)) out.insert(type);
  return std::vector<std::string>(out.begin(), out.end());
}

}  // namespace skiff::codegen
