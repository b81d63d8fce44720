#include "skiff/runtime/buffer_pool.h"

namespace skiff {

void BufferPool::recycle(Variable* var) {
  Tensor* t = nullptr;
  if (var->is_tensor()) t = var->mutable_tensor();
  if (var->is_selected_rows()) t = &var->mutable_selected_rows()->value;
  if (t) {
    if (auto storage = t->take_storage()) free_.push_back(std::move(storage));
  }
  var->clear();
}

void BufferPool::provide(Variable* var, size_t bytes, VarKind kind) {
  if (bytes == 0 || free_.empty()) return;
  size_t best = free_.size();
  for (size_t i = 0; i < free_.size(); ++i) {
    if (free_[i]->bytes() >= bytes &&
        (best == free_.size() || free_[i]->bytes() < free_[best]->bytes()))
      best = i;
  }
  if (best == free_.size()) return;
  Tensor* t =
      kind == VarKind::kSelectedRows ? &var->mutable_selected_rows()->value : var->mutable_tensor();
  t->adopt_storage(std::move(free_[best]));
  free_[best] = std::move(free_.back());
  free_.pop_back();
}

size_t BufferPool::pooled_bytes() const {
  size_t n = 0;
  for (const auto& s : free_) n += s->bytes();
  return n;
}

}  // namespace skiff
