#include "skiff/core/allocator.h"

#include <cstdlib>
#include <new>

#include "skiff/core/error.h"

namespace skiff {

Storage::Storage(size_t bytes, Place place) : bytes_(bytes), place_(place) {
  SKIFF_CHECK(place.type == DeviceType::kCPU, "no allocator for place ", place.str());
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  data_ = std::aligned_alloc(kAlignment, rounded);
  if (!data_) throw std::bad_alloc();
}

Storage::Storage(void* data, size_t bytes, Place place, std::function<void()> release)
    : data_(data), bytes_(bytes), place_(place), release_(std::move(release)) {}

Storage::~Storage() {
  if (release_) {
    release_();
  } else {
    std::free(data_);
  }
}

}  // namespace skiff
