// oneDNN's CPU engine, this thread's stream, and a per-thread cache of primitives keyed
// by the shapes and flags that made them (making a primitive costs more than running it
// on small shapes). Include only from kernel .cc files: this header pulls in dnnl.hpp.
//
//   OnednnKey key(kMatmulTag);
//   key.add(m).add(n).add(k);
//   MatmulEntry& e = onednn_cache<MatmulEntry>().get(key, [&] { return make_entry(); });
#pragma once

#include <cstdint>
#include <cstring>
#include <dnnl.hpp>
#include <unordered_map>

#include "skiff/core/error.h"

namespace skiff::kernels {

// The CPU engine every skiff primitive is made for.
dnnl::engine& onednn_engine();
// The calling thread's stream on that engine.
dnnl::stream& onednn_stream();

// A short list of integers (a kind tag, dims, flags) that identifies a primitive.
class OnednnKey {
 public:
  static constexpr int kCapacity = 48;

  explicit OnednnKey(int64_t kind_tag) { add(kind_tag); }
  OnednnKey& add(int64_t v) {
    SKIFF_CHECK(size_ < kCapacity, "oneDNN cache key longer than ", kCapacity, " values");
    values_[size_++] = v;
    return *this;
  }
  bool operator==(const OnednnKey& o) const {
    return size_ == o.size_ && std::memcmp(values_, o.values_, size_ * sizeof(int64_t)) == 0;
  }
  size_t hash() const {
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < size_; ++i) h = (h ^ static_cast<uint64_t>(values_[i])) * 1099511628211ull;
    return static_cast<size_t>(h);
  }

 private:
  int64_t values_[kCapacity];
  int size_ = 0;
};

struct OnednnKeyHash {
  size_t operator()(const OnednnKey& k) const { return k.hash(); }
};

// Entries of one kind by key. Bounded: it starts over past kMaxEntries (programs use a
// few shapes; a stream of new shapes must not grow memory without end).
template <typename Entry>
class OnednnCache {
 public:
  static constexpr size_t kMaxEntries = 512;

  // The entry for `key`, made by `make()` on first use. The reference stays valid until
  // the next call that inserts.
  template <typename Make>
  Entry& get(const OnednnKey& key, Make&& make) {
    auto it = entries_.find(key);
    if (it != entries_.end()) return it->second;
    if (entries_.size() >= kMaxEntries) entries_.clear();
    return entries_.emplace(key, make()).first->second;
  }
  size_t size() const { return entries_.size(); }

 private:
  std::unordered_map<OnednnKey, Entry, OnednnKeyHash> entries_;
};

// The calling thread's cache of `Entry` primitives (no locking on the hot path).
template <typename Entry>
OnednnCache<Entry>& onednn_cache() {
  thread_local OnednnCache<Entry> cache;
  return cache;
}

}  // namespace skiff::kernels
