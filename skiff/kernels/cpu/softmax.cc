#include "skiff/kernels/cpu/softmax.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/axis_blocks.h"
#include "skiff/kernels/cpu/bf16_convert.h"
#include "skiff/kernels/cpu/eigen.h"
#include "skiff/kernels/cpu/input_handle.h"
#include "skiff/kernels/cpu/softmax_rows_isa.h"

namespace skiff::kernels {
namespace {

// Softmax of one [n, inner] block; lse[j] (when given) gets max + log(sum of exps) of
// column j. `scratch` holds 2 * inner values when inner > 1. y may be x.
template <typename T>
void softmax_block(const T* x, T* y, int64_t n, int64_t inner, T* lse, T* scratch) {
  if (inner == 1) {
    if constexpr (std::is_same_v<T, float>) {  // the common case, on the best ISA
      const float l = dispatch_isa([&](auto isa) { return softmax_row(isa, x, y, n); });
      if (lse) lse[0] = l;
    } else {
      const T mx = ArrayIn<T>(x, n).maxCoeff();
      ArrayOut<T>(y, n) = (ArrayIn<T>(x, n) - mx).exp();
      const T sum = ArrayOut<T>(y, n).sum();
      ArrayOut<T>(y, n) *= T(1) / sum;
      if (lse) lse[0] = mx + std::log(sum);
    }
    return;
  }
  T* mx = scratch;
  T* sum = scratch + inner;
  std::copy(x, x + inner, mx);
  for (int64_t i = 1; i < n; ++i) {
    const T* row = x + i * inner;
#pragma omp simd
    for (int64_t j = 0; j < inner; ++j) mx[j] = std::max(mx[j], row[j]);
  }
  std::fill(sum, sum + inner, T(0));
  for (int64_t i = 0; i < n; ++i) {
    ArrayOut<T> row(y + i * inner, inner);
    row = (ArrayIn<T>(x + i * inner, inner) - ArrayIn<T>(mx, inner)).exp();
    ArrayOut<T>(sum, inner) += row;
  }
  if (lse) ArrayOut<T>(lse, inner) = ArrayIn<T>(mx, inner) + ArrayOut<T>(sum, inner).log();
  ArrayOut<T>(sum, inner) = ArrayOut<T>(sum, inner).inverse();
  for (int64_t i = 0; i < n; ++i) ArrayOut<T>(y + i * inner, inner) *= ArrayOut<T>(sum, inner);
}

// Softmax of every block, split across threads when large; lse: [outer, inner] or null.
template <typename T>
void softmax_all(const T* x, T* y, const AxisBlocks& s, T* lse) {
  if (s.n == 0) return;
  const int64_t block = s.block();
  parallel_for(s.outer, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(block, 1)),
               [&](int64_t o0, int64_t o1) {
                 std::vector<T> scratch(s.inner > 1 ? 2 * s.inner : 0);
                 for (int64_t o = o0; o < o1; ++o) {
                   softmax_block(x + o * block, y + o * block, s.n, s.inner,
                                 lse ? lse + o * s.inner : nullptr, scratch.data());
                 }
               });
}

template <typename T>
void softmax_grad_all(const T* y, const T* dy, T* dx, const AxisBlocks& s) {
  const int64_t block = s.block();
  parallel_for(s.outer, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(block, 1)),
               [&](int64_t o0, int64_t o1) {
                 std::vector<T> dot(s.inner);
                 for (int64_t o = o0; o < o1; ++o) {
                   const int64_t base = o * block;
                   std::fill(dot.begin(), dot.end(), T(0));
                   for (int64_t i = 0; i < s.n; ++i) {
                     const int64_t r = base + i * s.inner;
#pragma omp simd
                     for (int64_t j = 0; j < s.inner; ++j) dot[j] += y[r + j] * dy[r + j];
                   }
                   for (int64_t i = 0; i < s.n; ++i) {
                     const int64_t r = base + i * s.inner;
#pragma omp simd
                     for (int64_t j = 0; j < s.inner; ++j)
                       dx[r + j] = y[r + j] * (dy[r + j] - dot[j]);
                   }
                 }
               });
}

// Labels of one dtype read as int64.
template <typename L>
void check_hard_labels(const L* label, int64_t count, int64_t classes, int64_t ignore_index) {
  for (int64_t r = 0; r < count; ++r) {
    const int64_t l = static_cast<int64_t>(label[r]);
    SKIFF_CHECK(l == ignore_index || (l >= 0 && l < classes),
                "softmax_with_cross_entropy: label value ", l, " is out of range for ", classes,
                " classes (valid: [0, ", classes, ") or ignore_index ", ignore_index, ")");
  }
}

// loss (holding log-sum-exp per row) -= the logit of the label; 0 on ignored rows.
template <typename T, typename L>
void hard_loss(const T* logits, const L* label, const AxisBlocks& s, int64_t ignore_index,
               T* loss) {
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t j = 0; j < s.inner; ++j) {
      const int64_t r = o * s.inner + j;
      const int64_t l = static_cast<int64_t>(label[r]);
      loss[r] = l == ignore_index ? T(0) : loss[r] - logits[(o * s.n + l) * s.inner + j];
    }
  }
}

// loss (holding log-sum-exp per row) becomes sum over the axis of label * (lse - logit).
template <typename T>
void soft_loss(const T* logits, const T* label, const AxisBlocks& s, T* loss) {
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t j = 0; j < s.inner; ++j) {
      const int64_t r = o * s.inner + j;
      const T lse = loss[r];
      T sum = T(0);
      for (int64_t c = 0; c < s.n; ++c) {
        const int64_t at = (o * s.n + c) * s.inner + j;
        sum += label[at] * (lse - logits[at]);
      }
      loss[r] = sum;
    }
  }
}

// dx = prob * dloss, less dloss at the label (zero on ignored rows); blocks in parallel.
template <typename T, typename L>
void hard_grad(const T* prob, const L* label, const T* dloss, const AxisBlocks& s,
               int64_t ignore_index, T* dx) {
  const int64_t block = s.block();
  auto one_block = [&](int64_t o) {
    const T* g = dloss + o * s.inner;
    if (s.inner == 1) {  // the common [rows, classes] case: one row, one gradient value
      ArrayOut<T>(dx + o * block, block) = ArrayIn<T>(prob + o * block, block) * g[0];
    } else {
      for (int64_t c = 0; c < s.n; ++c) {
        const int64_t at = (o * s.n + c) * s.inner;
#pragma omp simd
        for (int64_t j = 0; j < s.inner; ++j) dx[at + j] = prob[at + j] * g[j];
      }
    }
    for (int64_t j = 0; j < s.inner; ++j) {
      const int64_t r = o * s.inner + j;
      const int64_t l = static_cast<int64_t>(label[r]);
      if (l == ignore_index) {
        for (int64_t c = 0; c < s.n; ++c) dx[(o * s.n + c) * s.inner + j] = T(0);
      } else {
        dx[(o * s.n + l) * s.inner + j] -= dloss[r];
      }
    }
  };
  parallel_for(s.outer, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(block, 1)),
               [&](int64_t o0, int64_t o1) {
                 for (int64_t o = o0; o < o1; ++o) one_block(o);
               });
}

template <typename T>
void soft_grad(const T* prob, const T* label, const T* dloss, const AxisBlocks& s, T* dx) {
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t j = 0; j < s.inner; ++j) {
      const int64_t r = o * s.inner + j;
      T label_sum = T(0);
      for (int64_t c = 0; c < s.n; ++c) label_sum += label[(o * s.n + c) * s.inner + j];
      for (int64_t c = 0; c < s.n; ++c) {
        const int64_t at = (o * s.n + c) * s.inner + j;
        dx[at] = dloss[r] * (prob[at] * label_sum - label[at]);
      }
    }
  }
}

void check_label_dtype(const Tensor& label, const Tensor& logits, bool soft_label) {
  if (soft_label) {
    SKIFF_CHECK(label.dtype() == logits.dtype(), "softmax_with_cross_entropy: soft Label must be ",
                dtype_name(logits.dtype()), " like Logits, got ", label.type_str());
  } else {
    SKIFF_CHECK(label.dtype() == DType::kI64 || label.dtype() == DType::kI32,
                "softmax_with_cross_entropy: hard Label must be int64 (or int32), got ",
                label.type_str());
  }
}

}  // namespace

int normalize_axis(const char* op, int64_t axis, int rank) {
  const int span = std::max(rank, 1);
  SKIFF_CHECK(axis >= -span && axis < span, op, ": axis ", axis, " is out of range for a rank-",
              rank, " tensor (valid: [", -span, ", ", span - 1, "])");
  return static_cast<int>(axis < 0 ? axis + span : axis);
}

void softmax(const Tensor& x, int64_t axis, Tensor* out) {
  if (x.dtype() == DType::kBF16) {  // in float32 on the exact values, rounded once
    Tensor y;
    softmax(widen_bf16(x), axis, &y);
    return round_to_bf16(y, out);
  }
  const AxisBlocks s(x.shape(), normalize_axis("softmax", axis, x.rank()));
  out->resize(x.shape(), x.dtype());  // element by element, so out may be x
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, softmax_all<T>(x.data<T>(), out->data<T>(), s, nullptr));
}

void softmax_grad(const Tensor& out, const Tensor& out_grad, int64_t axis, Tensor* x_grad) {
  SKIFF_CHECK(out.shape() == out_grad.shape() && out.dtype() == out_grad.dtype(),
              "softmax_grad: Out is ", out.type_str(), " but Out@GRAD is ", out_grad.type_str());
  if (out.dtype() == DType::kBF16) {  // as softmax: in float32, rounded once
    Tensor dx;
    softmax_grad(widen_bf16(out), widen_bf16(out_grad), axis, &dx);
    return round_to_bf16(dx, x_grad);
  }
  const AxisBlocks s(out.shape(), normalize_axis("softmax_grad", axis, out.rank()));
  const Tensor y = input_handle(out), dy = input_handle(out_grad);
  x_grad->resize(y.shape(), y.dtype());
  SKIFF_DISPATCH_FLOATING(y.dtype(), T,
                          softmax_grad_all<T>(y.data<T>(), dy.data<T>(), x_grad->data<T>(), s));
}

Shape cross_entropy_loss_shape(const Shape& logits, const Shape& label, bool soft_label,
                               int64_t axis) {
  const int a = normalize_axis("softmax_with_cross_entropy", axis, logits.rank());
  bool fits = logits.rank() == label.rank();
  for (int d = 0; fits && d < logits.rank(); ++d) {
    const int64_t want = (d == a && !soft_label) ? 1 : logits[d];
    fits = want < 0 || label[d] < 0 || label[d] == want;
  }
  SKIFF_CHECK(fits, "softmax_with_cross_entropy: Label ", label, " does not fit Logits ", logits,
              soft_label ? " (soft labels need the shape of Logits)"
                         : " (hard labels need the shape of Logits with the axis dim 1)");
  Shape loss = logits;
  if (loss.rank() > 0) loss[a] = 1;
  return loss;
}

void softmax_with_cross_entropy(const Tensor& logits, const Tensor& label, bool soft_label,
                                int64_t axis, int64_t ignore_index, Tensor* softmax, Tensor* loss) {
  SKIFF_CHECK(is_floating(logits.dtype()),
              "softmax_with_cross_entropy: Logits must be float32 or float64, got ",
              logits.type_str());
  check_label_dtype(label, logits, soft_label);
  const Shape loss_shape =
      cross_entropy_loss_shape(logits.shape(), label.shape(), soft_label, axis);
  const AxisBlocks s(logits.shape(),
                     normalize_axis("softmax_with_cross_entropy", axis, logits.rank()));
  if (!soft_label) {
    SKIFF_DISPATCH_NUMERIC(label.dtype(), L,
                           check_hard_labels(label.data<L>(), label.numel(), s.n, ignore_index));
  }
  const Tensor logits_in = input_handle(logits), label_in = input_handle(label);
  softmax->resize(logits_in.shape(), logits_in.dtype());
  loss->resize(loss_shape, logits_in.dtype());
  SKIFF_DISPATCH_FLOATING(logits_in.dtype(), T, {
    const T* x = logits_in.data<T>();
    T* l = loss->data<T>();
    softmax_all<T>(x, softmax->data<T>(), s, l);
    if (soft_label) {
      soft_loss<T>(x, label_in.data<T>(), s, l);
    } else if (label_in.dtype() == DType::kI64) {
      hard_loss<T>(x, label_in.data<int64_t>(), s, ignore_index, l);
    } else {
      hard_loss<T>(x, label_in.data<int32_t>(), s, ignore_index, l);
    }
  });
}

void softmax_with_cross_entropy_grad(const Tensor& label, const Tensor& softmax,
                                     const Tensor& loss_grad, bool soft_label, int64_t axis,
                                     int64_t ignore_index, Tensor* logits_grad) {
  SKIFF_CHECK(is_floating(softmax.dtype()) && loss_grad.dtype() == softmax.dtype(),
              "softmax_with_cross_entropy_grad: Softmax ", softmax.type_str(), " and Loss@GRAD ",
              loss_grad.type_str(), " must share a floating dtype");
  check_label_dtype(label, softmax, soft_label);
  const Shape loss_shape =
      cross_entropy_loss_shape(softmax.shape(), label.shape(), soft_label, axis);
  SKIFF_CHECK(loss_grad.shape() == loss_shape, "softmax_with_cross_entropy_grad: Loss@GRAD ",
              loss_grad.shape(), " should be ", loss_shape);
  const AxisBlocks s(softmax.shape(),
                     normalize_axis("softmax_with_cross_entropy", axis, softmax.rank()));
  if (!soft_label) {
    SKIFF_DISPATCH_NUMERIC(label.dtype(), L,
                           check_hard_labels(label.data<L>(), label.numel(), s.n, ignore_index));
  }
  const Tensor label_in = input_handle(label), prob = input_handle(softmax),
               dloss = input_handle(loss_grad);
  logits_grad->resize(prob.shape(), prob.dtype());
  SKIFF_DISPATCH_FLOATING(prob.dtype(), T, {
    const T* p = prob.data<T>();
    const T* g = dloss.data<T>();
    T* dx = logits_grad->data<T>();
    if (soft_label) {
      soft_grad<T>(p, label_in.data<T>(), g, s, dx);
    } else if (label_in.dtype() == DType::kI64) {
      hard_grad<T>(p, label_in.data<int64_t>(), g, s, ignore_index, dx);
    } else {
      hard_grad<T>(p, label_in.data<int32_t>(), g, s, ignore_index, dx);
    }
  });
}

}  // namespace skiff::kernels
