// Programs called like ops from eager code (what to_static builds on). A traced program
// is registered once per input signature; the `run_program` op runs it on eager
// tensors, and its grad op `run_program_grad` runs the program's backward in the scope
// the forward kept, so gradients reach the eager tape like any op's.
//
//   int64_t id = register_program_function(program, {"x", "fc.w_0"}, {"y"});
//   AttrMap a;  a.set("function", id);  a.set("wants_grad", std::vector<int64_t>{1, 1});
//   eager::EagerOp call("run_program", a, {1, 1});      // Out, OutScope
//   auto y = call.call({{x, w}})[0][0];                  // backward reaches x and w
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "skiff/ir/program.h"
#include "skiff/runtime/scope.h"

namespace skiff {

class OpRegistry;
struct PreparedBlock;

// The program split for training with one set of wanted gradients: the forward part
// (it keeps what the backward reads) and the backward part, run in the same scope.
struct ProgramFunctionVariant {
  Program forward;
  Program backward;
  // Per output: the variable its gradient is fed into ("" for non-floating outputs).
  std::vector<std::string> output_grads;
  // Per input: its gradient variable ("" when none is computed).
  std::vector<std::string> input_grads;
  std::shared_ptr<PreparedBlock> forward_block, backward_block;
};

// A registered program: block 0 reads `inputs` (data and parameters alike, fed on
// every call) and produces `outputs`.
struct ProgramFunction {
  std::vector<std::string> inputs, outputs;
  Program program;  // as traced; run as is when no gradient is wanted
  std::shared_ptr<PreparedBlock> infer_block;
  Scope infer_scope;  // reused by calls that want no gradient
  // Training variants by the wanted-gradient mask (one entry per input), built lazily.
  std::map<std::vector<int64_t>, std::unique_ptr<ProgramFunctionVariant>> variants;
  std::mutex mutex;

  // The variant for `wants` (one entry per input), built on first use.
  ProgramFunctionVariant& variant(const std::vector<int64_t>& wants);
  // The declaration of block-0 variable `name`; throws when undeclared.
  const VarDesc& var(const std::string& name) const;
};

// Registers `program` (copied) as a function; every name must be declared in block 0.
// Returns the id the run_program ops' `function` attribute takes.
int64_t register_program_function(const Program& program, std::vector<std::string> inputs,
                                  std::vector<std::string> outputs);
// The registered function; throws skiff::Error for an unknown (or released) id.
std::shared_ptr<ProgramFunction> find_program_function(int64_t id);
// Forgets a function (calls already running keep it alive).
void release_program_function(int64_t id);

// Builds a training variant: copies `program`, appends the vector-Jacobian product of
// the outputs with fed output gradients, and splits forward from backward.
std::unique_ptr<ProgramFunctionVariant> make_program_variant(const ProgramFunction& fn,
                                                             const std::vector<int64_t>& wants);

// Registers run_program and run_program_grad (through an OpRegistrar in
// run_program_op.cc: the runtime adds its ops to the registry; ops does not call up).
void register_run_program_ops(OpRegistry& r);

}  // namespace skiff
