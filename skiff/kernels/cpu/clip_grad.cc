#include "skiff/kernels/cpu/clip_grad.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/eigen.h"
#include "skiff/kernels/cpu/elementwise.h"
#include "skiff/kernels/cpu/selected_rows.h"

namespace skiff::kernels {

namespace {

// Elements per chunk of the threaded sum; chunks are added in a fixed order so the
// result does not depend on the thread count.
constexpr int64_t kNormChunk = 1 << 14;

// The sum of squares of one chunk: in T's own precision within the chunk (Eigen's
// unrolled vector sum, a float32 chunk's relative error ~1e-6), in double across chunks.
// Widening every element to double first made the norm of W4's 18.6 MB of gradients cost
// 2.8 ms, compute-bound; in float32 it runs at memory speed.
template <typename T>
double chunk_squared_sum(const T* p, int64_t n) {
  return static_cast<double>(ArrayIn<T>(p, n).square().sum());
}

template <typename T>
double squared_sum(const T* p, int64_t n) {
  const int64_t chunks = (n + kNormChunk - 1) / kNormChunk;
  if (chunks <= 1) return chunk_squared_sum(p, n);
  std::vector<double> partial(static_cast<size_t>(chunks));
  parallel_for(chunks, 2, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      const int64_t begin = c * kNormChunk, len = std::min(kNormChunk, n - begin);
      partial[c] = chunk_squared_sum(p + begin, len);
    }
  });
  double s = 0;
  for (double v : partial) s += v;
  return s;
}

}  // namespace

double squared_l2_norm(const Tensor& x) {
  SKIFF_CHECK(is_floating(x.dtype()), "squared_l2_norm: X must be float32 or float64, got ",
              x.type_str());
  double s = 0;
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, s = squared_sum(x.data<T>(), x.numel()));
  return s;
}

double squared_l2_norm(const SelectedRows& x) {
  if (x.rows.empty()) return 0.0;
  SelectedRows merged;
  merge_rows(x, &merged);
  return squared_l2_norm(merged.value);
}

namespace {

void write_scalar(double value, DType dtype, Tensor* out) {
  out->resize(Shape{1}, dtype);
  SKIFF_DISPATCH_FLOATING(dtype, T, *out->data<T>() = static_cast<T>(value));
}

}  // namespace

void squared_l2_norm(const Tensor& x, Tensor* out) {
  write_scalar(squared_l2_norm(x), x.dtype(), out);
}

void squared_l2_norm(const SelectedRows& x, Tensor* out) {
  write_scalar(squared_l2_norm(x), x.value.dtype(), out);
}

double global_norm_scale(double squared_norm, double clip_norm) {
  SKIFF_CHECK(clip_norm > 0, "clip_norm must be > 0, got ", clip_norm);
  return clip_norm / std::max(std::sqrt(squared_norm), clip_norm);
}

void scale_gradient(const Tensor& x, double scale, Tensor* out) {
  if (scale == 1.0 && out == &x) return;
  kernels::scale(x, scale, 0.0, true, out);
}

void scale_gradient(const SelectedRows& x, double scale, SelectedRows* out) {
  if (out != &x) {
    out->rows = x.rows;
    out->height = x.height;
  }
  if (!x.value.initialized()) {
    out->value = Tensor();
    return;
  }
  scale_gradient(x.value, scale, &out->value);
}

void clip_by_global_norm(const std::vector<ClippedGradient>& grads, double clip_norm,
                         Tensor* global_norm) {
  double squared = 0;
  for (const ClippedGradient& g : grads) {
    if (g.rows) squared += squared_l2_norm(*g.rows);
    if (g.tensor && g.tensor->initialized()) squared += squared_l2_norm(*g.tensor);
  }
  const double scale = global_norm_scale(squared, clip_norm);
  DType norm_dtype = DType::kF32;
  for (size_t i = 0; i < grads.size(); ++i) {
    const ClippedGradient& g = grads[i];
    if (g.rows) {
      if (g.rows_out) scale_gradient(*g.rows, scale, g.rows_out);
      if (i == 0 && g.rows->value.initialized()) norm_dtype = g.rows->value.dtype();
    } else if (g.tensor && g.tensor->initialized()) {
      if (g.tensor_out) scale_gradient(*g.tensor, scale, g.tensor_out);
      if (i == 0) norm_dtype = g.tensor->dtype();
    }
  }
  if (!global_norm) return;
  global_norm->resize(Shape{1}, norm_dtype);
  SKIFF_DISPATCH_FLOATING(norm_dtype, T,
                          *global_norm->data<T>() = static_cast<T>(std::sqrt(squared)));
}

void squared_l2_norm_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  SKIFF_CHECK(out_grad.numel() == 1, "squared_l2_norm_grad: Out@GRAD must have one element, got ",
              out_grad.type_str());
  kernels::scale(x, 2.0 * out_grad.item<double>(), 0.0, true, x_grad);
}

}  // namespace skiff::kernels
