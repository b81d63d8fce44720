#include "skiff/kernels/cpu/random.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <random>
#include <sstream>
#include <string>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/random_engine.h"

namespace skiff::kernels {

namespace {

struct GlobalGenerator {
  std::mutex mu;
  RandomEngine engine{std::random_device{}()};
};

GlobalGenerator& global_generator() {
  static GlobalGenerator* g = new GlobalGenerator;
  return *g;
}

// Runs fn(engine) on the engine a draw with `seed` uses: for seed 0 the process-wide one
// (held locked meanwhile), otherwise a fresh engine started from the seed itself.
template <typename Fn>
void with_engine(uint64_t seed, Fn&& fn) {
  if (seed != 0) {
    RandomEngine engine(seed);
    fn(engine);
    return;
  }
  GlobalGenerator& g = global_generator();
  std::lock_guard<std::mutex> lock(g.mu);
  fn(g.engine);
}

// Rounding to float32 may land on `max`; keep results inside [min, max).
template <typename T>
inline T below_max(T t, T max, T min) {
  return (t >= max && max > min) ? std::nextafter(max, min) : t;
}

// x, rounded to T where it stands: keeps the compiler from fusing a product into the add
// that follows (Paddle's kernels round both, and the values must be Paddle's).
template <typename T>
inline T unfused(T x) {
#if defined(__x86_64__)
  asm("" : "+x"(x));
#elif defined(__aarch64__)
  asm("" : "+w"(x));
#else
  volatile T v = x;
  x = v;
#endif
  return x;
}

// std::normal_distribution<T>'s values as libstdc++ computes them (Marsaglia's polar
// method: a pair from each accepted point of the unit disc, the second kept for the next
// call), with every product rounded before its add.
template <typename T>
class PolarNormal {
 public:
  PolarNormal(T mean, T stddev) : mean_(mean), stddev_(stddev) {}

  T operator()(RandomEngine& engine) {
    T value;
    if (saved_available_) {
      saved_available_ = false;
      value = saved_;
    } else {
      T x, y, r2;
      do {
        x = static_cast<T>(T(2) * canonical<T>(engine()) - 1.0);
        y = static_cast<T>(T(2) * canonical<T>(engine()) - 1.0);
        r2 = unfused(x * x) + unfused(y * y);
      } while (r2 > 1.0 || r2 == 0.0);
      const T mult = std::sqrt(-2 * std::log(r2) / r2);
      saved_ = x * mult;
      saved_available_ = true;
      value = y * mult;
    }
    return unfused(value * stddev_) + mean_;
  }

 private:
  T mean_, stddev_;
  T saved_ = 0;
  bool saved_available_ = false;
};

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

void with_random_engine(uint64_t seed, const std::function<void(RandomEngine&)>& fn) {
  with_engine(seed, fn);
}

void set_global_seed(uint64_t seed) {
  GlobalGenerator& g = global_generator();
  std::lock_guard<std::mutex> lock(g.mu);
  std::seed_seq sequence{seed};  // keeps the seed's low 32 bits, as Paddle's generator
  g.engine.seed(sequence);
}

std::string global_generator_state() {
  GlobalGenerator& g = global_generator();
  std::lock_guard<std::mutex> lock(g.mu);
  std::ostringstream out;
  out << g.engine;
  return out.str();
}

void set_global_generator_state(const std::string& state) {
  std::istringstream in(state);
  RandomEngine engine;
  in >> engine;
  SKIFF_CHECK(!in.fail() && (in >> std::ws).eof(), "set_global_generator_state: not a ",
              "generator state (", state.size(), " characters)");
  GlobalGenerator& g = global_generator();
  std::lock_guard<std::mutex> lock(g.mu);
  g.engine = engine;
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
  SKIFF_DISPATCH_FLOATING(dtype, T, {
    T* p = out->data<T>();
    const T tmin = static_cast<T>(min), tmax = static_cast<T>(max);
    const int64_t n = out->numel();
    const T span = tmax - tmin;
    // std::uniform_real_distribution<T>(min, max)'s value: canonical * (max - min) + min.
    with_engine(seed, [&](RandomEngine& engine) {
      for (int64_t i = 0; i < n; ++i) {
        p[i] = below_max<T>(unfused(canonical<T>(engine()) * span) + tmin, tmax, tmin);
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
  const int64_t n = out->numel();
  SKIFF_DISPATCH_FLOATING(dtype, T, {
    T* p = out->data<T>();
    with_engine(seed, [&](RandomEngine& engine) {
      PolarNormal<T> dist(static_cast<T>(mean), static_cast<T>(stddev));
      for (int64_t i = 0; i < n; ++i) p[i] = dist(engine);
    });
  });
}

void randint(const Shape& shape, DType dtype, int64_t low, int64_t high, uint64_t seed,
             Tensor* out) {
  SKIFF_CHECK(dtype == DType::kI32 || dtype == DType::kI64,
              "randint: dtype must be int32 or int64, got ", dtype_name(dtype));
  SKIFF_CHECK(low < high, "randint: high (", high, ") must be above low (", low, ")");
  SKIFF_CHECK(shape.known(), "randint: the shape must be fully known, got ", shape);
  SKIFF_CHECK(dtype == DType::kI64 || (low >= INT32_MIN && high - 1 <= INT32_MAX), "randint: [",
              low, ", ", high, ") does not fit int32");
  out->resize(shape, dtype);
  const int64_t n = out->numel();
  SKIFF_DISPATCH_NUMERIC(dtype, T, {
    T* p = out->data<T>();
    with_engine(seed, [&](RandomEngine& engine) {
      std::uniform_int_distribution<int64_t> dist(low, high - 1);
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(dist(engine));
    });
  });
}

void draw_keep_mask(uint64_t seed, double p, int64_t n, uint8_t* keep) {
  const float threshold = static_cast<float>(p);
  with_engine(seed, [&](RandomEngine& engine) {
    for (int64_t i = 0; i < n; ++i) keep[i] = canonical<float>(engine()) < threshold ? 0 : 1;
  });
}

void randperm(int64_t n, DType dtype, uint64_t seed, Tensor* out) {
  SKIFF_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  SKIFF_CHECK(dtype == DType::kI32 || dtype == DType::kI64 || is_floating(dtype),
              "randperm: dtype must be int32, int64, float32 or float64, got ", dtype_name(dtype));
  out->resize(Shape{n}, dtype);
  SKIFF_DISPATCH_NUMERIC(dtype, T, {
    T* p = out->data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(i);
    with_engine(seed, [&](RandomEngine& engine) { std::shuffle(p, p + n, engine); });
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
  const int64_t n = out->numel();
  // Standardised bounds; a range above the mean is drawn mirrored below it, where the
  // CDF keeps its precision (the draw u then maps through 1 - u, so a value is the same
  // function of its draw either way).
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
    // The uniform draws in order from the engine (as Paddle's kernel), then the inverse
    // CDF of each, in parallel.
    with_engine(seed, [&](RandomEngine& engine) {
      for (int64_t i = 0; i < n; ++i) p[i] = canonical<T>(engine());
    });
    parallel_for(n, kParallelGrain / 64, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const double u = mirror ? 1.0 - static_cast<double>(p[i]) : static_cast<double>(p[i]);
        const double z = stddev > 0 ? inverse_normal_cdf(cdf_lo + cdf_span * u, lo, hi) : 0.0;
        T v = static_cast<T>(mean + sign * stddev * z);
        p[i] = std::min(std::max(v, ta), tb);
      }
    });
  });
}

}  // namespace skiff::kernels
