#include "skiff/eager/saved_hooks.h"

#include <vector>

#include "skiff/core/error.h"

namespace skiff::eager {

namespace {
thread_local std::vector<std::shared_ptr<const SavedValueHooks>> g_hooks;
thread_local bool g_paused = false;
}  // namespace

void push_saved_value_hooks(std::shared_ptr<const SavedValueHooks> hooks) {
  g_hooks.push_back(std::move(hooks));
}

void pop_saved_value_hooks() {
  SKIFF_CHECK(!g_hooks.empty(), "saved_tensors_hooks: exit without a matching enter");
  g_hooks.pop_back();
}

std::shared_ptr<const SavedValueHooks> saved_value_hooks() {
  return g_hooks.empty() || g_paused ? nullptr : g_hooks.back();
}

SavedValueHooksPause::SavedValueHooksPause() : paused_(g_paused) { g_paused = true; }
SavedValueHooksPause::~SavedValueHooksPause() { g_paused = paused_; }

}  // namespace skiff::eager
