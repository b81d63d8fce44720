// Broadcast elementwise power, floored remainder, floored division (numpy and Python
// semantics) and the two-argument arctangent, and the gradients of all but division.
//
//   kernels::binary_math(kernels::BinaryMath::kPow, x, y, &out);   // out = x ** y
//   kernels::binary_math(kernels::BinaryMath::kMod, x, y, &out);   // out = x % y (Python)
//   kernels::binary_math_grad(kernels::BinaryMath::kPow, x, y, out, dout, &dx, &dy);
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

enum class BinaryMath {
  kPow,       // x ** y; integers: exact, y must not be negative
  kMod,       // x - floor(x / y) * y: the sign of y, as Python's %
  kFloorDiv,  // floor(x / y), as Python's //
  kAtan2,     // the angle of the point (y, x) in (-pi, pi]: atan(x / y) by quadrant; floats
  // Integer ops (int32/int64; the first three also bool), no gradients:
  kBitAnd,             // x & y
  kBitOr,              // x | y
  kBitXor,             // x ^ y
  kShiftLeft,          // x << y; 0 when y < 0 or y >= the bit width
  kShiftRight,         // x >> y keeping the sign; past the width: -1 (x < 0) or 0
  kShiftRightLogical,  // x >> y as unsigned bits (zeros shifted in); past the width: 0
  kGcd,                // the greatest common divisor of |x| and |y| (gcd(0, 0) = 0)
  kLcm,                // |x * y| / gcd(x, y); 0 when either is 0
  // Float special functions (float32/float64):
  kGammainc,   // P(x, y), the regularized lower incomplete gamma function of a = x at y
  kGammaincc,  // Q(x, y) = 1 - P(x, y), the upper one
  kNextafter,  // the next representable value after x toward y; no gradient
};

// True for the integer ops above (kBitAnd .. kLcm); false for the float special functions.
bool is_integer_math(BinaryMath f);

// "elementwise_pow", "elementwise_mod", "elementwise_floordiv", "atan2", "bitwise_and",
// "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift" (both kShiftRight
// kinds), "gcd", "lcm", "gammainc", "gammaincc", "nextafter".
const char* binary_math_op(BinaryMath f);

// out = f(x, y) broadcast (numpy rule); x and y share a dtype among float32, float64,
// int32 and int64 (kAtan2 and the special functions: float32 or float64; the integer ops: int32 or
// int64, bitwise and/or/xor also bool). Integer division or remainder by zero throws.
void binary_math(BinaryMath f, const Tensor& x, const Tensor& y, Tensor* out);

// out = ~x (int32/int64), or logical not for bool.
void bitwise_not(const Tensor& x, Tensor* out);

// Gradients (float32/float64) of kPow (dx = y x^(y-1) dout, dy = out log(x) dout), kMod
// (dx = dout, dy = -floor(x / y) dout), kAtan2 (dx = y / (x^2 + y^2) dout,
// dy = -x / (x^2 + y^2) dout) and kGammainc / kGammaincc (dy = +-y^(x-1) e^-y / gamma(x)
// dout; no dx: Paddle differentiates the bound only, so dx must be null), summed over the dims each
// input was broadcast along. A null dx or dy is skipped; `out` is read by kPow only.
void binary_math_grad(BinaryMath f, const Tensor& x, const Tensor& y, const Tensor& out,
                      const Tensor& dout, Tensor* dx, Tensor* dy);

}  // namespace skiff::kernels
