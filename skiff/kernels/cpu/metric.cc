#include "skiff/kernels/cpu/metric.h"

namespace skiff::kernels {

namespace {

// Calls fn(const I* p) with an int64 or int32 tensor's data.
template <typename Fn>
void with_ints(const Tensor& t, const char* what, Fn&& fn) {
  SKIFF_CHECK(t.dtype() == DType::kI64 || t.dtype() == DType::kI32, "accuracy: ", what,
              " must be int64 or int32, got ", t.type_str());
  if (t.dtype() == DType::kI64) {
    fn(t.data<int64_t>());
  } else {
    fn(t.data<int32_t>());
  }
}

void check_label(const Tensor& label, int64_t n, const Tensor& by) {
  const Shape& l = label.shape();
  SKIFF_CHECK((l.rank() == 1 || (l.rank() == 2 && l[1] == 1)) && l[0] == n, "accuracy: Label ",
              label.type_str(), " must be [N, 1] (or [N]) for ", by.type_str());
}

void write_results(int64_t n_correct, int64_t n, Tensor* accuracy, Tensor* correct, Tensor* total) {
  accuracy->resize(Shape{1}, DType::kF32);
  *accuracy->data<float>() = n > 0 ? static_cast<float>(n_correct) / static_cast<float>(n) : 0.f;
  if (correct) {
    correct->resize(Shape{1}, DType::kI32);
    *correct->data<int32_t>() = static_cast<int32_t>(n_correct);
  }
  if (total) {
    total->resize(Shape{1}, DType::kI32);
    *total->data<int32_t>() = static_cast<int32_t>(n);
  }
}

}  // namespace

void accuracy_from_scores(const Tensor& scores, const Tensor& label, int64_t k, Tensor* accuracy,
                          Tensor* correct, Tensor* total) {
  SKIFF_CHECK(scores.rank() == 2 && is_floating(scores.dtype()),
              "accuracy: Out must be float32/float64 scores [N, C], got ", scores.type_str());
  SKIFF_CHECK(k >= 1, "accuracy: k must be >= 1, got ", k);
  const int64_t n = scores.dim(0), c = scores.dim(1);
  check_label(label, n, scores);
  int64_t n_correct = 0;
  SKIFF_DISPATCH_FLOATING(scores.dtype(), T, {
    const T* s = scores.data<T>();
    with_ints(label, "Label", [&](const auto* lab) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t y = static_cast<int64_t>(lab[i]);
        SKIFF_CHECK(y >= 0 && y < c, "accuracy: label ", y, " of sample ", i, " is outside [0, ", c,
                    ")");
        const T* row = s + i * c;
        int64_t above = 0;
        for (int64_t j = 0; j < c; ++j) above += row[j] > row[y] || (row[j] == row[y] && j < y);
        n_correct += above < k;
      }
    });
  });
  write_results(n_correct, n, accuracy, correct, total);
}

void accuracy_from_indices(const Tensor& indices, const Tensor& label, Tensor* accuracy,
                           Tensor* correct, Tensor* total) {
  SKIFF_CHECK(indices.rank() == 2, "accuracy: Indices must be [N, k], got ", indices.type_str());
  const int64_t n = indices.dim(0), k = indices.dim(1);
  check_label(label, n, indices);
  int64_t n_correct = 0;
  with_ints(indices, "Indices", [&](const auto* idx) {
    with_ints(label, "Label", [&](const auto* lab) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t y = static_cast<int64_t>(lab[i]);
        bool hit = false;
        for (int64_t j = 0; j < k && !hit; ++j) hit = static_cast<int64_t>(idx[i * k + j]) == y;
        n_correct += hit;
      }
    });
  });
  write_results(n_correct, n, accuracy, correct, total);
}

}  // namespace skiff::kernels
