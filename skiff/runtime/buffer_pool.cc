#include "skiff/runtime/buffer_pool.h"

namespace skiff {

void BufferPool::recycle(Variable* var) {
  Tensor* t = nullptr;
  if (var->is_tensor()) t = var->mutable_tensor();
  if (var->is_selected_rows()) t = &var->mutable_selected_rows()->value;
  if (t) {
    if (auto storage = t->take_storage()) {
      const size_t bytes = storage->bytes();
      free_.emplace(bytes, std::move(storage));
    }
  }
  var->clear();
}

void BufferPool::provide(Variable* var, size_t bytes, VarKind kind) {
  if (bytes == 0) return;
  auto best = free_.lower_bound(bytes);  // the smallest buffer that fits
  if (best == free_.end()) return;
  Tensor* t =
      kind == VarKind::kSelectedRows ? &var->mutable_selected_rows()->value : var->mutable_tensor();
  t->adopt_storage(std::move(best->second));
  free_.erase(best);
}

size_t BufferPool::pooled_bytes() const {
  size_t n = 0;
  for (const auto& [bytes, storage] : free_) n += bytes;
  return n;
}

}  // namespace skiff
