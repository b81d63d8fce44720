#include "skiff/kernels/cpu/dropout.h"

#include <cmath>
#include <cstring>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/random.h"

namespace skiff::kernels {
namespace {

void check_probability(const char* op, double p) {
  SKIFF_CHECK(p >= 0.0 && p <= 1.0, op, ": dropout_prob must lie in [0, 1], got ", p);
}

// What kept elements are multiplied by in training.
double train_scale(double p, DropoutMode mode) {
  if (mode == DropoutMode::kDowngradeInInfer) return 1.0;
  return p < 1.0 ? 1.0 / (1.0 - p) : 0.0;
}

// What every element is multiplied by at inference.
double infer_scale(double p, DropoutMode mode) {
  return mode == DropoutMode::kUpscaleInTrain ? 1.0 : 1.0 - p;
}

template <typename T>
void scaled(const T* x, T* y, int64_t n, T scale) {
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
#pragma omp simd
    for (int64_t i = b; i < e; ++i) y[i] = x[i] * scale;
  });
}

// The mask is drawn as Paddle's CPU kernel draws it (random.h), then applied in parallel.
// Masks are read and written as bytes (0 or 1): loops over bool do not vectorise.
template <typename T>
void drop(const T* x, T* y, bool* mask, int64_t n, double p, uint64_t seed, T scale) {
  uint8_t* keep = reinterpret_cast<uint8_t*>(mask);
  draw_keep_mask(seed, p, n, keep);
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
#pragma omp simd
    for (int64_t i = b; i < e; ++i) {
      const T kept = x[i] * scale;  // read unconditionally: the select vectorises
      y[i] = keep[i] != 0 ? kept : T(0);
    }
  });
}

template <typename T>
void masked(const bool* mask, const T* dy, T* dx, int64_t n, T scale) {
  const uint8_t* keep = reinterpret_cast<const uint8_t*>(mask);
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
#pragma omp simd
    for (int64_t i = b; i < e; ++i) {
      const T kept = dy[i] * scale;
      dx[i] = keep[i] != 0 ? kept : T(0);
    }
  });
}

}  // namespace

DropoutMode dropout_mode(const std::string& name) {
  if (name == "upscale_in_train") return DropoutMode::kUpscaleInTrain;
  if (name == "downgrade_in_infer") return DropoutMode::kDowngradeInInfer;
  fail("dropout: dropout_implementation must be \"upscale_in_train\" or \"downgrade_in_infer\", ",
       "got \"", name, "\"");
}

void dropout(const Tensor& x, double p, bool is_test, uint64_t seed, DropoutMode mode, Tensor* out,
             Tensor* mask) {
  SKIFF_CHECK(is_floating(x.dtype()), "dropout: X must be float32 or float64, got ", x.type_str());
  check_probability("dropout", p);
  const int64_t n = x.numel();
  if (is_test) {
    if (mask) {
      mask->resize(x.shape(), DType::kBool);
      std::memset(mask->data<bool>(), 1, static_cast<size_t>(n));
    }
    const double scale = infer_scale(p, mode);
    if (scale == 1.0) {
      if (out != &x) *out = x;  // shares the storage; a later writer copies first
      return;
    }
    out->resize(x.shape(), x.dtype());
    SKIFF_DISPATCH_FLOATING(x.dtype(), T,
                            scaled<T>(x.data<T>(), out->data<T>(), n, static_cast<T>(scale)));
    return;
  }
  SKIFF_CHECK(mask, "dropout: training needs the Mask output");
  mask->resize(x.shape(), DType::kBool);
  out->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T,
                          drop<T>(x.data<T>(), out->data<T>(), mask->data<bool>(), n, p, seed,
                                  static_cast<T>(train_scale(p, mode))));
}

void dropout_grad(const Tensor& mask, const Tensor& out_grad, double p, bool is_test,
                  DropoutMode mode, Tensor* x_grad) {
  SKIFF_CHECK(is_floating(out_grad.dtype()), "dropout_grad: Out@GRAD must be float32 or float64, ",
              "got ", out_grad.type_str());
  check_probability("dropout_grad", p);
  const int64_t n = out_grad.numel();
  if (is_test) {
    const double scale = infer_scale(p, mode);
    if (scale == 1.0) {
      if (x_grad != &out_grad) *x_grad = out_grad;
      return;
    }
    x_grad->resize(out_grad.shape(), out_grad.dtype());
    SKIFF_DISPATCH_FLOATING(
        out_grad.dtype(), T,
        scaled<T>(out_grad.data<T>(), x_grad->data<T>(), n, static_cast<T>(scale)));
    return;
  }
  SKIFF_CHECK(mask.dtype() == DType::kBool && mask.shape() == out_grad.shape(),
              "dropout_grad: Mask ", mask.type_str(), " should be bool", out_grad.shape(),
              " like Out@GRAD");
  x_grad->resize(out_grad.shape(), out_grad.dtype());
  SKIFF_DISPATCH_FLOATING(out_grad.dtype(), T,
                          masked<T>(mask.data<bool>(), out_grad.data<T>(), x_grad->data<T>(), n,
                                    static_cast<T>(train_scale(p, mode))));
}

}  // namespace skiff::kernels
