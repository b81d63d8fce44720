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
};

// "elementwise_pow", "elementwise_mod", "elementwise_floordiv", "atan2".
const char* binary_math_op(BinaryMath f);

// out = f(x, y) broadcast (numpy rule); x and y share a dtype among float32, float64,
// int32 and int64 (kAtan2: float32 or float64). Integer division or remainder by zero
// throws.
void binary_math(BinaryMath f, const Tensor& x, const Tensor& y, Tensor* out);

// Gradients (float32/float64) of kPow (dx = y x^(y-1) dout, dy = out log(x) dout), kMod
// (dx = dout, dy = -floor(x / y) dout) and kAtan2 (dx = y / (x^2 + y^2) dout,
// dy = -x / (x^2 + y^2) dout), summed over the dims each input was
// broadcast along. A null dx or dy is skipped; `out` is read by kPow only.
void binary_math_grad(BinaryMath f, const Tensor& x, const Tensor& y, const Tensor& out,
                      const Tensor& dout, Tensor* dx, Tensor* dy);

}  // namespace skiff::kernels
