// The executor's form of a block: instructions with chosen kernels and, once bound
// to a scope, resolved variable pointers. Internal to the runtime.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "skiff/core/place.h"
#include "skiff/ir/program.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/runtime/buffer_pool.h"
#include "skiff/runtime/scope.h"

namespace skiff {

class Executor;
struct PreparedBlock;

struct Instruction {
  OpDesc op;  // the program's op with default attrs filled in
  const OpInfo* info = nullptr;
  KernelFn kernel = nullptr;  // null for ops that run sub-blocks
  std::unique_ptr<KernelContext> ctx;
  std::vector<std::shared_ptr<PreparedBlock>> sub_blocks;  // indexed like the op's blocks
  std::vector<std::string> dead_after;  // temporaries whose last use is this instruction
  std::vector<Variable*> release;       // the same, bound
  std::vector<std::string> born_here;   // temporaries this instruction writes first
  std::vector<Variable*> born;          // the same, bound
  std::vector<size_t> born_bytes;       // their sizes in the last run (0: unknown)
  std::vector<VarKind> born_kinds;      // dense tensors or selected rows
  // Ops that run a sub-block without keeping step scopes reuse one child scope.
  std::unique_ptr<Scope> work_scope;
  uint64_t work_parent = 0;
};

struct PreparedBlock {
  const Program* program = nullptr;
  int block_idx = 0;
  Place place;
  std::vector<std::unique_ptr<Instruction>> instrs;
  // Non-persistable variables declared in this block: created in the run scope.
  std::vector<std::string> locals;
  // Id of the scope the instructions are bound to (0: none).
  uint64_t bound_scope = 0;
  // Buffers of dead temporaries, reused by temporaries born later.
  BufferPool pool;

  // Resolves every instruction's variables in `scope` (creating locals there).
  void bind(Scope* scope);
  // Drops the values of this block's locals in `scope` (after a loop ends).
  void release_locals(Scope* scope) const;
};

// Prepares block `block_idx`; with `free_temporaries` each temporary is released
// after its last use (never in loop bodies, whose buffers are reused every step).
std::shared_ptr<PreparedBlock> prepare_block(const Program& program, int block_idx, Place place,
                                             bool free_temporaries,
                                             const std::vector<std::string>& keep);

// Runs the instructions of `block` in `scope` (binding first if needed).
void run_block(PreparedBlock& block, Scope* scope);
// Runs instructions [begin, end) of `block` in `scope` (binding first if needed).
void run_instructions(PreparedBlock& block, Scope* scope, size_t begin, size_t end);

// Control flow (control_flow.cc): runs an instruction whose op runs sub-blocks.
void run_block_op(Instruction& instr, Scope* scope);

}  // namespace skiff
