// Elementwise math of one tensor outside the activations (activation.h): abs, square and
// clip over any numeric dtype, the trigonometric and hyperbolic functions and their inverses,
// log1p, expm1, erf, erfinv, lgamma, digamma, polygamma, the modified Bessel functions i0,
// i0e, i1, i1e (with gradients), frexp, the rounding family
// floor/ceil/round and sign, and the float classifiers isnan, isinf, isfinite (bool results).
//
//   kernels::unary_math(kernels::UnaryMath::kSin, x, &out);          // out = sin(x)
//   kernels::unary_math_grad(kernels::UnaryMath::kSin, x, dout, &dx);  // dx = cos(x) * dout
//   kernels::classify(kernels::FloatClass::kNan, x, &mask);           // mask = isnan(x)
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

enum class UnaryMath {
  kSin,
  kCos,
  kLog1p,  // log(1 + x), accurate near 0
  kTan,
  kAtan,
  kAsin,
  kAcos,
  kSinh,
  kCosh,
  kAsinh,
  kAcosh,
  kAtanh,
  kErf,
  kErfinv,   // y with erf(y) = x; +-inf at +-1
  kExpm1,    // exp(x) - 1, accurate near 0
  kLgamma,   // log|gamma(x)|
  kDigamma,  // d/dx lgamma(x); -inf at 0, NaN at negative integers
  kI0,       // the modified Bessel function of the first kind, order 0
  kI0e,      // I0(x) exp(-|x|)
  kI1,       // the modified Bessel function of the first kind, order 1
  kI1e,      // I1(x) exp(-|x|)
  kFloor,
  kCeil,
  kRound,  // to the nearest integer, halves away from zero
  kSign,   // -1, 0 or 1 (NaN stays NaN)
};

// The op type of f ("sin", "erfinv", ...).
const char* unary_math_op(UnaryMath f);

// out = f(x), x's shape and dtype; float32/float64 (floor, ceil, round and sign take
// int32/int64 too, where they are exact). `out` may be x.
void unary_math(UnaryMath f, const Tensor& x, Tensor* out);
// dx = f'(x) * dout for the smooth functions (all but floor, ceil, round, sign);
// float32/float64.
void unary_math_grad(UnaryMath f, const Tensor& x, const Tensor& dout, Tensor* dx);

// out = psi^(n)(x), the n-th derivative of digamma (n >= 0; n = 0 is digamma itself);
// float32/float64.
void polygamma(const Tensor& x, int64_t n, Tensor* out);
// dx = psi^(n+1)(x) * dout.
void polygamma_grad(const Tensor& x, const Tensor& dout, int64_t n, Tensor* dx);

// x = mantissa * 2^exponent with 0.5 <= |mantissa| < 1 (0, +-inf and NaN keep themselves as
// the mantissa, with exponent 0, 1 and NaN, as Paddle); both in x's dtype, float32/float64.
void frexp(const Tensor& x, Tensor* mantissa, Tensor* exponent);

enum class FloatClass { kNan, kInf, kFinite };

// out (bool, x's shape) = whether each element of x is NaN / +-inf / finite; integer
// inputs are never NaN or infinite.
void classify(FloatClass c, const Tensor& x, Tensor* out);

// ---- abs, square, clip over any numeric dtype (float32, float64, int32, int64), with
// gradients in float32 and float64. Integer results wrap like numpy's on overflow
// (|INT_MIN| stays INT_MIN); NaN stays NaN.
//
//   kernels::absolute(x, &out);               // |x|
//   kernels::clip(x, -1.0, 1.0, &out);        // min(max(x, -1), 1)
//   kernels::clip_grad(x, dout, -1.0, 1.0, &dx);

// out = |x|; out takes x's shape and dtype and may be x itself.
void absolute(const Tensor& x, Tensor* out);
// dx = dout * sign(x) (0 where x == 0).
void absolute_grad(const Tensor& x, const Tensor& dout, Tensor* dx);

// out = x * x.
void square(const Tensor& x, Tensor* out);
// dx = 2 * x * dout.
void square_grad(const Tensor& x, const Tensor& dout, Tensor* dx);

// out = min(max(x, min), max); min <= max (throws otherwise). Integer inputs compare
// with the bounds exactly (a bound past the dtype's range does not clip).
void clip(const Tensor& x, double min, double max, Tensor* out);
// dx = dout where min < x < max, 0 elsewhere.
void clip_grad(const Tensor& x, const Tensor& dout, double min, double max, Tensor* dx);

}  // namespace skiff::kernels
