// Complex numbers: building complex tensors from parts and taking them apart (real, imag,
// as_complex, as_real), conj, angle and abs of complex values, and the gradients in
// Paddle's convention (the gradient of a real loss by z = a + ib is dL/da + i dL/db).
//
//   kernels::complex_from_parts(re, im, &z);   // z = re + i im (float32 -> complex64)
//   kernels::complex_real(z, &re);             // re = Re(z)
//   kernels::complex_abs_grad(z, dout, &dz);   // dz = dout * z / |z|
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// out = re + i im: re and im share one shape and dtype (float32 -> complex64, float64 ->
// complex128).
void complex_from_parts(const Tensor& re, const Tensor& im, Tensor* out);
// out = Re(x) / Im(x): x complex, out its parts' real dtype.
void complex_real(const Tensor& x, Tensor* out);
void complex_imag(const Tensor& x, Tensor* out);
// The gradients of real and imag: dx = (dout, 0) / (0, dout), dout float32 or float64.
void real_grad(const Tensor& dout, Tensor* dx);
void imag_grad(const Tensor& dout, Tensor* dx);
// out = conj(x) for complex x; a copy of a real x.
void conj(const Tensor& x, Tensor* out);
// out (complex, x's shape without its last dim) = the pairs of x's last dim (size 2) as
// (real, imaginary); and the inverse, as_real.
void as_complex(const Tensor& x, Tensor* out);
void as_real(const Tensor& x, Tensor* out);
// out = the argument of x in (-pi, pi] (atan2(Im, Re)); for a real x, pi where x < 0 and
// 0 elsewhere (NaN stays NaN).
void angle(const Tensor& x, Tensor* out);
// dx = dout * (-Im(x) + i Re(x)) / |x|^2 (0 where x is 0); zeros for a real x.
void angle_grad(const Tensor& x, const Tensor& dout, Tensor* dx);
// out = fn applied to complex z's real and imaginary parts, joined: a real-linear kernel
// fn(const Tensor& in, Tensor* out) of float tensors (a gradient that sums or moves values)
// run on complex values.
template <typename Fn>
void by_parts(const Tensor& z, Tensor* out, Fn&& fn) {
  Tensor re, im, out_re, out_im;
  complex_real(z, &re);
  complex_imag(z, &im);
  fn(re, &out_re);
  fn(im, &out_im);
  complex_from_parts(out_re, out_im, out);
}

// out = |x| (real, overflow-safe hypot) of complex x.
void complex_abs(const Tensor& x, Tensor* out);
// dx = dout * x / |x| (0 where x is 0).
void complex_abs_grad(const Tensor& x, const Tensor& dout, Tensor* dx);

}  // namespace skiff::kernels
