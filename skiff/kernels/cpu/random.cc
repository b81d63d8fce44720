#include "skiff/kernels/cpu/random.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <random>

#include "skiff/core/parallel.h"

namespace skiff::kernels {

namespace {

constexpr double kTwoPow53Inv = 1.0 / 9007199254740992.0;  // 2^-53
constexpr double kTwoPi = 6.283185307179586476925286766559;

struct GlobalGenerator {
  std::mutex mu;
  std::mt19937_64 engine{std::random_device{}()};
};

GlobalGenerator& global_generator() {
  static GlobalGenerator* g = new GlobalGenerator;
  return *g;
}

// A value in [0, 1) with 53 random bits.
inline double unit_interval(uint64_t bits) {
  return static_cast<double>(bits >> 11) * kTwoPow53Inv;
}

// Rounding to float32 may land on `max`; keep results inside [min, max).
template <typename T>
inline T below_max(double v, T max, T min) {
  T t = static_cast<T>(v);
  return (t >= max && max > min) ? std::nextafter(max, min) : t;
}

constexpr double kSqrt2 = 1.4142135623730950488016887242097;
constexpr double kSqrt2Pi = 2.5066282746310005024157652848110;

// The standard normal CDF.
inline double normal_cdf(double z) { return 0.5 * std::erfc(-z / kSqrt2); }

// The z in [lo, hi] with normal_cdf(z) = u: Halley steps from a Tukey-lambda start, kept
// inside the bracket (a few steps reach double precision away from the far tails).
double inverse_normal_cdf(double u, double lo, double hi) {
  double v = std::min(std::max(u, 1e-300), 1.0 - 1e-16);
  double z = 4.91 * (std::pow(v, 0.14) - std::pow(1.0 - v, 0.14));
  z = std::min(std::max(z, lo), hi);
  for (int step = 0; step < 6; ++step) {
    double t = (normal_cdf(z) - u) * kSqrt2Pi * std::exp(0.5 * z * z);
    if (!std::isfinite(t)) break;
    double next = std::min(std::max(z - t / (1.0 + 0.5 * z * t), lo), hi);
    if (next == z) break;
    z = next;
  }
  return z;
}

void check_floating(DType dtype, const char* what) {
  SKIFF_CHECK(is_floating(dtype), what, ": dtype must be float32 or float64, got ",
              dtype_name(dtype));
}

}  // namespace

void set_global_seed(uint64_t seed) {
  GlobalGenerator& g = global_generator();
  std::lock_guard<std::mutex> lock(g.mu);
  g.engine.seed(seed);
}

uint64_t random_stream_key(uint64_t seed) {
  if (seed != 0) return mix64(seed);
  GlobalGenerator& g = global_generator();
  std::lock_guard<std::mutex> lock(g.mu);
  return g.engine();
}

void uniform_random(const Shape& shape, DType dtype, double min, double max, uint64_t seed,
                    Tensor* out) {
  check_floating(dtype, "uniform_random");
  SKIFF_CHECK(min <= max, "uniform_random: min (", min, ") must not exceed max (", max, ")");
  SKIFF_CHECK(shape.known(), "uniform_random: the shape must be fully known, got ", shape);
  out->resize(shape, dtype);
  const uint64_t key = random_stream_key(seed);
  const double span = max - min;
  SKIFF_DISPATCH_FLOATING(dtype, T, {
    T* p = out->data<T>();
    const T tmin = static_cast<T>(min), tmax = static_cast<T>(max);
    parallel_for(out->numel(), kParallelGrain / 4, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        p[i] = below_max<T>(min + span * unit_interval(random_bits(key, i)), tmax, tmin);
      }
    });
  });
}

void gaussian_random(const Shape& shape, DType dtype, double mean, double stddev, uint64_t seed,
                     Tensor* out) {
  check_floating(dtype, "gaussian_random");
  SKIFF_CHECK(stddev >= 0, "gaussian_random: std must be non-negative, got ", stddev);
  SKIFF_CHECK(shape.known(), "gaussian_random: the shape must be fully known, got ", shape);
  out->resize(shape, dtype);
  const uint64_t key = random_stream_key(seed);
  const int64_t n = out->numel();
  SKIFF_DISPATCH_FLOATING(dtype, T, {
    T* p = out->data<T>();
    // Pair k fills elements 2k (cos branch) and 2k + 1 (sin branch).
    parallel_for((n + 1) / 2, kParallelGrain / 16, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        double u1 = static_cast<double>((random_bits(key, 2 * k) >> 11) + 1) * kTwoPow53Inv;
        double u2 = unit_interval(random_bits(key, 2 * k + 1));
        double r = stddev * std::sqrt(-2.0 * std::log(u1));
        double theta = kTwoPi * u2;
        p[2 * k] = static_cast<T>(mean + r * std::cos(theta));
        if (2 * k + 1 < n) p[2 * k + 1] = static_cast<T>(mean + r * std::sin(theta));
      }
    });
  });
}

void truncated_gaussian_random(const Shape& shape, DType dtype, double mean, double stddev,
                               double a, double b, uint64_t seed, Tensor* out) {
  check_floating(dtype, "truncated_gaussian_random");
  SKIFF_CHECK(stddev >= 0, "truncated_gaussian_random: std must be non-negative, got ", stddev);
  SKIFF_CHECK(a < b, "truncated_gaussian_random: a (", a, ") must be below b (", b, ")");
  SKIFF_CHECK(shape.known(), "truncated_gaussian_random: the shape must be fully known, got ",
              shape);
  out->resize(shape, dtype);
  const uint64_t key = random_stream_key(seed);
  const int64_t n = out->numel();
  // Standardised bounds; a range above the mean is drawn mirrored below it, where the
  // CDF keeps its precision.
  double lo = stddev > 0 ? (a - mean) / stddev : 0.0, hi = stddev > 0 ? (b - mean) / stddev : 0.0;
  const bool mirror = lo > 0;
  if (mirror) {
    const double mirrored_lo = -hi;
    hi = -lo;
    lo = mirrored_lo;
  }
  const double cdf_lo = normal_cdf(lo), cdf_span = normal_cdf(hi) - cdf_lo;
  const double sign = mirror ? -1.0 : 1.0;
  SKIFF_DISPATCH_FLOATING(dtype, T, {
    T* p = out->data<T>();
    const T ta = static_cast<T>(a), tb = static_cast<T>(b);
    parallel_for(n, kParallelGrain / 64, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        double z = stddev > 0 ? inverse_normal_cdf(
                                    cdf_lo + cdf_span * unit_interval(random_bits(key, i)), lo, hi)
                              : 0.0;
        T v = static_cast<T>(mean + sign * stddev * z);
        p[i] = std::min(std::max(v, ta), tb);
      }
    });
  });
}

}  // namespace skiff::kernels
