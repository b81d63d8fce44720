// IdIndex: a 32-bit index by int64 id — the slot of each row of a sparse table's lock
// stripe, the position of each distinct id of a pull. An open-addressing hash table (linear
// probing, at most half full) of ids and indices in two flat arrays: a lookup is one or two
// cache lines, where a node-based map chases pointers (a parameter server's pulls and
// pushes touch thousands of random ids per call). Ids are placed by the high bits of
// mix64(id): stripes and servers pick by its low bits, so all ids of one share those.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "skiff/core/error.h"
#include "skiff/ps/shard.h"

namespace skiff::ps {

class IdIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;  // "no slot"; never a row's slot

  size_t size() const { return size_; }

  // Room for `n` entries without growing.
  void reserve(size_t n) {
    while (n * 2 > slots_.size()) grow();
  }

  // The index of `id`, inserting it with `next` when absent; `added` tells which.
  uint32_t find_or_insert(int64_t id, size_t next, bool* added) {
    const uint32_t found = find(id);
    *added = found == kNone;
    if (!*added) return found;
    insert(id, next);
    return static_cast<uint32_t>(next);
  }

  // The slot of `id`, or kNone.
  uint32_t find(int64_t id) const {
    if (size_ == 0) return kNone;
    for (size_t i = home(id);; i = (i + 1) & mask_) {
      if (slots_[i] == kNone) return kNone;
      if (ids_[i] == id) return slots_[i];
    }
  }

  // Adds `id` (not present) at `slot`.
  void insert(int64_t id, size_t slot) {
    SKIFF_CHECK(slot < kNone, "a sparse table stripe holds at most ", kNone - 1, " rows");
    if ((size_ + 1) * 2 > slots_.size()) grow();
    place(id, static_cast<uint32_t>(slot));
    ++size_;
  }

  // Calls fn(id, slot&) for every entry; fn may change the slot.
  template <typename Fn>
  void for_each(Fn&& fn) {
    for (size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i] != kNone) fn(ids_[i], slots_[i]);
  }
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i] != kNone) fn(ids_[i], slots_[i]);
  }

  // Removes the entries for which drop(id, slot) is true (the table is rebuilt).
  template <typename Drop>
  void erase_if(Drop&& drop) {
    std::vector<std::pair<int64_t, uint32_t>> kept;
    kept.reserve(size_);
    for_each([&](int64_t id, uint32_t slot) {
      if (!drop(id, slot)) kept.emplace_back(id, slot);
    });
    if (kept.size() == size_) return;
    clear();
    for (const auto& [id, slot] : kept) insert(id, slot);
  }

  void clear() {
    ids_.clear();
    slots_.clear();
    size_ = 0;
    mask_ = 0;
    shift_ = 64;
  }

  void swap(IdIndex& other) {
    ids_.swap(other.ids_);
    slots_.swap(other.slots_);
    std::swap(size_, other.size_);
    std::swap(mask_, other.mask_);
    std::swap(shift_, other.shift_);
  }

 private:
  size_t home(int64_t id) const {
    return static_cast<size_t>(mix64(static_cast<uint64_t>(id)) >> shift_);
  }

  void place(int64_t id, uint32_t slot) {
    size_t i = home(id);
    while (slots_[i] != kNone) i = (i + 1) & mask_;
    ids_[i] = id;
    slots_[i] = slot;
  }

  void grow() {
    const size_t capacity = slots_.empty() ? 16 : slots_.size() * 2;
    std::vector<int64_t> old_ids(capacity);
    std::vector<uint32_t> old_slots(capacity, kNone);
    old_ids.swap(ids_);
    old_slots.swap(slots_);
    mask_ = capacity - 1;
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (size_t i = 0; i < old_slots.size(); ++i)
      if (old_slots[i] != kNone) place(old_ids[i], old_slots[i]);
  }

  std::vector<int64_t> ids_;
  std::vector<uint32_t> slots_;  // kNone: an empty cell
  size_t size_ = 0;
  size_t mask_ = 0;
  int shift_ = 64;  // 64 - log2(capacity): home() takes the hash's top bits
};

}  // namespace skiff::ps
