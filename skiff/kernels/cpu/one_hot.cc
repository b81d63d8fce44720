#include "skiff/kernels/cpu/one_hot.h"

#include "skiff/kernels/cpu/input_handle.h"

#include <algorithm>

namespace skiff::kernels {
namespace {

template <typename I, typename T>
void encode(const I* labels, int64_t n, int64_t depth, bool allow_out_of_range, T* out) {
  std::fill(out, out + n * depth, T(0));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = labels[i];
    if (k >= 0 && k < depth) {
      out[i * depth + k] = T(1);
      continue;
    }
    SKIFF_CHECK(allow_out_of_range, "one_hot: label ", k, " (entry ", i,
                ") is out of range for depth ", depth);
  }
}

}  // namespace

Shape one_hot_shape(const Shape& x, int64_t depth) {
  SKIFF_CHECK(depth >= 1, "one_hot: depth must be >= 1, got ", depth);
  SKIFF_CHECK(x.rank() < Shape::kMaxRank, "one_hot: X ", x, " has rank ", x.rank(),
              "; the result would exceed rank ", Shape::kMaxRank);
  Shape out = x;
  out.push_back(depth);
  return out;
}

void one_hot(const Tensor& x, int64_t depth, bool allow_out_of_range, DType dtype, Tensor* out) {
  SKIFF_CHECK(x.dtype() == DType::kI32 || x.dtype() == DType::kI64,
              "one_hot: X must be int32 or int64, got ", x.type_str());
  const Tensor labels = input_handle(x);
  out->resize(one_hot_shape(labels.shape(), depth), dtype);
  SKIFF_DISPATCH_FLOATING(dtype, T, {
    if (labels.dtype() == DType::kI32) {
      encode(labels.data<int32_t>(), labels.numel(), depth, allow_out_of_range, out->data<T>());
    } else {
      encode(labels.data<int64_t>(), labels.numel(), depth, allow_out_of_range, out->data<T>());
    }
  });
}

}  // namespace skiff::kernels
