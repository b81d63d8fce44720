#include "skiff/runtime/persistables.h"

namespace skiff {

void save_persistables(const std::string& path, const Program& program, const Scope& scope) {
  NamedTensors tensors;
  for (const std::string& name : persistable_names(program)) {
    const Variable* v = scope.find_var(name);
    const Tensor* t = v ? v->tensor() : nullptr;
    SKIFF_CHECK(t && t->initialized(), "cannot save parameters to '", path,
                "': persistable variable '", name,
                "' has no value in the scope (was the startup program run?)");
    tensors.emplace_back(name, *t);
  }
  save_params(path, tensors);
}

void load_persistables(const std::string& path, const Program& program, Scope* scope) {
  for (auto& [name, t] : load_program_params(path, program)) scope->var(name)->set(t);
}

}  // namespace skiff
