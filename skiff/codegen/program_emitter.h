// The visitor at the heart of the generator: walks a program's blocks and ops and writes
// one C++ statement group per op through the op's emitter rule (op_emitter.h), with
// `while` and `conditional_block` as native loops and branches around their sub-blocks.
// Every variable of every block becomes one field of a `Vars` struct (one per context), so
// loop bodies reuse their buffers from step to step; the field's C++ type follows the
// variable's kind: Tensor, TensorArray or SelectedRows (cpp_type).
//
//   ProgramEmitter emitter(program);
//   CppWriter body;
//   emitter.emit_block(0, &body);       // the statements of run_program(Vars& v)
//   for (const ProgramVar& var : emitter.vars()) ...   // the fields of Vars
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "skiff/codegen/cpp_writer.h"
#include "skiff/ir/program.h"

namespace skiff::codegen {

class OpEmitter;

// A variable of the program as the generated code holds it.
struct ProgramVar {
  std::string name;               // the program's name
  int block = 0;                  // the block that declares it (or first uses it, if undeclared)
  std::string field;              // the C++ field of Vars
  const VarDesc* desc = nullptr;  // its declaration, when there is one
  VarKind kind = VarKind::kDenseTensor;  // declared kind (dense when undeclared)
  bool written = false;                  // some op writes it
  bool written_in_branch = false;        // some op inside a conditional block writes it
};

// A while loop (or an if branch) whose steps are kept for its grad op (append_backward sets
// keep_step_scopes): the generated code keeps one frame per step (a branch: one when it
// ran), holding the body's variables and the values the step read of the carried ones.
// Kept blocks nest: a kept loop inside a kept body keeps its vector of frames in the outer
// step's frame (its StepScopes variable belongs to the outer body), so each outer step
// holds the inner steps it ran, and the outer grad step replays them from there.
struct KeptLoop {
  int block = 0;                     // the block of the while / conditional_block op
  int body = 0;                      // the loop body's (or branch's) block
  bool branch = false;               // a conditional_block, not a while
  std::string scopes_var;            // its StepScopes / Scope variable (a vector of frames)
  int scopes_block = 0;              // the block that owns scopes_var
  std::vector<std::string> carried;  // its Out variables (variables of `block`'s view)
  std::string frame_type;            // "Frame_b1"
  std::string frame_var;             // "f_b1": the frame being written or replayed
};

class ProgramEmitter {
 public:
  // Fills default attributes and resolves every variable; throws skiff::Error naming the
  // op (and its source line) for an op without an emitter rule.
  explicit ProgramEmitter(const Program& program);

  // Writes the statements of block `idx`, sub-blocks inline, into `out`.
  void emit_block(int idx, CppWriter* out);

  // Every variable, in order of first use.
  const std::vector<ProgramVar>& vars() const { return vars_; }
  // The variable `name` of block 0, or nullptr.
  const ProgramVar* block0_var(const std::string& name) const;
  // Kernel families (skiff/kernels/cpu/<family>.h) the emitted statements call.
  const std::set<std::string>& kernel_families() const { return kernel_families_; }
  // Non-persistable variables of block 0 that block 0 reads before it writes them: the
  // program's data inputs when it records no feed names.
  std::vector<std::string> data_vars() const;
  // Number of ops in all blocks.
  int op_count() const;
  // The first op that runs a collective (OpEmitter::what(), "" when none): the model joins
  // the job it is launched in (dist/parallel_env.h).
  const std::string& collective_op() const { return collective_op_; }
  void note_collective(const std::string& what) {
    if (collective_op_.empty()) collective_op_ = what;
  }

  // Loops kept for a backward pass, and the grad blocks of their while_grad ops.
  const std::vector<KeptLoop>& kept_loops() const { return kept_loops_; }
  const std::set<int>& grad_blocks() const { return grad_blocks_; }
  // The kind of variable `name` as an op of `block` sees it.
  VarKind kind_of(int block, const std::string& name) const;
  // True when `v` is a field of Vars (not of a loop frame or a grad step, and not a
  // step-scopes variable).
  bool in_vars(const ProgramVar& v) const;
  // True when the variables of `block` live in a frame (a kept body) or in a backward step
  // (a grad block), not in Vars.
  bool frame_block(int block) const;
  // The kept loop whose StepScopes (or Scope) variable is `v`, or nullptr.
  const KeptLoop* loop_of_scopes(const ProgramVar& v) const;
  // The variable `name` as an op of `block` sees it; throws when it was not seen.
  const ProgramVar& var_of(int block, const std::string& name) const;

  // The rules of `while` and `conditional_block` with keep_step_scopes, and of their grad
  // ops `while_grad` and `conditional_block_grad` (rules_control_flow.cc).
  void emit_kept_block(OpEmitter& e);
  void emit_block_grad(OpEmitter& e);

  // Bound loops. A `while` whose body is all static fast paths (rules_static.cc) binds the
  // data pointers of its variables once, before the loop, so the steps index the buffers
  // directly. Writes the loop and returns true, or writes nothing and returns false.
  bool try_emit_bound_loop(OpEmitter& e, int body);
  // True while a body is emitted for binding: the fast paths then ask bind() for pointers.
  bool binding() const { return bindings_ != nullptr; }
  // The pointer variable bound to the Tensor expression `expr` (registered on first use;
  // `write`: the loop writes it).
  std::string bind(const std::string& expr, const std::string& cpp_type, const Shape& shape,
                   bool write);
  // Called by each fast path that wrote its op.
  void count_fast_op() { ++fast_ops_; }

 private:
  // The block whose variable `name` an op of block `block` refers to.
  int owner_block(int block, const std::string& name) const;
  // The kept loop whose StepScopes variable is `name` as `block` sees it, or nullptr.
  const KeptLoop* loop_of_scopes(int block, const std::string& name) const;
  // The C++ expression of `name` in `block`: "v.<field>", or a frame's field.
  std::string expr_of(int block, const std::string& name) const;
  void find_kept_loops();
  void note_var(int block, const std::string& name, bool written, bool in_branch);
  void collect(int block, bool in_branch);

  const Program& program_;
  std::vector<std::vector<OpDesc>> ops_;  // per block, defaults filled
  std::vector<ProgramVar> vars_;
  std::map<std::pair<int, std::string>, size_t> index_;  // (owner block, name) -> vars_
  std::set<std::string> fields_;
  std::set<std::string> kernel_families_;
  std::string collective_op_;
  CppWriter* out_ = nullptr;
  std::vector<KeptLoop> kept_loops_;
  std::set<int> grad_blocks_;
  // (owner block, name) -> expression, while loop frames or grad steps are being emitted:
  // the variables of each kept body and grad block being written, and the carried values
  // of each frame, innermost last (a nested block adds its own and restores the map).
  std::map<std::pair<int, std::string>, std::string> overrides_;
  // A variable of a bound loop: its Tensor expression, pointer name, type and shape.
  struct Binding {
    std::string expr, name, cpp_type;
    Shape shape;
    bool written = false;
    bool read_first = false;  // the loop reads it before writing it: it must hold a value
  };
  std::vector<Binding>* bindings_ = nullptr;
  bool binding_failed_ = false;
  size_t fast_ops_ = 0;
};

// The C++ type that holds a variable of `kind`: "Tensor", "TensorArray" or
// "SelectedRows"; throws for step scopes (a kept loop's vector of frames).
const char* cpp_type(VarKind kind);

// A C++ identifier made from a variable name ("fc0_w@GRAD" -> "fc0_w_GRAD").
std::string cpp_identifier(const std::string& name);

}  // namespace skiff::codegen
