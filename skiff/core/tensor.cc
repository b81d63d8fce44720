#include "skiff/core/tensor.h"

#include <cstdio>

namespace skiff {

namespace {

// The bytes of a `dtype` tensor of `shape`, checked (shape.h).
size_t bytes_of(const Shape& shape, DType dtype) { return checked_bytes(shape, dtype_size(dtype)); }

// New storage for a `dtype` tensor of `shape`; running out of memory names the tensor.
std::shared_ptr<Storage> storage_for(const Shape& shape, DType dtype, size_t bytes, Place place) {
  try {
    return std::make_shared<Storage>(bytes, place);
  } catch (const std::bad_alloc&) {
    throw OutOfMemoryError(str_cat("out of memory: cannot allocate ", bytes_str(bytes), " for ",
                                   dtype_name(dtype), shape));
  }
}

}  // namespace

std::string bytes_str(size_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return str_cat(bytes, " bytes");
  char text[64];
  std::snprintf(text, sizeof text, "%.1f %s (%zu bytes)", v, units[u], bytes);
  return text;
}

Tensor Tensor::empty(const Shape& shape, DType dtype, Place place) {
  SKIFF_CHECK(shape.known(), "cannot allocate a tensor of unknown shape ", shape);
  Tensor t;
  t.shape_ = shape;
  t.dtype_ = dtype;
  t.storage_ = storage_for(shape, dtype, bytes_of(shape, dtype), place);
  return t;
}

Tensor Tensor::from_storage(std::shared_ptr<Storage> storage, const Shape& shape, DType dtype,
                            size_t offset) {
  Tensor t;
  t.shape_ = shape;
  t.dtype_ = dtype;
  SKIFF_CHECK(storage && shape.known(), "from_storage: ", dtype_name(dtype), shape,
              " has no storage or an unknown shape");
  size_t bytes = bytes_of(shape, dtype);
  SKIFF_CHECK(offset <= storage->bytes() && bytes <= storage->bytes() - offset,
              "from_storage: ", dtype_name(dtype), shape, " at offset ", offset,
              " does not fit the storage");
  t.storage_ = std::move(storage);
  t.offset_ = offset;
  return t;
}

Tensor Tensor::zeros(const Shape& shape, DType dtype, Place place) {
  Tensor t = empty(shape, dtype, place);
  std::memset(t.raw_data(), 0, t.nbytes());
  return t;
}

Tensor Tensor::zeros_view(const Shape& shape, DType dtype) {
  const std::shared_ptr<Storage>& zeros = shared_zero_storage();
  if (!zeros || !shape.known() || bytes_of(shape, dtype) > zeros->bytes()) {
    return Tensor::zeros(shape, dtype);
  }
  return from_storage(zeros, shape, dtype);
}

Shape Tensor::strides() const {
  Shape s = shape_;
  int64_t acc = 1;
  for (int i = shape_.rank() - 1; i >= 0; --i) {
    s[i] = acc;
    acc *= shape_[i];
  }
  return s;
}

void Tensor::reallocate(const Shape& shape, DType dtype) {
  SKIFF_CHECK(shape.known(), "cannot allocate a tensor of unknown shape ", shape);
  size_t need = bytes_of(shape, dtype);
  size_t have = nbytes();
  if (!storage_ || offset_ + need > storage_->bytes()) {
    storage_ = storage_for(shape, dtype, need, cpu_place());
    offset_ = 0;
  } else if (storage_.use_count() > 1) {
    auto own = storage_for(shape, dtype, need, cpu_place());
    if (need == have) std::memcpy(own->data(), raw_data(), need);
    storage_ = std::move(own);
    offset_ = 0;
  }
  shape_ = shape;
  dtype_ = dtype;
}

void Tensor::reshape(const Shape& shape) {
  SKIFF_CHECK(shape.known() && checked_numel(shape) == shape_.numel(), "cannot reshape ",
              type_str(), " to ", shape);
  shape_ = shape;
}

Tensor Tensor::clone() const {
  Tensor t;
  t.copy_from(*this);
  return t;
}

void Tensor::copy_from(const Tensor& src) {
  SKIFF_CHECK(src.initialized(), "copy from an uninitialized tensor");
  if (shares_storage(src) && offset_ == src.offset_) {
    shape_ = src.shape_;
    dtype_ = src.dtype_;
    return;
  }
  resize(src.shape_, src.dtype_);
  std::memcpy(raw_data(), src.raw_data(), nbytes());
}

std::string Tensor::type_str() const { return std::string(dtype_name(dtype_)) + shape_.str(); }

}  // namespace skiff
