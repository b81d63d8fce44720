#include "skiff/core/allocator.h"

#include <cstdlib>
#include <new>
#include <vector>

#include "skiff/core/error.h"

namespace skiff {

namespace {

// Small blocks (up to 4 KiB: the tensors of tiny ops in loops and eager code) are
// kept per thread on free lists by size class, so a hot loop of small ops does not
// go through malloc for every result.
constexpr size_t kSmallLimit = 4096;
constexpr size_t kClasses = kSmallLimit / kAlignment;
constexpr size_t kKeepPerClass = 64;

struct SmallBlockCache {
  std::vector<void*> free[kClasses];
  ~SmallBlockCache() {
    for (auto& list : free)
      for (void* p : list) std::free(p);
  }
};

thread_local SmallBlockCache t_cache;

void* allocate(size_t rounded) {
  if (rounded <= kSmallLimit) {
    auto& list = t_cache.free[rounded / kAlignment - 1];
    if (!list.empty()) {
      void* p = list.back();
      list.pop_back();
      return p;
    }
  }
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (!p) throw std::bad_alloc();
  return p;
}

void deallocate(void* p, size_t rounded) {
  if (rounded <= kSmallLimit) {
    auto& list = t_cache.free[rounded / kAlignment - 1];
    if (list.size() < kKeepPerClass) {
      list.push_back(p);
      return;
    }
  }
  std::free(p);
}

size_t rounded_size(size_t bytes) {
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  return rounded == 0 ? kAlignment : rounded;
}

}  // namespace

Storage::Storage(size_t bytes, Place place) : bytes_(bytes), place_(place) {
  SKIFF_CHECK(place.type == DeviceType::kCPU, "no allocator for place ", place.str());
  data_ = allocate(rounded_size(bytes));
}

Storage::Storage(void* data, size_t bytes, Place place, std::function<void()> release)
    : data_(data), bytes_(bytes), place_(place), release_(std::move(release)) {}

Storage::~Storage() {
  if (release_) {
    release_();
  } else {
    deallocate(data_, rounded_size(bytes_));
  }
}

}  // namespace skiff
