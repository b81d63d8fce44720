// What an emitter rule sees while the program emitter (program_emitter.h) visits one op:
// the op, the C++ expressions of its variables, literal formatting, and the output.
// A rule writes the C++ statements that compute the op by calling the kernel library:
//
//   void emit_tanh(OpEmitter& e) {
//     e.include("activation");
//     e.line("k::activation(k::Activation::kTanh, " + e.in("X") + ", " + e.out("Out") + ");");
//   }
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "skiff/codegen/cpp_writer.h"
#include "skiff/ir/program.h"
#include "skiff/ops/cpp_literal.h"

namespace skiff::codegen {

class ProgramEmitter;

class OpEmitter {
 public:
  // `expr_of` maps a variable name (as seen from a block) to the C++ expression of its
  // value ("v.h"); `emit_block` writes a sub-block's statements inline at the current
  // indentation; `program_emitter` serves the rules of ops that run sub-blocks.
  OpEmitter(const Program& program, int block_idx, int op_idx, const OpDesc& op, CppWriter* out,
            std::set<std::string>* kernel_headers,
            std::function<std::string(int, const std::string&)> expr_of,
            std::function<void(int)> emit_block, ProgramEmitter* program_emitter);

  const OpDesc& op() const { return op_; }
  const Program& program() const { return program_; }
  int block_idx() const { return block_idx_; }

  // Variables of a slot (an absent slot has none; "" marks an unused position).
  int in_count(const char* slot) const { return static_cast<int>(op_.input(slot).size()); }
  bool has_in(const char* slot, int i = 0) const;
  bool has_out(const char* slot, int i = 0) const;
  // The kind of an input or output variable (dense for an absent one). A variable's C++
  // type follows its kind (cpp_type in program_emitter.h).
  VarKind in_kind(const char* slot, int i = 0) const;
  VarKind out_kind(const char* slot, int i = 0) const;
  // The dense input as a `const Tensor&` expression, e.g. "v.h"; throws when absent or
  // of another kind (naming the op, the slot and the kind).
  std::string in(const char* slot, int i = 0) const;
  // The dense output as a `Tensor*` expression, e.g. "&v.h", or "nullptr" when absent.
  std::string out(const char* slot, int i = 0) const;
  // The dense output's tensor expression ("v.h"); throws when absent.
  std::string out_ref(const char* slot, int i = 0) const;
  // The same for tensor arrays (`const TensorArray&`, `TensorArray*`) and selected rows
  // (`const SelectedRows&`, `SelectedRows*`).
  std::string in_array(const char* slot, int i = 0) const;
  std::string out_array(const char* slot, int i = 0) const;
  std::string in_rows(const char* slot, int i = 0) const;
  std::string out_rows(const char* slot, int i = 0) const;
  // An input or output of any kind, as the expression of its value ("v.h"); throws when
  // absent. For rules that take several kinds (in_kind / out_kind tell which).
  std::string in_value(const char* slot, int i = 0) const;
  std::string out_value(const char* slot, int i = 0) const;
  // The declaration of an input or output variable, or nullptr when none is declared.
  const VarDesc* in_var(const char* slot, int i = 0) const;
  const VarDesc* out_var(const char* slot, int i = 0) const;
  // The expression of any variable `name` (of any kind) as this op's block sees it.
  std::string expr(const std::string& name) const;
  ProgramEmitter& program_emitter() const { return *program_emitter_; }
  // True when the input and output name the same variable (an in-place op).
  bool same_var(const char* in_slot, const char* out_slot) const;

  template <typename T>
  T attr(const char* name) const {
    return op_.attr<T>(name);
  }
  template <typename T>
  T attr_or(const char* name, T fallback) const {
    return op_.attr_or<T>(name, fallback);
  }

  // Makes the generated file include skiff/kernels/cpu/<family>.h.
  void include(const std::string& family) { kernel_headers_->insert(family); }
  // Notes that the op runs a collective on a communicator (dist/collective.h): the model
  // then joins the job it is launched in, and builds only for targets that link libskiff.
  void use_communicator();
  // Writes one statement line (or an opening / closing line of a C++ block).
  void line(const std::string& text) { out_->line(text); }
  void open(const std::string& text) { out_->open(text); }
  void close(const std::string& text = "}") { out_->close(text); }
  // Writes the statements of block `idx` inline (a loop body, a branch).
  void block(int idx) { emit_block_(idx); }
  // "<type> at <source>" (or "<type> (block B, op I)"): names the op in runtime errors.
  std::string what() const;
  // A fresh identifier for a constant this op needs ("conv_params_3").
  std::string unique(const std::string& stem) const;

  // C++ literals (ops/cpp_literal.h).
  static std::string lit(double v) { return cpp_literal(v); }
  static std::string lit(int64_t v) { return cpp_literal(v); }
  static std::string lit(bool v) { return cpp_literal(v); }
  static std::string lit(const std::string& s) { return cpp_literal(s); }
  static std::string lit(const std::vector<int64_t>& v) { return cpp_literal(v); }
  static std::string shape_lit(const Shape& s) { return shape_literal(s); }
  static std::string dtype_lit(DType t) { return dtype_literal(t); }

 private:
  std::string var_name(const std::vector<Slot>& slots, const char* slot, int i) const;
  // The expression of a slot's variable after checking that it is present and of `kind`.
  std::string typed(bool input, const char* slot, int i, VarKind kind) const;

  const Program& program_;
  int block_idx_, op_idx_;
  const OpDesc& op_;
  CppWriter* out_;
  std::set<std::string>* kernel_headers_;
  std::function<std::string(int, const std::string&)> expr_of_;
  std::function<void(int)> emit_block_;
  ProgramEmitter* program_emitter_;
};

// A rule: writes the C++ of one op type.
using EmitRule = void (*)(OpEmitter&);

// The rule for `op_type`, or nullptr when there is none.
EmitRule find_emit_rule(const std::string& op_type);
// Every op type that has a rule, sorted (for error messages and docs).
std::vector<std::string> emitted_op_types();

}  // namespace skiff::codegen
