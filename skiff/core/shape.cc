#include "skiff/core/shape.h"

namespace skiff {

std::string Shape::str() const {
  std::string s = "[";
  for (int i = 0; i < rank_; ++i) {
    if (i) s += ", ";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

int64_t checked_numel(const Shape& shape) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : shape) {
    SKIFF_CHECK(d >= 0, "shape ", shape, ": dims must be known and non-negative, got ", d);
    overflow = overflow || __builtin_mul_overflow(n, d, &n);
  }
  // A zero dim makes the product 0 whatever overflowed before it.
  for (int64_t d : shape)
    if (d == 0) return 0;
  SKIFF_CHECK(!overflow, "shape ", shape, " has more than 2^63 - 1 elements");
  return n;
}

size_t checked_bytes(const Shape& shape, size_t element_size) {
  int64_t n = checked_numel(shape), bytes = 0;
  SKIFF_CHECK(!__builtin_mul_overflow(n, static_cast<int64_t>(element_size), &bytes), "shape ",
              shape, ": ", n, " elements of ", element_size,
              " bytes are more than one tensor can hold (2^63 - 1 bytes)");
  return static_cast<size_t>(bytes);
}

}  // namespace skiff
