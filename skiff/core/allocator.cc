#include "skiff/core/allocator.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
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

// Larger blocks are kept by exact size in one process-wide cache (up to a bound),
// as a training step frees and allocates the same sizes again. Handing them back to
// malloc instead lets the small long-lived allocations made between steps split the
// freed space, and the heap then grows step after step.
class LargeBlockCache {
 public:
  void* take(size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(bytes);
    if (it != free_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      cached_ -= bytes;
      return p;
    }
    if (cached_ > kMaxCached / 2) release_all();  // sizes in use have changed
    return nullptr;
  }
  bool keep(void* p, size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    if (cached_ + bytes > kMaxCached) return false;
    free_[bytes].push_back(p);
    cached_ += bytes;
    return true;
  }
  ~LargeBlockCache() { release_all(); }

 private:
  static constexpr size_t kMaxCached = size_t{1} << 30;
  void release_all() {
    for (auto& [bytes, list] : free_)
      for (void* p : list) std::free(p);
    free_.clear();
    cached_ = 0;
  }
  std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  size_t cached_ = 0;
};

LargeBlockCache& large_blocks() {
  static LargeBlockCache* cache = new LargeBlockCache;  // outlives static tensors
  return *cache;
}

void* allocate(size_t rounded) {
  if (rounded <= kSmallLimit) {
    auto& list = t_cache.free[rounded / kAlignment - 1];
    if (!list.empty()) {
      void* p = list.back();
      list.pop_back();
      return p;
    }
  } else if (void* p = large_blocks().take(rounded)) {
    return p;
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
  } else if (large_blocks().keep(p, rounded)) {
    return;
  }
  std::free(p);
}

// Relaxed: the counts are statistics, read between steps, not a synchronisation.
std::atomic<int64_t> g_allocated{0};
std::atomic<int64_t> g_peak{0};

void count_allocated(int64_t bytes) {
  const int64_t now = g_allocated.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

size_t rounded_size(size_t bytes) {
  // Small sizes by cache line; larger ones by 4 KiB pages, so near sizes share blocks.
  size_t unit = bytes <= kSmallLimit ? kAlignment : 4096;
  size_t rounded = (bytes + unit - 1) / unit * unit;
  return rounded == 0 ? kAlignment : rounded;
}

}  // namespace

Storage::Storage(size_t bytes, Place place) : bytes_(bytes), place_(place) {
  SKIFF_CHECK(place.type == DeviceType::kCPU, "no allocator for place ", place.str());
  data_ = allocate(rounded_size(bytes));
  count_allocated(static_cast<int64_t>(bytes));
}

Storage::Storage(void* data, size_t bytes, Place place, std::function<void()> release)
    : data_(data), bytes_(bytes), place_(place), release_(std::move(release)) {}

Storage::~Storage() {
  if (release_) {
    release_();
  } else {
    deallocate(data_, rounded_size(bytes_));
    g_allocated.fetch_sub(static_cast<int64_t>(bytes_), std::memory_order_relaxed);
  }
}

MemoryStats memory_stats() {
  return {g_allocated.load(std::memory_order_relaxed), g_peak.load(std::memory_order_relaxed)};
}

void reset_peak_memory() { g_peak.store(g_allocated.load(std::memory_order_relaxed)); }

const std::shared_ptr<Storage>& shared_zero_storage() {
  // Address space only: untouched pages read as zeros and pages read map the kernel's
  // one zero page, so even a large mapping costs nothing until it is read.
  static const std::shared_ptr<Storage> zeros = [] {
    constexpr size_t kBytes = size_t{1} << 30;
    void* p = mmap(nullptr, kBytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return std::shared_ptr<Storage>();
    return std::make_shared<Storage>(p, kBytes, cpu_place(), [p] { munmap(p, kBytes); });
  }();
  return zeros;
}

}  // namespace skiff
