#include "skiff/runtime/scope.h"

#include <atomic>

namespace skiff {

uint64_t Scope::next_id() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

Variable* Scope::var(const std::string& name) {
  auto& slot = vars_[name];
  if (!slot) slot = std::make_unique<Variable>();
  return slot.get();
}

Variable* Scope::find_local(const std::string& name) const {
  auto it = vars_.find(name);
  return it == vars_.end() ? nullptr : it->second.get();
}

Variable* Scope::find_var(const std::string& name) const {
  for (const Scope* s = this; s; s = s->parent_) {
    if (Variable* v = s->find_local(name)) return v;
  }
  return nullptr;
}

Scope& Scope::new_child() {
  children_.push_back(std::make_unique<Scope>(this));
  return *children_.back();
}

std::vector<std::string> Scope::local_names() const {
  std::vector<std::string> out;
  out.reserve(vars_.size());
  for (const auto& kv : vars_) out.push_back(kv.first);
  return out;
}

}  // namespace skiff
