#include "skiff/kernels/cpu/loss.h"

#include <algorithm>
#include <utility>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/eigen.h"

namespace skiff::kernels {

namespace {

void check_floating(const Tensor& t, const char* op, const char* what) {
  SKIFF_CHECK(is_floating(t.dtype()), op, ": ", what, " must be float32 or float64, got ",
              t.type_str());
}

void check_same(const Tensor& a, const Tensor& b, const char* op, const char* a_name,
                const char* b_name) {
  SKIFF_CHECK(a.shape() == b.shape() && a.dtype() == b.dtype(), op, ": ", a_name, " ", a.type_str(),
              " and ", b_name, " ", b.type_str(), " must have one shape and dtype");
}

// The number of labels that are not ignore_index.
template <typename T>
int64_t count_kept(const T* label, int64_t n, int64_t ignore_index) {
  const T ignored = static_cast<T>(ignore_index);
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) kept += label[i] != ignored;
  return kept;
}

template <typename T>
T bce_scale(const T* label, int64_t n, const SigmoidCrossEntropyOptions& opts) {
  if (!opts.normalize) return T(1);
  const int64_t kept = count_kept(label, n, opts.ignore_index);
  return kept > 0 ? T(1) / static_cast<T>(kept) : T(0);
}

// Calls fn(const I* label) with the labels as their integer type.
template <typename Fn>
void with_labels(const Tensor& label, Fn&& fn) {
  SKIFF_CHECK(label.dtype() == DType::kI64 || label.dtype() == DType::kI32,
              "nll_loss: Label must be int64 or int32, got ", label.type_str());
  if (label.dtype() == DType::kI64) {
    fn(label.data<int64_t>());
  } else {
    fn(label.data<int32_t>());
  }
}

// Checks X [N, C], Label [N] or [N, 1] and Weight [C]; returns (N, C).
std::pair<int64_t, int64_t> check_nll(const Shape& x, const Tensor& label, const Tensor* weight,
                                      DType dtype) {
  SKIFF_CHECK(x.rank() == 2, "nll_loss: X must be [N, C] log-probabilities, got shape ", x);
  const int64_t n = x[0], c = x[1];
  const Shape& l = label.shape();
  SKIFF_CHECK((l.rank() == 1 || (l.rank() == 2 && l[1] == 1)) && l[0] == n, "nll_loss: Label ",
              label.type_str(), " must be [N] (or [N, 1]) for X of shape ", x);
  if (weight) {
    SKIFF_CHECK(weight->shape() == Shape{c} && weight->dtype() == dtype, "nll_loss: Weight ",
                weight->type_str(), " must be [C] of X's dtype for X of shape ", x);
  }
  return {n, c};
}

// Calls fn(sample, class, weight) for each sample not ignored, after range checks.
template <typename T, typename Fn>
void for_kept_samples(const Tensor& label, const Tensor* weight, int64_t n, int64_t c,
                      int64_t ignore_index, Fn&& fn) {
  const T* w = weight ? weight->data<T>() : nullptr;
  with_labels(label, [&](const auto* lab) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = static_cast<int64_t>(lab[i]);
      if (k == ignore_index) continue;
      SKIFF_CHECK(k >= 0 && k < c, "nll_loss: label ", k, " of sample ", i, " is outside [0, ", c,
                  ")");
      fn(i, k, w ? w[k] : T(1));
    }
  });
}

}  // namespace

void mse_loss(const Tensor& x, const Tensor& label, Tensor* out) {
  check_floating(x, "mse_loss", "X");
  check_same(x, label, "mse_loss", "X", "Label");
  out->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* px = x.data<T>();
    const T* pl = label.data<T>();
    T* po = out->data<T>();
    parallel_for(x.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
      ArrayOut<T>(po + b, e - b) = (ArrayIn<T>(px + b, e - b) - ArrayIn<T>(pl + b, e - b)).square();
    });
  });
}

void mse_loss_grad(const Tensor& x, const Tensor& label, const Tensor& out_grad, Tensor* x_grad,
                   Tensor* label_grad) {
  check_same(x, label, "mse_loss_grad", "X", "Label");
  check_same(x, out_grad, "mse_loss_grad", "X", "Out@GRAD");
  if (x_grad) x_grad->resize(x.shape(), x.dtype());
  if (label_grad) label_grad->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* px = x.data<T>();
    const T* pl = label.data<T>();
    const T* pg = out_grad.data<T>();
    T* dx = x_grad ? x_grad->data<T>() : nullptr;
    T* dl = label_grad ? label_grad->data<T>() : nullptr;
    parallel_for(x.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
      const int64_t n = e - b;
      auto d = T(2) * (ArrayIn<T>(px + b, n) - ArrayIn<T>(pl + b, n)) * ArrayIn<T>(pg + b, n);
      if (dx) ArrayOut<T>(dx + b, n) = d;
      if (dl) ArrayOut<T>(dl + b, n) = -d;
    });
  });
}

void sigmoid_cross_entropy_with_logits(const Tensor& x, const Tensor& label,
                                       const SigmoidCrossEntropyOptions& opts, Tensor* out) {
  check_floating(x, "sigmoid_cross_entropy_with_logits", "X");
  check_same(x, label, "sigmoid_cross_entropy_with_logits", "X", "Label");
  out->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* px = x.data<T>();
    const T* pl = label.data<T>();
    T* po = out->data<T>();
    const T ignored = static_cast<T>(opts.ignore_index);
    const T scale = bce_scale(pl, x.numel(), opts);
    parallel_for(x.numel(), kParallelGrain / 4, [&](int64_t b, int64_t e) {
      const int64_t n = e - b;
      ArrayIn<T> xs(px + b, n), ls(pl + b, n);
      auto loss = xs.max(T(0)) - xs * ls + (-xs.abs()).exp().log1p();
      ArrayOut<T>(po + b, n) = (ls == ignored).select(T(0), scale * loss);
    });
  });
}

void sigmoid_cross_entropy_with_logits_grad(const Tensor& x, const Tensor& label,
                                            const Tensor& out_grad,
                                            const SigmoidCrossEntropyOptions& opts,
                                            Tensor* x_grad) {
  check_same(x, label, "sigmoid_cross_entropy_with_logits_grad", "X", "Label");
  check_same(x, out_grad, "sigmoid_cross_entropy_with_logits_grad", "X", "Out@GRAD");
  x_grad->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* px = x.data<T>();
    const T* pl = label.data<T>();
    const T* pg = out_grad.data<T>();
    T* dx = x_grad->data<T>();
    const T ignored = static_cast<T>(opts.ignore_index);
    const T scale = bce_scale(pl, x.numel(), opts);
    parallel_for(x.numel(), kParallelGrain / 4, [&](int64_t b, int64_t e) {
      const int64_t n = e - b;
      ArrayIn<T> xs(px + b, n), ls(pl + b, n);
      auto sigmoid = T(1) / (T(1) + (-xs).exp());
      ArrayOut<T>(dx + b, n) =
          (ls == ignored).select(T(0), scale * (sigmoid - ls) * ArrayIn<T>(pg + b, n));
    });
  });
}

Reduction reduction_from_name(const std::string& name) {
  if (name == "none") return Reduction::kNone;
  if (name == "sum") return Reduction::kSum;
  SKIFF_CHECK(name == "mean", "reduction must be 'none', 'sum' or 'mean', got '", name, "'");
  return Reduction::kMean;
}

Shape nll_loss_out_shape(const Shape& x, Reduction reduction) {
  SKIFF_CHECK(x.rank() == 2, "nll_loss: X must be [N, C] log-probabilities, got shape ", x);
  return reduction == Reduction::kNone ? Shape{x[0]} : Shape{};
}

void nll_loss(const Tensor& x, const Tensor& label, const Tensor* weight,
              const NllLossOptions& opts, Tensor* out, Tensor* total_weight) {
  check_floating(x, "nll_loss", "X");
  const std::pair<int64_t, int64_t> dims = check_nll(x.shape(), label, weight, x.dtype());
  const int64_t n = dims.first, c = dims.second;
  out->resize(nll_loss_out_shape(x.shape(), opts.reduction), x.dtype());
  if (total_weight) total_weight->resize(Shape{}, x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* px = x.data<T>();
    T* po = out->data<T>();
    if (opts.reduction == Reduction::kNone) std::fill(po, po + n, T(0));
    T loss_sum = 0, weight_sum = 0;
    for_kept_samples<T>(label, weight, n, c, opts.ignore_index, [&](int64_t i, int64_t k, T w) {
      const T loss = -w * px[i * c + k];
      if (opts.reduction == Reduction::kNone) po[i] = loss;
      loss_sum += loss;
      weight_sum += w;
    });
    if (opts.reduction == Reduction::kSum) *po = loss_sum;
    if (opts.reduction == Reduction::kMean) *po = weight_sum != T(0) ? loss_sum / weight_sum : T(0);
    if (total_weight) *total_weight->data<T>() = weight_sum;
  });
}

void nll_loss_grad(const Shape& x_shape, const Tensor& label, const Tensor* weight,
                   const Tensor& out_grad, const NllLossOptions& opts, Tensor* x_grad) {
  check_floating(out_grad, "nll_loss_grad", "Out@GRAD");
  const std::pair<int64_t, int64_t> dims = check_nll(x_shape, label, weight, out_grad.dtype());
  const int64_t n = dims.first, c = dims.second;
  SKIFF_CHECK(out_grad.shape() == nll_loss_out_shape(x_shape, opts.reduction),
              "nll_loss_grad: Out@GRAD ", out_grad.type_str(), " does not match X of shape ",
              x_shape);
  x_grad->resize(x_shape, out_grad.dtype());
  SKIFF_DISPATCH_FLOATING(out_grad.dtype(), T, {
    const T* g = out_grad.data<T>();
    T* dx = x_grad->data<T>();
    std::fill(dx, dx + x_grad->numel(), T(0));
    T scale = opts.reduction == Reduction::kNone ? T(1) : g[0];
    if (opts.reduction == Reduction::kMean) {
      T total = 0;
      for_kept_samples<T>(label, weight, n, c, opts.ignore_index,
                          [&](int64_t, int64_t, T w) { total += w; });
      scale = total != T(0) ? scale / total : T(0);
    }
    for_kept_samples<T>(label, weight, n, c, opts.ignore_index, [&](int64_t i, int64_t k, T w) {
      dx[i * c + k] = -w * (opts.reduction == Reduction::kNone ? g[i] : scale);
    });
  });
}

}  // namespace skiff::kernels
