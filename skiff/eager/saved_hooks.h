// Hooks on the values the tape saves for gradients (Paddle's saved_tensors_hooks): while
// a pair is pushed, each value an eagerly recorded op saves is kept as pack(value), and
// its grad ops get unpack(packed) back (to move saved activations elsewhere, say).
//
//   push_saved_value_hooks(std::make_shared<SavedValueHooks>(SavedValueHooks{pack, unpack}));
//   ... ops recorded here save packed values ...
//   pop_saved_value_hooks();
#pragma once

#include <functional>
#include <memory>

#include "skiff/core/variable.h"

namespace skiff::eager {

struct SavedValueHooks {
  std::function<std::shared_ptr<void>(const Variable& value)> pack;
  std::function<Variable(const std::shared_ptr<void>& packed)> unpack;
};

// The hooks of this thread, innermost last.
void push_saved_value_hooks(std::shared_ptr<const SavedValueHooks> hooks);
void pop_saved_value_hooks();
// The innermost hooks of this thread, or nullptr.
std::shared_ptr<const SavedValueHooks> saved_value_hooks();

// Runs pack hooks without hooks of their own (a hook's own ops save plain values).
class SavedValueHooksPause {
 public:
  SavedValueHooksPause();
  ~SavedValueHooksPause();
  SavedValueHooksPause(const SavedValueHooksPause&) = delete;
  SavedValueHooksPause& operator=(const SavedValueHooksPause&) = delete;

 private:
  bool paused_;
};

}  // namespace skiff::eager
