#include "skiff/kernels/cpu/complex.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "skiff/core/parallel.h"

namespace skiff::kernels {

namespace {

// Runs fn(i) for i in [0, n), threaded past the grain.
template <typename Fn>
void for_each(int64_t n, Fn&& fn) {
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) fn(i);
  });
}

void check_complex(const char* op, const Tensor& x) {
  SKIFF_CHECK(x.initialized(), op, ": the input tensor has no value");
  SKIFF_CHECK(is_complex(x.dtype()), op, ": X must be complex64 or complex128, got ", x.type_str());
}

void check_real(const char* op, const char* slot, const Tensor& x) {
  SKIFF_CHECK(x.initialized(), op, ": ", slot, " has no value");
  SKIFF_CHECK(x.dtype() == DType::kF32 || x.dtype() == DType::kF64, op, ": ", slot,
              " must be float32 or float64, got ", x.type_str());
}

// out (complex, dout's shape) = part == 0 ? (dout, 0) : (0, dout).
void part_grad(const char* op, const Tensor& dout, int part, Tensor* dx) {
  check_real(op, "Out@GRAD", dout);
  const Tensor g = dout;  // (dx may be dout's own storage)
  dx->resize(g.shape(), complex_of(g.dtype()));
  SKIFF_DISPATCH_FLOATING(g.dtype(), R, {
    const R* gp = g.data<R>();
    std::complex<R>* o = dx->data<std::complex<R>>();
    for_each(g.numel(), [&](int64_t i) {
      o[i] = part == 0 ? std::complex<R>(gp[i], 0) : std::complex<R>(0, gp[i]);
    });
  });
}

// out (real) = pick(x[i]) for complex x.
template <typename Pick>
void real_of_complex(const char* op, const Tensor& x_in, Tensor* out, Pick pick) {
  check_complex(op, x_in);
  const Tensor x = x_in;
  out->resize(x.shape(), real_of(x.dtype()));
  SKIFF_DISPATCH_COMPLEX(x.dtype(), T, {
    using R = typename T::value_type;
    const T* xp = x.data<T>();
    R* o = out->data<R>();
    for_each(x.numel(), [&](int64_t i) { o[i] = pick(xp[i]); });
  });
}

}  // namespace

void complex_from_parts(const Tensor& re_in, const Tensor& im_in, Tensor* out) {
  check_real("complex", "X", re_in);
  check_real("complex", "Y", im_in);
  SKIFF_CHECK(re_in.dtype() == im_in.dtype() && re_in.shape() == im_in.shape(),
              "complex: X and Y need one shape and dtype, got ", re_in.type_str(), " and ",
              im_in.type_str());
  const Tensor re = re_in, im = im_in;
  out->resize(re.shape(), complex_of(re.dtype()));
  SKIFF_DISPATCH_FLOATING(re.dtype(), R, {
    const R* a = re.data<R>();
    const R* b = im.data<R>();
    std::complex<R>* o = out->data<std::complex<R>>();
    for_each(re.numel(), [&](int64_t i) { o[i] = std::complex<R>(a[i], b[i]); });
  });
}

void complex_real(const Tensor& x, Tensor* out) {
  real_of_complex("real", x, out, [](auto v) { return v.real(); });
}

void complex_imag(const Tensor& x, Tensor* out) {
  real_of_complex("imag", x, out, [](auto v) { return v.imag(); });
}

void real_grad(const Tensor& dout, Tensor* dx) { part_grad("real_grad", dout, 0, dx); }

void imag_grad(const Tensor& dout, Tensor* dx) { part_grad("imag_grad", dout, 1, dx); }

void conj(const Tensor& x_in, Tensor* out) {
  SKIFF_CHECK(x_in.initialized(), "conj: the input tensor has no value");
  const Tensor x = x_in;
  out->resize(x.shape(), x.dtype());
  if (!is_complex(x.dtype())) {
    if (out->raw_data() != x.raw_data()) std::memcpy(out->raw_data(), x.raw_data(), x.nbytes());
    return;
  }
  SKIFF_DISPATCH_COMPLEX(x.dtype(), T, {
    const T* xp = x.data<T>();
    T* o = out->data<T>();
    for_each(x.numel(), [&](int64_t i) { o[i] = std::conj(xp[i]); });
  });
}

void as_complex(const Tensor& x_in, Tensor* out) {
  check_real("as_complex", "X", x_in);
  SKIFF_CHECK(x_in.rank() >= 1 && x_in.dim(x_in.rank() - 1) == 2,
              "as_complex: X's last dim must be 2 (real, imaginary), got ", x_in.type_str());
  const Tensor x = x_in;
  const Shape shape(std::vector<int64_t>(x.shape().begin(), x.shape().end() - 1));
  out->resize(shape, complex_of(x.dtype()));
  if (x.nbytes()) std::memcpy(out->raw_data(), x.raw_data(), x.nbytes());
}

void as_real(const Tensor& x_in, Tensor* out) {
  check_complex("as_real", x_in);
  const Tensor x = x_in;
  Shape shape = x.shape();
  shape.push_back(2);
  out->resize(shape, real_of(x.dtype()));
  if (x.nbytes()) std::memcpy(out->raw_data(), x.raw_data(), x.nbytes());
}

void angle(const Tensor& x_in, Tensor* out) {
  SKIFF_CHECK(x_in.initialized(), "angle: the input tensor has no value");
  const Tensor x = x_in;
  if (is_complex(x.dtype())) {
    real_of_complex("angle", x, out, [](auto v) { return std::atan2(v.imag(), v.real()); });
    return;
  }
  out->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), R, {
    const R* xp = x.data<R>();
    R* o = out->data<R>();
    const R pi = static_cast<R>(M_PI);
    for_each(x.numel(),
             [&](int64_t i) { o[i] = std::isnan(xp[i]) ? xp[i] : (xp[i] < 0 ? pi : 0); });
  });
}

void angle_grad(const Tensor& x_in, const Tensor& dout_in, Tensor* dx) {
  const Tensor x = x_in, g = dout_in;
  SKIFF_CHECK(g.shape() == x.shape() && g.dtype() == real_of(x.dtype()), "angle_grad: Out@GRAD ",
              g.type_str(), " does not match X ", x.type_str());
  dx->resize(x.shape(), x.dtype());
  if (!is_complex(x.dtype())) {
    std::memset(dx->raw_data(), 0, dx->nbytes());
    return;
  }
  SKIFF_DISPATCH_COMPLEX(x.dtype(), T, {
    using R = typename T::value_type;
    const T* xp = x.data<T>();
    const R* gp = g.data<R>();
    T* o = dx->data<T>();
    for_each(x.numel(), [&](int64_t i) {
      const R n = std::norm(xp[i]);
      o[i] = n == 0 ? T(0) : T(-xp[i].imag(), xp[i].real()) * (gp[i] / n);
    });
  });
}

void complex_abs(const Tensor& x, Tensor* out) {
  real_of_complex("abs", x, out, [](auto v) { return std::abs(v); });
}

void complex_abs_grad(const Tensor& x_in, const Tensor& dout_in, Tensor* dx) {
  check_complex("abs_grad", x_in);
  const Tensor x = x_in, g = dout_in;
  SKIFF_CHECK(g.shape() == x.shape() && g.dtype() == real_of(x.dtype()), "abs_grad: Out@GRAD ",
              g.type_str(), " does not match X ", x.type_str());
  dx->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_COMPLEX(x.dtype(), T, {
    using R = typename T::value_type;
    const T* xp = x.data<T>();
    const R* gp = g.data<R>();
    T* o = dx->data<T>();
    for_each(x.numel(), [&](int64_t i) {
      const R a = std::abs(xp[i]);
      o[i] = a == 0 ? T(0) : xp[i] * (gp[i] / a);
    });
  });
}

}  // namespace skiff::kernels
