// A NaN test that compiles for every dtype a kernel is instantiated for, so that
// NaN-aware comparisons (reductions by value, top_k) read the same for integers:
//
//   if (is_nan(x[i])) return x[i];   // never taken when T is an integer
#pragma once

#include <cmath>
#include <type_traits>

namespace skiff::kernels {

// True when v is a floating-point NaN; false for every integer.
template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

}  // namespace skiff::kernels
