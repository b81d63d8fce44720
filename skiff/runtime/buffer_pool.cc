#include "skiff/runtime/buffer_pool.h"

namespace skiff {

void BufferPool::recycle(Variable* var) {
  if (Tensor* t = var->is_tensor() ? var->mutable_tensor() : nullptr) {
    if (auto storage = t->take_storage()) free_.push_back(std::move(storage));
  }
  var->clear();
}

void BufferPool::provide(Variable* var, size_t bytes) {
  if (bytes == 0 || free_.empty()) return;
  size_t best = free_.size();
  for (size_t i = 0; i < free_.size(); ++i) {
    if (free_[i]->bytes() >= bytes &&
        (best == free_.size() || free_[i]->bytes() < free_[best]->bytes()))
      best = i;
  }
  if (best == free_.size()) return;
  var->mutable_tensor()->adopt_storage(std::move(free_[best]));
  free_[best] = std::move(free_.back());
  free_.pop_back();
}

size_t BufferPool::pooled_bytes() const {
  size_t n = 0;
  for (const auto& s : free_) n += s->bytes();
  return n;
}

}  // namespace skiff
