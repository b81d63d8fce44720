// Scopes hold the variables of a running program. They form a tree: a loop step's
// scope sees the variables of its parents, and names declared in the step's block
// live in the step scope.
//
//   Scope global;
//   global.var("w")->mutable_tensor()->copy_from(w0);
//   Scope& step = global.new_child();
//   step.find_var("w");   // found in the parent
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "skiff/core/variable.h"

namespace skiff {

class Scope {
 public:
  Scope() : id_(next_id()) {}
  explicit Scope(const Scope* parent) : parent_(parent), id_(next_id()) {}
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  // The variable named `name` in this scope, created (empty) if absent here.
  Variable* var(const std::string& name);
  // The variable in this scope or the nearest ancestor that has it, or nullptr.
  Variable* find_var(const std::string& name) const;
  // The variable in this scope only, or nullptr.
  Variable* find_local(const std::string& name) const;
  // A new child scope owned by this one (lives until this scope dies).
  Scope& new_child();
  const Scope* parent() const { return parent_; }
  // A number no other scope of this process has (prepared blocks cache bindings by it).
  uint64_t id() const { return id_; }
  // Names of the variables held in this scope (not its ancestors).
  std::vector<std::string> local_names() const;

 private:
  static uint64_t next_id();

  const Scope* parent_ = nullptr;
  uint64_t id_;
  std::unordered_map<std::string, std::unique_ptr<Variable>> vars_;
  std::vector<std::unique_ptr<Scope>> children_;
};

// The scopes a `while` or `conditional_block` kept, one per step, for its backward.
struct StepScopes {
  std::vector<std::unique_ptr<Scope>> scopes;
};

}  // namespace skiff
