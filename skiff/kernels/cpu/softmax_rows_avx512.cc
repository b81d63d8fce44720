// softmax_rows_isa.h for AVX-512 (compiled with -march=x86-64-v4): 16 lanes a step, the
// row's tail through masked loads and stores, and an exponential of its own (not Eigen's,
// whose template code compiled here would be shared with the baseline objects). GCC 12
// reports the _mm512_undefined_* idiom inside its own _mm512_reduce_* as uninitialized: a
// known false positive (as in eigen.h), silenced for this file.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <cmath>

#include "skiff/kernels/cpu/softmax_rows_isa.h"

namespace skiff::kernels {
namespace {

constexpr int64_t kLanes = 16;

// The lanes of the step at i that lie within the row.
inline __mmask16 lanes(int64_t i, int64_t n) {
  return n - i >= kLanes ? static_cast<__mmask16>(0xffff)
                         : static_cast<__mmask16>((1u << (n - i)) - 1);
}

// exp(x): x = n ln2 + r (|r| <= ln2 / 2, ln2 in two parts), exp(r) by Cephes' degree-6
// polynomial, then p * 2^n by vscalefps (which also underflows to 0 and overflows to inf).
// Relative error below 2e-7 across float's range. A NaN stays NaN: max/min return their
// second operand when one is NaN.
inline __m512 exp16(__m512 x) {
  x = _mm512_min_ps(_mm512_set1_ps(88.7228394f), _mm512_max_ps(_mm512_set1_ps(-104.0f), x));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(-0.693359375f), x);
  r = _mm512_fmadd_ps(n, _mm512_set1_ps(2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);
}

float row_max(const float* x, int64_t n) {
  __m512 mx = _mm512_set1_ps(-INFINITY);
  for (int64_t i = 0; i < n; i += kLanes) {
    const __mmask16 k = lanes(i, n);
    mx = _mm512_mask_max_ps(mx, k, mx, _mm512_maskz_loadu_ps(k, x + i));
  }
  return _mm512_reduce_max_ps(mx);
}

// Sum of exp(x - mx) over the row; the exponentials also go to y when y is not null.
float exp_sum(const float* x, __m512 mx, int64_t n, float* y) {
  __m512 sum = _mm512_setzero_ps();
  for (int64_t i = 0; i < n; i += kLanes) {
    const __mmask16 k = lanes(i, n);
    const __m512 e = exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), mx));
    if (y) _mm512_mask_storeu_ps(y + i, k, e);
    sum = _mm512_mask_add_ps(sum, k, sum, e);
  }
  return _mm512_reduce_add_ps(sum);
}

}  // namespace

float softmax_row(Avx512Isa, const float* x, float* y, int64_t n) {
  const __m512 mx = _mm512_set1_ps(row_max(x, n));
  const float total = exp_sum(x, mx, n, y);
  const __m512 inv = _mm512_set1_ps(1.0f / total);
  for (int64_t i = 0; i < n; i += kLanes) {
    const __mmask16 k = lanes(i, n);
    _mm512_mask_storeu_ps(y + i, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, y + i), inv));
  }
  return _mm512_cvtss_f32(mx) + std::log(total);
}

void log_softmax_row(Avx512Isa, const float* x, float* y, int64_t n) {
  const __m512 mx = _mm512_set1_ps(row_max(x, n));
  const __m512 lse = _mm512_set1_ps(_mm512_cvtss_f32(mx) + std::log(exp_sum(x, mx, n, nullptr)));
  for (int64_t i = 0; i < n; i += kLanes) {
    const __mmask16 k = lanes(i, n);
    _mm512_mask_storeu_ps(y + i, k, _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), lse));
  }
}

}  // namespace skiff::kernels
