// Element types of tensors and the compile-time mapping to C++ types.
//
//   SKIFF_DISPATCH_FLOATING(t.dtype(), T, { fill<T>(t); });
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

#include "skiff/core/error.h"

namespace skiff {

// Numbering is part of the file formats (proto VarDesc.dtype, .skparams): never renumber.
// The numbers are stable (programs and files store them). The 8- and 16-bit integers hold
// quantized values (skiff.quantization) and the bytes of images.
enum class DType : int {
  kF32 = 0,
  kF64 = 1,
  kI32 = 2,
  kI64 = 3,
  kBool = 4,
  kBF16 = 5,
  kI8 = 6,
  kU8 = 7,
  kI16 = 8,
  kC64 = 9,    // std::complex<float>: two float32, real part first (numpy's complex64)
  kC128 = 10,  // std::complex<double>
};

// True when `n` is the number of a DType (for readers of files and programs).
inline bool is_dtype_number(int n) { return n >= 0 && n <= static_cast<int>(DType::kC128); }

// A bfloat16 value: the upper half of an IEEE float32 (sign, 8 exponent bits, 7 stored
// mantissa bits). From float it rounds to nearest, ties to even (a NaN stays a quiet NaN
// of its sign; denormals round like any value, none is flushed); to float it is exact.
//   bfloat16 h(0.1f);  float f = static_cast<float>(h);   // 0.10009765625
// Whole arrays convert faster through kernels/cpu/bf16_convert.h, which also rounds
// float64 correctly (no double rounding through float32).
struct bfloat16 {
  uint16_t bits;

  bfloat16() = default;
  explicit bfloat16(float f) : bits(round_from_float_bits(float_bits(f))) {}
  // Rounding a double through float would round twice: use bf16_from_double().
  explicit bfloat16(double) = delete;
  explicit operator float() const {
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }
  static bfloat16 from_bits(uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }

  static uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
  }
  // The bfloat16 bits nearest the float32 with bits `u` (ties to even; NaN quieted).
  static uint16_t round_from_float_bits(uint32_t u) {
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const uint32_t quiet_nan = (u >> 16) | 0x40u;
    return static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
  }
};

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
    case DType::kBF16:
      return 2;
    case DType::kI8:
    case DType::kU8:
      return 1;
    case DType::kI16:
      return 2;
    case DType::kC64:
      return 8;
    case DType::kC128:
      return 16;
  }
  fail("unknown dtype ", static_cast<int>(t));
}
// "float32", "float64", "int32", "int64", "bool", "bfloat16", "int8", "uint8", "int16",
// "complex64", "complex128" (numpy / ml_dtypes names).
const char* dtype_name(DType t);
// Parses a numpy-style name; throws skiff::Error for an unknown one.
DType dtype_from_name(const std::string& name);
// True for the 8- and 16-bit integers (int8, uint8, int16).
inline bool is_small_integer(DType t) {
  return t == DType::kI8 || t == DType::kU8 || t == DType::kI16;
}
// True for the floating dtypes f32, f64 and bf16: those that carry gradients. Kernels
// dispatch bf16 on their own (SKIFF_DISPATCH_FLOATING covers f32 and f64 only).
inline bool is_floating(DType t) {
  return t == DType::kF32 || t == DType::kF64 || t == DType::kBF16;
}

// True for complex64 and complex128.
inline bool is_complex(DType t) { return t == DType::kC64 || t == DType::kC128; }
// The dtypes that carry gradients: the floating and the complex ones.
inline bool is_differentiable(DType t) { return is_floating(t) || is_complex(t); }
// complex64 for float32, complex128 for float64 (the complex dtype with `t`'s parts);
// a complex dtype maps to itself.
DType complex_of(DType t);
// The dtype of a complex dtype's parts (float32 for complex64); a real dtype maps to itself.
DType real_of(DType t);

// The dtypes ops that only move, fill or compare values take (every one but bfloat16,
// whose kernels are registered where written for it).
inline constexpr std::initializer_list<DType> kDataDTypes = {
    DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool,
    DType::kI8,  DType::kU8,  DType::kI16, DType::kC64, DType::kC128};
// complex64 and complex128.
inline constexpr std::initializer_list<DType> kComplexDTypes = {DType::kC64, DType::kC128};

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
template <>
struct DTypeOf<bfloat16> {
  static constexpr DType value = DType::kBF16;
};
template <>
struct DTypeOf<int8_t> {
  static constexpr DType value = DType::kI8;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::kU8;
};
template <>
struct DTypeOf<int16_t> {
  static constexpr DType value = DType::kI16;
};
template <>
struct DTypeOf<std::complex<float>> {
  static constexpr DType value = DType::kC64;
};
template <>
struct DTypeOf<std::complex<double>> {
  static constexpr DType value = DType::kC128;
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

// The dispatch macros leave bfloat16 out on purpose: a kernel gains bf16 only where it
// is written for it and registered with DType::kBF16; elsewhere bf16 is an error.

// Runs the body with `T` bound to the C++ type of float32 or float64.
#define SKIFF_DISPATCH_FLOATING(DT, T, ...)                                        \
  switch (DT) {                                                                    \
    SKIFF_DTYPE_CASE_(kF32, float, T, __VA_ARGS__)                                 \
    SKIFF_DTYPE_CASE_(kF64, double, T, __VA_ARGS__)                                \
    default:                                                                       \
      ::skiff::fail("expected float32 or float64, got ", ::skiff::dtype_name(DT)); \
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

// Runs the body with `T` bound to std::complex<float> or std::complex<double>.
#define SKIFF_DISPATCH_COMPLEX(DT, T, ...)                                              \
  switch (DT) {                                                                         \
    SKIFF_DTYPE_CASE_(kC64, std::complex<float>, T, __VA_ARGS__)                        \
    SKIFF_DTYPE_CASE_(kC128, std::complex<double>, T, __VA_ARGS__)                      \
    default:                                                                            \
      ::skiff::fail("expected complex64 or complex128, got ", ::skiff::dtype_name(DT)); \
  }

// Runs the body with `T` bound to float, double, std::complex<float> or std::complex<double>.
#define SKIFF_DISPATCH_FLOATING_AND_COMPLEX(DT, T, ...)                         \
  switch (DT) {                                                                 \
    SKIFF_DTYPE_CASE_(kF32, float, T, __VA_ARGS__)                              \
    SKIFF_DTYPE_CASE_(kF64, double, T, __VA_ARGS__)                             \
    SKIFF_DTYPE_CASE_(kC64, std::complex<float>, T, __VA_ARGS__)                \
    SKIFF_DTYPE_CASE_(kC128, std::complex<double>, T, __VA_ARGS__)              \
    default:                                                                    \
      ::skiff::fail("expected float32, float64, complex64 or complex128, got ", \
                    ::skiff::dtype_name(DT));                                   \
  }

// Runs the body with `T` bound to the C++ type of any dtype but bfloat16 (data movement,
// fills, comparisons, casts).
#define SKIFF_DISPATCH_ALL(DT, T, ...)                                                    \
  switch (DT) {                                                                           \
    SKIFF_DTYPE_CASE_(kF32, float, T, __VA_ARGS__)                                        \
    SKIFF_DTYPE_CASE_(kF64, double, T, __VA_ARGS__)                                       \
    SKIFF_DTYPE_CASE_(kI32, int32_t, T, __VA_ARGS__)                                      \
    SKIFF_DTYPE_CASE_(kI64, int64_t, T, __VA_ARGS__)                                      \
    SKIFF_DTYPE_CASE_(kBool, bool, T, __VA_ARGS__)                                        \
    SKIFF_DTYPE_CASE_(kI8, int8_t, T, __VA_ARGS__)                                        \
    SKIFF_DTYPE_CASE_(kU8, uint8_t, T, __VA_ARGS__)                                       \
    SKIFF_DTYPE_CASE_(kI16, int16_t, T, __VA_ARGS__)                                      \
    default:                                                                              \
      ::skiff::fail("dtype ", ::skiff::dtype_name(DT), " (number ", static_cast<int>(DT), \
                    ") is not supported here");                                           \
  }

// Runs the body with `T` bound to the C++ type of any dtype but bfloat16, complex included
// (ops that only move or fill values).
#define SKIFF_DISPATCH_MOVABLE(DT, T, ...)                                                \
  switch (DT) {                                                                           \
    SKIFF_DTYPE_CASE_(kF32, float, T, __VA_ARGS__)                                        \
    SKIFF_DTYPE_CASE_(kF64, double, T, __VA_ARGS__)                                       \
    SKIFF_DTYPE_CASE_(kI32, int32_t, T, __VA_ARGS__)                                      \
    SKIFF_DTYPE_CASE_(kI64, int64_t, T, __VA_ARGS__)                                      \
    SKIFF_DTYPE_CASE_(kBool, bool, T, __VA_ARGS__)                                        \
    SKIFF_DTYPE_CASE_(kI8, int8_t, T, __VA_ARGS__)                                        \
    SKIFF_DTYPE_CASE_(kU8, uint8_t, T, __VA_ARGS__)                                       \
    SKIFF_DTYPE_CASE_(kI16, int16_t, T, __VA_ARGS__)                                      \
    SKIFF_DTYPE_CASE_(kC64, std::complex<float>, T, __VA_ARGS__)                          \
    SKIFF_DTYPE_CASE_(kC128, std::complex<double>, T, __VA_ARGS__)                        \
    default:                                                                              \
      ::skiff::fail("dtype ", ::skiff::dtype_name(DT), " (number ", static_cast<int>(DT), \
                    ") is not supported here");                                           \
  }
