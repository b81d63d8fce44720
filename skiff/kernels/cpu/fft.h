// Discrete Fourier transforms over a set of axes (Paddle's fft_c2c, fft_r2c, fft_c2r),
// computed in double precision: an iterative radix-2 transform for power-of-two lengths,
// Bluestein's chirp-z (through a power-of-two transform) for every other length.
//
//   kernels::fft_c2c(x, {1}, "backward", /*forward=*/true, &y);        // numpy.fft.fft(x)
//   kernels::fft_r2c(x, {0, 1}, "ortho", true, /*onesided=*/true, &y);  // rfft2(x, norm="ortho")
//   kernels::fft_c2r(y, {1}, "backward", false, /*last_dim_size=*/8, &x);  // irfft(y, n=8)
//
// forward transforms use exp(-2 pi i jk / n), inverse ones exp(+2 pi i jk / n). The
// normalization scales the result by 1 / N ("forward" on a forward transform, "backward"
// on an inverse one), 1 / sqrt(N) ("ortho") or 1, N being the product of the transformed
// lengths.
#pragma once

#include <string>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// The factor a transform of `n` points in all (the product over its axes) scales by.
double fft_scale(const std::string& normalization, bool forward, int64_t n);

// out (x's shape and dtype) = the DFT of complex x over `axes`.
void fft_c2c(const Tensor& x, const std::vector<int64_t>& axes, const std::string& normalization,
             bool forward, Tensor* out);
// out (complex) = the DFT of real x over `axes`; onesided keeps the first n / 2 + 1
// entries of the last axis in `axes` (the others are their conjugates).
void fft_r2c(const Tensor& x, const std::vector<int64_t>& axes, const std::string& normalization,
             bool forward, bool onesided, Tensor* out);
// out (real) = the real signal whose transform over `axes` has the Hermitian half x (the
// last axis in `axes` holds last_dim_size / 2 + 1 entries; out gets last_dim_size there).
void fft_c2r(const Tensor& x, const std::vector<int64_t>& axes, const std::string& normalization,
             bool forward, int64_t last_dim_size, Tensor* out);

// The gradients (Paddle's convention for complex values). fft_c2c's is fft_c2c in the
// other direction with the same scale; these two take the forward op's attributes.
// x_grad (real, x_shape) of fft_r2c.
void fft_r2c_grad(const Tensor& out_grad, const Shape& x_shape, const std::vector<int64_t>& axes,
                  const std::string& normalization, bool forward, bool onesided, Tensor* x_grad);
// x_grad (complex, the Hermitian half) of fft_c2r.
void fft_c2r_grad(const Tensor& out_grad, const std::vector<int64_t>& axes,
                  const std::string& normalization, bool forward, Tensor* x_grad);

}  // namespace skiff::kernels
