// A dense n-d array: shape, dtype, row-major strides, and shared aligned storage.
//
//   Tensor t = Tensor::empty({2, 3}, DType::kF32);
//   float* p = t.data<float>();            // throws if the dtype is not float32
//   Tensor u = Tensor::from_vector<double>({3}, {1, 2, 3});
//
// Copying a Tensor shares its storage (like a shared_ptr); `clone()` copies data.
#pragma once

#include <cstring>
#include <memory>
#include <vector>

#include "skiff/core/allocator.h"
#include "skiff/core/dtype.h"
#include "skiff/core/error.h"
#include "skiff/core/place.h"
#include "skiff/core/shape.h"

namespace skiff {

class Tensor {
 public:
  // An uninitialized tensor: no storage, rank 0, float32.
  Tensor() = default;

  // Allocates an uninitialized tensor. A shape past what one tensor can hold throws an
  // Error naming it; memory the system cannot give throws an OutOfMemoryError.
  static Tensor empty(const Shape& shape, DType dtype, Place place = cpu_place());
  // Allocates a tensor filled with zeros.
  static Tensor zeros(const Shape& shape, DType dtype, Place place = cpu_place());
  // Zeros without writing memory: a view of the shared zero mapping (allocator.h),
  // copied into storage of its own on the first write (as shared storage is). Large
  // tensors past the mapping get zeros().
  static Tensor zeros_view(const Shape& shape, DType dtype);
  bool is_zeros_view() const { return storage_ != nullptr && storage_ == shared_zero_storage(); }
  // Copies `values` (numel of `shape` of them) into a new tensor.
  template <typename T>
  static Tensor from_vector(const Shape& shape, const std::vector<T>& values);
  // A rank-0 tensor holding `value`.
  template <typename T>
  static Tensor scalar(T value) {
    return from_vector<T>(Shape{}, {value});
  }

  // A tensor over existing storage (e.g. memory wrapped from numpy), `offset` bytes in.
  static Tensor from_storage(std::shared_ptr<Storage> storage, const Shape& shape, DType dtype,
                             size_t offset = 0);
  // True once storage is attached (a fed, computed or resized tensor).
  bool initialized() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int i) const { return shape_.dim(i); }
  int64_t numel() const { return shape_.numel(); }
  DType dtype() const { return dtype_; }
  Place place() const { return storage_ ? storage_->place() : cpu_place(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
  // Row-major strides in elements.
  Shape strides() const;

  // Makes this tensor hold `shape` elements of `dtype`. Storage shared with another
  // tensor is never written through: a shared tensor gets its own copy first (so an
  // in-place kernel still reads its input, and a kept or fetched value stays intact).
  // When the byte size changes the contents are unspecified.
  void resize(const Shape& shape, DType dtype) {
    // The common case on a hot path: an output resized to what it already is.
    if (storage_ && dtype == dtype_ && shape == shape_ && storage_.use_count() == 1) return;
    reallocate(shape, dtype);
  }
  // Changes the shape without touching data; numel must stay the same.
  void reshape(const Shape& shape);
  // Drops the storage (used to free temporaries after their last use).
  void release() { storage_.reset(); }
  // Hands the storage over for reuse when this tensor is its only owner (nullptr
  // otherwise); either way the tensor is left without storage.
  std::shared_ptr<Storage> take_storage() {
    std::shared_ptr<Storage> s = storage_.use_count() == 1 ? std::move(storage_) : nullptr;
    storage_.reset();
    offset_ = 0;
    return s;
  }
  // Attaches recycled storage: a following resize that fits reuses it.
  void adopt_storage(std::shared_ptr<Storage> storage) {
    storage_ = std::move(storage);
    offset_ = 0;
    shape_ = Shape{0};
  }

  template <typename T>
  T* data() {
    check_dtype(dtype_of<T>);
    return static_cast<T*>(raw_data());
  }
  template <typename T>
  const T* data() const {
    check_dtype(dtype_of<T>);
    return static_cast<const T*>(raw_data());
  }
  void* raw_data() { return storage_ ? static_cast<char*>(storage_->data()) + offset_ : nullptr; }
  const void* raw_data() const {
    return storage_ ? static_cast<const char*>(storage_->data()) + offset_ : nullptr;
  }

  // The single element of a one-element tensor, converted to T.
  template <typename T>
  T item() const;
  // Copies the elements out as a std::vector<T> (dtype must match T).
  template <typename T>
  std::vector<T> to_vector() const {
    const T* p = data<T>();
    return std::vector<T>(p, p + numel());
  }

  // A deep copy with its own storage.
  Tensor clone() const;
  // Copies `src`'s shape, dtype and data into this tensor (reusing storage if it can).
  void copy_from(const Tensor& src);
  // The storage itself (for views that must keep it alive), or nullptr.
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  // True when both tensors share the same storage.
  bool shares_storage(const Tensor& o) const { return storage_ && storage_ == o.storage_; }

  // "float32[2, 3]"
  std::string type_str() const;

 private:
  void reallocate(const Shape& shape, DType dtype);
  void check_dtype(DType want) const {
    SKIFF_CHECK(want == dtype_, "tensor holds ", dtype_name(dtype_), ", accessed as ",
                dtype_name(want));
  }

  std::shared_ptr<Storage> storage_;
  size_t offset_ = 0;
  Shape shape_;
  DType dtype_ = DType::kF32;
};

// A byte count for messages: "4.0 TiB (4398046511104 bytes)".
std::string bytes_str(size_t bytes);

template <typename T>
Tensor Tensor::from_vector(const Shape& shape, const std::vector<T>& values) {
  SKIFF_CHECK(static_cast<int64_t>(values.size()) == shape.numel(), "from_vector: ", values.size(),
              " values for shape ", shape);
  Tensor t = empty(shape, dtype_of<T>);
  T* p = t.data<T>();
  for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return t;
}

template <typename T>
T Tensor::item() const {
  SKIFF_CHECK(initialized() && numel() == 1, "item(): expected one element, got ", type_str());
  T out{};
  if (is_complex(dtype_)) {  // a complex element gives its real part
    SKIFF_DISPATCH_COMPLEX(dtype_, U,
                           out = static_cast<T>(static_cast<const U*>(raw_data())->real()));
    return out;
  }
  SKIFF_DISPATCH_ALL(dtype_, U, out = static_cast<T>(*static_cast<const U*>(raw_data())));
  return out;
}

}  // namespace skiff
