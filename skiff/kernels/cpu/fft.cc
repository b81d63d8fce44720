#include "skiff/kernels/cpu/fft.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <memory>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/axis.h"
#include "skiff/kernels/cpu/axis_blocks.h"
#include "skiff/kernels/cpu/cast.h"
#include "skiff/kernels/cpu/complex.h"

namespace skiff::kernels {

namespace {

using C = std::complex<double>;

bool is_pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// exp(i pi num / den), its parts computed in long double and rounded once: twiddles as
// exact as their doubles can be (pi * num / den in double would cost up to an ulp of each
// part, and exact cancellations with it).
C unit_root(int64_t num, int64_t den) {
  const long double a = 3.141592653589793238462643383279502884L * static_cast<long double>(num) /
                        static_cast<long double>(den);
  return C(static_cast<double>(std::cos(a)), static_cast<double>(std::sin(a)));
}

// An in-place radix-2 transform of a power-of-two length.
class Radix2 {
 public:
  explicit Radix2(int64_t n) : n_(n), twiddle_(static_cast<size_t>(n / 2)), rev_(n) {
    for (int64_t k = 0; k < n / 2; ++k) {
      twiddle_[k] = unit_root(-2 * k, n);
    }
    int bits = 0;
    while ((int64_t{1} << bits) < n) ++bits;
    for (int64_t i = 0; i < n; ++i) {
      int64_t r = 0;
      for (int b = 0; b < bits; ++b)
        if (i & (int64_t{1} << b)) r |= int64_t{1} << (bits - 1 - b);
      rev_[i] = r;
    }
  }

  // a = the DFT of a with exp(-2 pi i jk / n) (forward) or exp(+...), unscaled.
  void run(C* a, bool forward) const {
    for (int64_t i = 0; i < n_; ++i)
      if (i < rev_[i]) std::swap(a[i], a[rev_[i]]);
    for (int64_t len = 2; len <= n_; len <<= 1) {
      const int64_t half = len / 2, step = n_ / len;
      for (int64_t i = 0; i < n_; i += len) {
        for (int64_t j = 0; j < half; ++j) {
          const C w = forward ? twiddle_[j * step] : std::conj(twiddle_[j * step]);
          const C u = a[i + j], v = a[i + j + half] * w;
          a[i + j] = u + v;
          a[i + j + half] = u - v;
        }
      }
    }
  }

 private:
  int64_t n_;
  std::vector<C> twiddle_;
  std::vector<int64_t> rev_;
};

// A direct transform of a short length in the symmetric form
//   X_k = x_0 + sum_{j=1}^{(n-1)/2} (x_j + x_{n-j}) cos(t) + i s (x_j - x_{n-j}) sin(t)
//         [+ x_{n/2} (-1)^k for even n],  t = 2 pi jk / n,
// whose paired terms cancel exactly where the input is symmetric (a constant row
// transforms to exact zeros, as radix-specific butterflies give).
class Direct {
 public:
  explicit Direct(int64_t n) : n_(n), cos_(n), sin_(n) {
    for (int64_t m = 0; m <= n / 2; ++m) {
      const C w = unit_root(2 * m, n);
      cos_[m] = w.real();
      sin_[m] = w.imag();
      if (m > 0) {
        cos_[n - m] = cos_[m];
        sin_[n - m] = -sin_[m];
      }
    }
  }

  void run(C* a, bool forward, C* work) const {
    const double s = forward ? -1.0 : 1.0;
    const int64_t h = (n_ - 1) / 2;
    for (int64_t k = 0; k < n_; ++k) {
      C acc = a[0];
      for (int64_t j = 1; j <= h; ++j) {
        const int64_t m = (j * k) % n_;
        const C sum = a[j] + a[n_ - j], diff = a[j] - a[n_ - j];
        acc += sum * cos_[m] + C(0, s * sin_[m]) * diff;
      }
      if (n_ % 2 == 0) acc += (k % 2 ? -1.0 : 1.0) * a[n_ / 2];
      work[k] = acc;
    }
    std::copy(work, work + n_, a);
  }

 private:
  int64_t n_;
  std::vector<double> cos_, sin_;
};

// Lengths up to this that are not powers of two transform directly (exact in symmetric
// cases, and as fast as a chirp-z convolution at these sizes).
constexpr int64_t kDirectMax = 32;

// A transform of any length n >= 1: radix-2 for powers of two, the direct sum for short
// lengths, else Bluestein's chirp-z (a convolution of length m >= 2n - 1 through radix-2
// transforms).
class Plan {
 public:
  explicit Plan(int64_t n) : n_(n) {
    if (is_pow2(n)) {
      radix2_ = std::make_unique<Radix2>(n);
      return;
    }
    if (n <= kDirectMax) {
      direct_ = std::make_unique<Direct>(n);
      return;
    }
    m_ = 1;
    while (m_ < 2 * n - 1) m_ <<= 1;
    conv_ = std::make_unique<Radix2>(m_);
    chirp_.resize(n);
    for (int64_t k = 0; k < n; ++k) {
      // exp(-i pi k^2 / n), with k^2 reduced mod 2n so the angle stays exact
      const int64_t k2 = (k * k) % (2 * n);
      chirp_[k] = unit_root(-k2, n);
    }
    // The transformed kernel b_j = conj(chirp_j) at j and m - j, for each direction.
    for (int dir = 0; dir < 2; ++dir) {
      std::vector<C>& b = kernel_[dir];
      b.assign(m_, C(0));
      for (int64_t j = 0; j < n; ++j) {
        const C c = dir == 0 ? std::conj(chirp_[j]) : chirp_[j];  // dir 0: forward
        b[j] = c;
        if (j > 0) b[m_ - j] = c;
      }
      conv_->run(b.data(), true);
    }
  }

  int64_t work_size() const { return radix2_ ? 0 : direct_ ? n_ : m_; }

  // a (n values) = its DFT, unscaled; `work` holds work_size() values.
  void run(C* a, bool forward, C* work) const {
    if (radix2_) return radix2_->run(a, forward);
    if (direct_) return direct_->run(a, forward, work);
    const std::vector<C>& b = kernel_[forward ? 0 : 1];
    for (int64_t j = 0; j < m_; ++j) {
      const C c = forward ? chirp_[j < n_ ? j : 0] : std::conj(chirp_[j < n_ ? j : 0]);
      work[j] = j < n_ ? a[j] * c : C(0);
    }
    conv_->run(work, true);
    for (int64_t j = 0; j < m_; ++j) work[j] *= b[j];
    conv_->run(work, false);
    const double inv_m = 1.0 / static_cast<double>(m_);
    for (int64_t k = 0; k < n_; ++k) {
      const C c = forward ? chirp_[k] : std::conj(chirp_[k]);
      a[k] = work[k] * c * inv_m;
    }
  }

 private:
  int64_t n_, m_ = 0;
  std::unique_ptr<Radix2> radix2_, conv_;
  std::unique_ptr<Direct> direct_;
  std::vector<C> chirp_;
  std::vector<C> kernel_[2];
};

// data (complex128, `shape`) = its unscaled DFT along axis `axis`, in place.
void transform_axis(C* data, const Shape& shape, int axis, bool forward) {
  const AxisBlocks s(shape, axis);
  if (s.n <= 1 || s.outer * s.inner == 0) return;
  const Plan plan(s.n);
  const int64_t lines = s.outer * s.inner;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / (8 * s.n));
  parallel_for(lines, grain, [&](int64_t b, int64_t e) {
    std::vector<C> line(s.n), work(plan.work_size());
    for (int64_t l = b; l < e; ++l) {
      const int64_t o = l / s.inner, j = l % s.inner;
      C* p = data + s.at(o, 0, j);
      for (int64_t k = 0; k < s.n; ++k) line[k] = p[k * s.inner];
      plan.run(line.data(), forward, work.data());
      for (int64_t k = 0; k < s.n; ++k) p[k * s.inner] = line[k];
    }
  });
}

// The axes resolved against `shape`, each once.
std::vector<int> resolve_axes(const char* op, const std::vector<int64_t>& axes,
                              const Shape& shape) {
  SKIFF_CHECK(!axes.empty(), op, ": axes must not be empty");
  std::vector<int> out;
  for (int64_t a : axes) {
    const int r = resolve_axis(op, a, shape);
    for (int seen : out) SKIFF_CHECK(seen != r, op, ": axis ", a, " is given twice");
    out.push_back(r);
  }
  return out;
}

// x as complex128 (a copy).
Tensor widened(const Tensor& x) {
  Tensor out;
  cast(x, DType::kC128, &out);
  return out;
}

void scale_in_place(Tensor* t, double s) {
  if (s == 1.0) return;
  C* p = t->data<C>();
  const int64_t n = t->numel();
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) p[i] *= s;
  });
}

// The product of shape's dims over `axes` (with `last` in place of the last axis's dim
// when last >= 0).
int64_t points(const Shape& shape, const std::vector<int>& axes, int64_t last = -1) {
  int64_t n = 1;
  for (size_t i = 0; i < axes.size(); ++i)
    n *= (i + 1 == axes.size() && last >= 0) ? last : shape[axes[i]];
  return n;
}

// A slice [0, len) of `t` (complex128) along `axis`; zeros where len passes the dim.
Tensor resized_axis(const Tensor& t, int axis, int64_t len) {
  Shape shape = t.shape();
  const AxisBlocks s(shape, axis);
  shape[axis] = len;
  Tensor out = Tensor::zeros(shape, DType::kC128);
  const C* src = t.data<C>();
  C* dst = out.data<C>();
  const int64_t keep = std::min(len, s.n);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t k = 0; k < keep; ++k)
      std::memcpy(dst + (o * len + k) * s.inner, src + s.at(o, k, 0), s.inner * sizeof(C));
  return out;
}

void check_norm(const std::string& normalization) {
  SKIFF_CHECK(normalization == "backward" || normalization == "forward" || normalization == "ortho",
              "fft: normalization must be 'backward', 'forward' or 'ortho', got '", normalization,
              "'");
}

}  // namespace

double fft_scale(const std::string& normalization, bool forward, int64_t n) {
  check_norm(normalization);
  if (n <= 0) return 1.0;
  if (normalization == "ortho") return 1.0 / std::sqrt(static_cast<double>(n));
  const bool divide = forward ? normalization == "forward" : normalization == "backward";
  return divide ? 1.0 / static_cast<double>(n) : 1.0;
}

void fft_c2c(const Tensor& x, const std::vector<int64_t>& axes, const std::string& normalization,
             bool forward, Tensor* out) {
  SKIFF_CHECK(is_complex(x.dtype()), "fft_c2c: X must be complex64 or complex128, got ",
              x.type_str());
  const std::vector<int> ax = resolve_axes("fft_c2c", axes, x.shape());
  const DType dtype = x.dtype();
  Tensor work = widened(x);
  for (int a : ax) transform_axis(work.data<C>(), work.shape(), a, forward);
  scale_in_place(&work, fft_scale(normalization, forward, points(x.shape(), ax)));
  cast(work, dtype, out);
}

void fft_r2c(const Tensor& x, const std::vector<int64_t>& axes, const std::string& normalization,
             bool forward, bool onesided, Tensor* out) {
  SKIFF_CHECK(x.dtype() == DType::kF32 || x.dtype() == DType::kF64,
              "fft_r2c: X must be float32 or float64, got ", x.type_str());
  const std::vector<int> ax = resolve_axes("fft_r2c", axes, x.shape());
  const DType dtype = complex_of(x.dtype());
  const Shape x_shape = x.shape();
  Tensor work = widened(x);
  // The last axis first, so the others transform only the kept half.
  const int last = ax.back();
  transform_axis(work.data<C>(), work.shape(), last, forward);
  if (onesided) work = resized_axis(work, last, x_shape[last] / 2 + 1);
  for (size_t i = 0; i + 1 < ax.size(); ++i)
    transform_axis(work.data<C>(), work.shape(), ax[i], forward);
  scale_in_place(&work, fft_scale(normalization, forward, points(x_shape, ax)));
  cast(work, dtype, out);
}

void fft_c2r(const Tensor& x, const std::vector<int64_t>& axes, const std::string& normalization,
             bool forward, int64_t last_dim_size, Tensor* out) {
  SKIFF_CHECK(is_complex(x.dtype()), "fft_c2r: X must be complex64 or complex128, got ",
              x.type_str());
  const std::vector<int> ax = resolve_axes("fft_c2r", axes, x.shape());
  const int last = ax.back();
  const int64_t n = last_dim_size;
  SKIFF_CHECK(n >= 1, "fft_c2r: last_dim_size must be >= 1, got ", n);
  SKIFF_CHECK(x.dim(last) == n / 2 + 1, "fft_c2r: X's axis ", last, " holds ", x.dim(last),
              " entries; a Hermitian half of ", n, " points holds ", n / 2 + 1);
  const DType dtype = real_of(x.dtype());
  Tensor work = widened(x);
  for (size_t i = 0; i + 1 < ax.size(); ++i)
    transform_axis(work.data<C>(), work.shape(), ax[i], forward);
  // The full spectrum along the last axis: entry n - k is the conjugate of entry k.
  Tensor full = resized_axis(work, last, n);
  {
    const AxisBlocks s(full.shape(), last);
    C* p = full.data<C>();
    const int64_t half = n / 2 + 1;
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t k = half; k < n; ++k)
        for (int64_t j = 0; j < s.inner; ++j) p[s.at(o, k, j)] = std::conj(p[s.at(o, n - k, j)]);
  }
  transform_axis(full.data<C>(), full.shape(), last, forward);
  scale_in_place(&full, fft_scale(normalization, forward, points(x.shape(), ax, n)));
  Tensor re;
  complex_real(full, &re);
  cast(re, dtype, out);
}

void fft_r2c_grad(const Tensor& out_grad, const Shape& x_shape, const std::vector<int64_t>& axes,
                  const std::string& normalization, bool forward, bool onesided, Tensor* x_grad) {
  const std::vector<int> ax = resolve_axes("fft_r2c_grad", axes, x_shape);
  const DType dtype = real_of(out_grad.dtype());
  // The adjoint: zeros for the dropped half, the transform back with the same scale, the
  // real part.
  Tensor work = widened(out_grad);
  const int last = ax.back();
  if (onesided) work = resized_axis(work, last, x_shape[last]);
  for (int a : ax) transform_axis(work.data<C>(), work.shape(), a, !forward);
  scale_in_place(&work, fft_scale(normalization, forward, points(x_shape, ax)));
  Tensor re;
  complex_real(work, &re);
  cast(re, dtype, x_grad);
}

void fft_c2r_grad(const Tensor& out_grad, const std::vector<int64_t>& axes,
                  const std::string& normalization, bool forward, Tensor* x_grad) {
  const std::vector<int> ax = resolve_axes("fft_c2r_grad", axes, out_grad.shape());
  const int last = ax.back();
  const int64_t n = out_grad.dim(last);
  const DType dtype = complex_of(out_grad.dtype());
  // The adjoint: the one-sided transform back with the same scale, the entries that stand
  // for two (k and n - k) doubled.
  Tensor work;
  fft_r2c(out_grad, axes, forward ? "forward" : "backward", !forward, true, &work);  // unscaled
  Tensor full = widened(work);
  scale_in_place(&full, fft_scale(normalization, forward, points(out_grad.shape(), ax)));
  {
    const AxisBlocks s(full.shape(), last);
    C* p = full.data<C>();
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t k = 1; k <= (n - 1) / 2; ++k)
        for (int64_t j = 0; j < s.inner; ++j) p[s.at(o, k, j)] *= 2.0;
  }
  cast(full, dtype, x_grad);
}

}  // namespace skiff::kernels
