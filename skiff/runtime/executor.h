// The interpreter. `prepare` turns a block into instructions once (kernels chosen by
// place and dtype, attrs defaulted, sub-blocks prepared, temporaries' last uses
// found); `run` binds them to a scope and calls the kernels in order. Binding is
// cached, so running the same prepared block in the same scope again (a loop body,
// a training step) costs only the kernel calls.
//
//   Executor exe;
//   Scope scope;
//   exe.run(startup, &scope);                          // initialize parameters
//   auto prepared = exe.prepare(main, {"loss"});
//   for (...) {
//     feed(&scope, "x", batch);
//     exe.run(*prepared, &scope);
//     float loss = scope.find_var("loss")->tensor()->item<float>();
//   }
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "skiff/core/place.h"
#include "skiff/core/tensor.h"
#include "skiff/ir/program.h"
#include "skiff/runtime/scope.h"

namespace skiff {

struct PreparedBlock;

class Executor {
 public:
  explicit Executor(Place place = cpu_place()) : place_(place) {}

  // Prepares block 0 of `program`; `keep` names variables whose values must survive
  // the run (fetch targets): they are never freed as temporaries. `program` must
  // outlive the result.
  std::shared_ptr<PreparedBlock> prepare(const Program& program,
                                         const std::vector<std::string>& keep = {}) const;
  // Runs a prepared block in `scope`.
  void run(PreparedBlock& block, Scope* scope) const;

  // One-shot convenience: feeds (checked against the declared dtype and shape),
  // prepares block 0, runs it in `scope`, and returns the fetched tensors.
  std::vector<Tensor> run(const Program& program, Scope* scope,
                          const std::map<std::string, Tensor>& feeds = {},
                          const std::vector<std::string>& fetches = {}) const;

 private:
  Place place_;
};

// Puts `value` into variable `name` of `scope`, checking it against the program's
// declaration in block 0 (dtype, rank, known dims); errors name the variable.
void feed(const Program& program, Scope* scope, const std::string& name, const Tensor& value);
// The dense tensor held by `name` (searched from `scope` up); errors if absent.
Tensor fetch(const Scope& scope, const std::string& name);

}  // namespace skiff
