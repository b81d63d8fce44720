// What a program variable holds at run time: a dense tensor, a tensor array, sparse
// selected rows, or the step scopes a loop keeps for its backward pass.
#pragma once

#include <memory>
#include <variant>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff {

// A growable list of tensors (written and read by index inside loops).
using TensorArray = std::vector<Tensor>;

// A sparse slice of a [height, ...] tensor: `value[i]` is row `rows[i]`.
// Embedding gradients take this form so only touched rows are updated.
struct SelectedRows {
  std::vector<int64_t> rows;
  Tensor value;
  int64_t height = 0;
};

// Scopes kept by `while` / `conditional_block` for their backward pass. Defined by
// the runtime; the core only carries it.
struct StepScopes;

class Variable {
 public:
  bool is_tensor() const { return std::holds_alternative<Tensor>(value_); }
  bool is_array() const { return std::holds_alternative<TensorArray>(value_); }
  bool is_selected_rows() const { return std::holds_alternative<SelectedRows>(value_); }
  bool is_step_scopes() const {
    return std::holds_alternative<std::shared_ptr<StepScopes>>(value_);
  }
  bool empty() const { return std::holds_alternative<std::monostate>(value_); }

  // The held tensor, turning an empty variable into a tensor first.
  Tensor* mutable_tensor() { return get_or_make<Tensor>(); }
  TensorArray* mutable_array() { return get_or_make<TensorArray>(); }
  SelectedRows* mutable_selected_rows() { return get_or_make<SelectedRows>(); }
  std::shared_ptr<StepScopes>* mutable_step_scopes() {
    return get_or_make<std::shared_ptr<StepScopes>>();
  }

  // The held tensor; nullptr when the variable holds something else or nothing.
  const Tensor* tensor() const { return std::get_if<Tensor>(&value_); }
  const TensorArray* array() const { return std::get_if<TensorArray>(&value_); }
  const SelectedRows* selected_rows() const { return std::get_if<SelectedRows>(&value_); }
  const std::shared_ptr<StepScopes>* step_scopes() const {
    return std::get_if<std::shared_ptr<StepScopes>>(&value_);
  }

  void clear() { value_ = std::monostate{}; }
  // Replaces the content with a dense tensor (sharing its storage).
  void set(Tensor t) { value_ = std::move(t); }

 private:
  template <typename T>
  T* get_or_make() {
    if (!std::holds_alternative<T>(value_)) value_ = T{};
    return &std::get<T>(value_);
  }

  std::variant<std::monostate, Tensor, TensorArray, SelectedRows, std::shared_ptr<StepScopes>>
      value_;
};

}  // namespace skiff
