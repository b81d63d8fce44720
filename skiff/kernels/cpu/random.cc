#include "skiff/kernels/cpu/random.h"

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

}  // namespace skiff::kernels
