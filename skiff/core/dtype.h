// Element types of tensors and the compile-time mapping to C++ types.
//
//   SKIFF_DISPATCH_FLOATING(t.dtype(), T, { fill<T>(t); });
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "skiff/core/error.h"

namespace skiff {

// Numbering is part of the file format (proto VarType.dtype): never renumber.
enum class DType : int { kF32 = 0, kF64 = 1, kI32 = 2, kI64 = 3, kBool = 4 };

// Bytes per element.
inline size_t dtype_size(DType t) {
  switch (t) {
    case DType::kF32:
      return 4;
    case DType::kF64:
      return 8;
    case DType::kI32:
      return 4;
    case DType::kI64:
      return 8;
    case DType::kBool:
      return 1;
  }
  fail("unknown dtype ", static_cast<int>(t));
}
// "float32", "float64", "int32", "int64", "bool" (numpy names).
const char* dtype_name(DType t);
// Parses a numpy-style name; throws skiff::Error for an unknown one.
DType dtype_from_name(const std::string& name);
// True for f32 and f64.
inline bool is_floating(DType t) { return t == DType::kF32 || t == DType::kF64; }

template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::kF32;
};
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::kF64;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::kI32;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr DType value = DType::kI64;
};
template <>
struct DTypeOf<bool> {
  static constexpr DType value = DType::kBool;
};
template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

}  // namespace skiff

#define SKIFF_DTYPE_CASE_(ENUM, CTYPE, T, ...) \
  case ::skiff::DType::ENUM: {                 \
    using T = CTYPE;                           \
    __VA_ARGS__;                               \
    break;                                     \
  }

// Runs the body with `T` bound to the C++ type of a floating dtype.
#define SKIFF_DISPATCH_FLOATING(DT, T, ...)                                      \
  switch (DT) {                                                                  \
    SKIFF_DTYPE_CASE_(kF32, float, T, __VA_ARGS__)                               \
    SKIFF_DTYPE_CASE_(kF64, double, T, __VA_ARGS__)                              \
    default:                                                                     \
      ::skiff::fail("expected a floating dtype, got ", ::skiff::dtype_name(DT)); \
  }

// Runs the body with `T` bound to the C++ type of any numeric (non-bool) dtype.
#define SKIFF_DISPATCH_NUMERIC(DT, T, ...)                                      \
  switch (DT) {                                                                 \
    SKIFF_DTYPE_CASE_(kF32, float, T, __VA_ARGS__)                              \
    SKIFF_DTYPE_CASE_(kF64, double, T, __VA_ARGS__)                             \
    SKIFF_DTYPE_CASE_(kI32, int32_t, T, __VA_ARGS__)                            \
    SKIFF_DTYPE_CASE_(kI64, int64_t, T, __VA_ARGS__)                            \
    default:                                                                    \
      ::skiff::fail("expected a numeric dtype, got ", ::skiff::dtype_name(DT)); \
  }

// Runs the body with `T` bound to the C++ type of any dtype.
#define SKIFF_DISPATCH_ALL(DT, T, ...)                       \
  switch (DT) {                                              \
    SKIFF_DTYPE_CASE_(kF32, float, T, __VA_ARGS__)           \
    SKIFF_DTYPE_CASE_(kF64, double, T, __VA_ARGS__)          \
    SKIFF_DTYPE_CASE_(kI32, int32_t, T, __VA_ARGS__)         \
    SKIFF_DTYPE_CASE_(kI64, int64_t, T, __VA_ARGS__)         \
    SKIFF_DTYPE_CASE_(kBool, bool, T, __VA_ARGS__)           \
    default:                                                 \
      ::skiff::fail("unknown dtype ", static_cast<int>(DT)); \
  }
