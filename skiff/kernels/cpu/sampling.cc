#include "skiff/kernels/cpu/sampling.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "skiff/kernels/cpu/random.h"
#include "skiff/kernels/cpu/random_engine.h"

namespace skiff::kernels {
namespace {

// The row's weights as a cumulative distribution divided by its total.
template <typename T>
void normalised_cumulative(const std::vector<T>& weights, std::vector<T>* cdf) {
  T total = 0;
  for (size_t j = 0; j < weights.size(); ++j) (*cdf)[j] = total += weights[j];
  for (T& c : *cdf) c /= total;
}

// The first category whose cumulative share reaches u, never one of weight 0 (u == 0
// before the first weight, or rounding that leaves the total a hair below u).
template <typename T>
int64_t drawn_category(const std::vector<T>& weights, const std::vector<T>& cdf, T u) {
  const int64_t c = static_cast<int64_t>(cdf.size());
  int64_t j = std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
  if (j == c) {
    for (j = c - 1; weights[static_cast<size_t>(j)] == 0;) --j;
  } else {
    while (weights[static_cast<size_t>(j)] == 0) ++j;
  }
  return j;
}

template <typename T>
void check_weights(const T* w, int64_t row, int64_t c, int64_t num_samples, bool replacement) {
  int64_t nonzero = 0;
  T total = 0;
  for (int64_t j = 0; j < c; ++j) {
    SKIFF_CHECK(std::isfinite(w[j]) && w[j] >= 0, "multinomial: the weights must be finite and ",
                "non-negative, got ", w[j], " at row ", row, ", category ", j);
    nonzero += w[j] > 0;
    total += w[j];
  }
  SKIFF_CHECK(total > 0, "multinomial: the weights of row ", row, " sum to 0");
  SKIFF_CHECK(replacement || nonzero >= num_samples, "multinomial: ", num_samples,
              " samples without replacement, but row ", row, " has ", nonzero,
              " categories of nonzero weight");
}

template <typename T>
void check_finite_rates(const Tensor& x, const char* op, bool allow_zero) {
  const T* p = x.data<T>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    SKIFF_CHECK(std::isfinite(p[i]) && (allow_zero ? p[i] >= 0 : p[i] > 0), op, ": x must be ",
                allow_zero ? "non-negative" : "positive", " and finite, got ", p[i], " at element ",
                i);
  }
}

}  // namespace

void multinomial(const Tensor& probs, int64_t num_samples, bool replacement, uint64_t seed,
                 Tensor* out) {
  SKIFF_CHECK(is_floating(probs.dtype()), "multinomial: x must be float32 or float64, got ",
              probs.type_str());
  SKIFF_CHECK(probs.shape().rank() == 1 || probs.shape().rank() == 2,
              "multinomial: x must be [C] or [N, C], got ", probs.shape());
  SKIFF_CHECK(num_samples >= 1, "multinomial: num_samples must be positive, got ", num_samples);
  const int64_t c = probs.shape()[probs.shape().rank() - 1];
  const int64_t rows = probs.shape().rank() == 2 ? probs.shape()[0] : 1;
  SKIFF_CHECK(c > 0, "multinomial: x has no categories: ", probs.shape());
  out->resize(probs.shape().rank() == 2 ? Shape{rows, num_samples} : Shape{num_samples},
              DType::kI64);
  int64_t* o = out->data<int64_t>();
  SKIFF_DISPATCH_FLOATING(probs.dtype(), T, {
    const T* w = probs.data<T>();
    for (int64_t r = 0; r < rows; ++r) check_weights(w + r * c, r, c, num_samples, replacement);
    with_random_engine(seed, [&](RandomEngine& engine) {
      std::vector<T> weights(static_cast<size_t>(c)), cdf(static_cast<size_t>(c));
      for (int64_t r = 0; r < rows; ++r) {
        weights.assign(w + r * c, w + (r + 1) * c);
        normalised_cumulative(weights, &cdf);
        for (int64_t s = 0; s < num_samples; ++s) {
          const T u = canonical<T>(engine());
          const int64_t j = drawn_category(weights, cdf, u);
          o[r * num_samples + s] = j;
          if (!replacement && s + 1 < num_samples) {
            weights[static_cast<size_t>(j)] = 0;
            normalised_cumulative(weights, &cdf);
          }
        }
      }
    });
  });
}

void poisson(const Tensor& x, uint64_t seed, Tensor* out) {
  SKIFF_CHECK(is_floating(x.dtype()), "poisson: x must be float32 or float64, got ", x.type_str());
  out->resize(x.shape(), x.dtype());
  const int64_t n = x.numel();
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    check_finite_rates<T>(x, "poisson", /*allow_zero=*/true);
    const T* rate = x.data<T>();
    T* p = out->data<T>();
    with_random_engine(seed, [&](RandomEngine& engine) {
      // A rate of 0 gives 0 and still takes its draw, as in Paddle.
      for (int64_t i = 0; i < n; ++i) {
        p[i] = static_cast<T>(std::poisson_distribution<int64_t>(rate[i])(engine));
      }
    });
  });
}

void standard_gamma(const Tensor& x, uint64_t seed, Tensor* out) {
  SKIFF_CHECK(is_floating(x.dtype()), "standard_gamma: x must be float32 or float64, got ",
              x.type_str());
  out->resize(x.shape(), x.dtype());
  const int64_t n = x.numel();
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    check_finite_rates<T>(x, "standard_gamma", /*allow_zero=*/false);
    const T* alpha = x.data<T>();
    T* p = out->data<T>();
    with_random_engine(seed, [&](RandomEngine& engine) {
      for (int64_t i = 0; i < n; ++i) p[i] = std::gamma_distribution<T>(alpha[i], T(1))(engine);
    });
  });
}

}  // namespace skiff::kernels
