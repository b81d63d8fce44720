// A tensor shape: up to kMaxRank dims stored inline (no heap traffic on the hot path).
// -1 marks a dim unknown at program-build time; runtime shapes are always known.
//
//   Shape s{64, 784};  s.numel() == 50176;  s.str() == "[64, 784]"
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "skiff/core/error.h"

namespace skiff {

class Shape {
 public:
  static constexpr int kMaxRank = 8;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.end()); }
  explicit Shape(const std::vector<int64_t>& dims) { assign(dims.begin(), dims.end()); }

  int rank() const { return rank_; }
  int64_t operator[](int i) const { return dims_[i]; }
  int64_t& operator[](int i) { return dims_[i]; }
  // Dim i, where a negative i counts from the back (-1 is the last dim).
  int64_t dim(int i) const { return dims_[i < 0 ? i + rank_ : i]; }
  const int64_t* begin() const { return dims_; }
  const int64_t* end() const { return dims_ + rank_; }

  // Product of dims; 1 for a scalar. Only meaningful when fully known and within int64:
  // shapes from users go through checked_numel first (tensors are only allocated so).
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank_; ++i) n *= dims_[i];
    return n;
  }
  // True when no dim is -1.
  bool known() const {
    for (int i = 0; i < rank_; ++i)
      if (dims_[i] < 0) return false;
    return true;
  }
  void push_back(int64_t d) {
    SKIFF_CHECK(rank_ < kMaxRank, "tensor rank above ", kMaxRank, " is not supported");
    dims_[rank_++] = d;
  }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }
  std::string str() const;

  bool operator==(const Shape& o) const {
    if (rank_ != o.rank_) return false;
    for (int i = 0; i < rank_; ++i)
      if (dims_[i] != o.dims_[i]) return false;
    return true;
  }
  bool operator!=(const Shape& o) const { return !(*this == o); }

 private:
  template <typename It>
  void assign(It first, It last) {
    for (; first != last; ++first) push_back(*first);
  }

  int64_t dims_[kMaxRank] = {};
  int rank_ = 0;
};

inline std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.str(); }

// The element count of a tensor of `shape`: every dim must be known and non-negative and
// the product fit in int64; otherwise throws an Error naming the shape.
int64_t checked_numel(const Shape& shape);
// The bytes of checked_numel(shape) elements of `element_size` bytes each; throws when
// that is past what one tensor can hold (2^63 - 1 bytes).
size_t checked_bytes(const Shape& shape, size_t element_size);

}  // namespace skiff
