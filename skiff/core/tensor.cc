#include "skiff/core/tensor.h"

namespace skiff {

Tensor Tensor::empty(const Shape& shape, DType dtype, Place place) {
  SKIFF_CHECK(shape.known(), "cannot allocate a tensor of unknown shape ", shape);
  Tensor t;
  t.shape_ = shape;
  t.dtype_ = dtype;
  t.storage_ = std::make_shared<Storage>(t.nbytes(), place);
  return t;
}

Tensor Tensor::from_storage(std::shared_ptr<Storage> storage, const Shape& shape, DType dtype,
                            size_t offset) {
  Tensor t;
  t.shape_ = shape;
  t.dtype_ = dtype;
  SKIFF_CHECK(storage && shape.known() && offset + t.nbytes() <= storage->bytes(),
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
  size_t bytes = static_cast<size_t>(shape.numel()) * dtype_size(dtype);
  if (!zeros || !shape.known() || bytes > zeros->bytes()) return Tensor::zeros(shape, dtype);
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
  size_t need = static_cast<size_t>(shape.numel()) * dtype_size(dtype);
  size_t have = nbytes();
  if (!storage_ || offset_ + need > storage_->bytes()) {
    storage_ = std::make_shared<Storage>(need, cpu_place());
    offset_ = 0;
  } else if (storage_.use_count() > 1) {
    auto own = std::make_shared<Storage>(need, cpu_place());
    if (need == have) std::memcpy(own->data(), raw_data(), need);
    storage_ = std::move(own);
    offset_ = 0;
  }
  shape_ = shape;
  dtype_ = dtype;
}

void Tensor::reshape(const Shape& shape) {
  SKIFF_CHECK(shape.numel() == shape_.numel(), "cannot reshape ", type_str(), " to ", shape);
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
