// Creation kernels: constant fills and zeros.
//
//   Tensor t;
//   kernels::fill_constant(Shape{2, 3}, DType::kF32, 1.5, &t);   // float32[2, 3] of 1.5
//   kernels::zeros_like(t, &u);                                  // float32[2, 3] of 0
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "skiff/core/tensor.h"
#include "skiff/core/variable.h"

namespace skiff::kernels {

// `value` converted to T: bool takes value != 0; an integer dtype requires an integral
// value within its range (throws skiff::Error otherwise, never truncates silently).
template <typename T>
inline T fill_value_as(double value) {
  if constexpr (std::is_same_v<T, bool>) {
    return value != 0.0;
  } else if constexpr (std::is_integral_v<T>) {
    SKIFF_CHECK(std::floor(value) == value &&
                    value >= static_cast<double>(std::numeric_limits<T>::min()) &&
                    value <= static_cast<double>(std::numeric_limits<T>::max()),
                "value ", value, " is not representable as ", dtype_name(dtype_of<T>));
    return static_cast<T>(value);
  } else {
    return static_cast<T>(value);
  }
}

// Resizes `out` to (shape, dtype) and sets every element to `value` (see fill_value_as).
void fill_constant(const Shape& shape, DType dtype, double value, Tensor* out);
// Sets every element of an already sized `out` to value (no resize, no allocation).
template <typename T>
void fill_typed(T value, Tensor* out);
// Resizes `out` to x's shape and dtype and zeroes it.
void zeros_like(const Tensor& x, Tensor* out);
// An array with x's length whose entries are zeros shaped like x's; entries of x
// without a value stay empty.
void zeros_like(const TensorArray& x, TensorArray* out);

}  // namespace skiff::kernels
