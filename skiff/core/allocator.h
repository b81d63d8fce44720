// Raw memory for tensors: 64-byte aligned (one cache line, one AVX-512 vector).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "skiff/core/place.h"

namespace skiff {

constexpr size_t kAlignment = 64;

// A block of device memory owned by one or more tensors.
class Storage {
 public:
  // Allocates `bytes` (rounded up to the alignment) on `place`; zero bytes is valid.
  Storage(size_t bytes, Place place);
  // Wraps `bytes` at `data` owned elsewhere (a numpy array, a DLPack tensor);
  // `release` runs when the last tensor lets go of it.
  Storage(void* data, size_t bytes, Place place, std::function<void()> release);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() { return data_; }
  const void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  Place place() const { return place_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  Place place_;
  std::function<void()> release_;  // set for wrapped memory
};

// The bytes of the tensors skiff's allocator holds for them now (memory wrapped from
// elsewhere, such as numpy arrays, is not counted) and the most since the last reset.
struct MemoryStats {
  int64_t allocated = 0;
  int64_t peak = 0;
};
MemoryStats memory_stats();
// Sets the peak to the bytes held now.
void reset_peak_memory();

// One read-only mapping of zero pages, shared by every tensor that Tensor::zeros_view
// makes: reading it costs no memory, and as this handle always holds a reference, a
// tensor over it is never written in place (resize copies it first).
const std::shared_ptr<Storage>& shared_zero_storage();

}  // namespace skiff
