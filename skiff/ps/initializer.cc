// A counter-based generator: every element's random bits are a hash of (seed, id,
// element index, draw number), so any element can be computed on its own.
#include "skiff/ps/initializer.h"

#include <cmath>

#include "skiff/core/error.h"
#include "skiff/ps/shard.h"

namespace skiff::ps {
namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ULL;
constexpr double kTwoPi = 6.283185307179586476925286766559;
// Redraws allowed for one truncated-normal element; 2-std rejection fails with
// probability 0.0455 per draw, so the limit is never reached in practice.
constexpr int kMaxTruncatedDraws = 64;

// The key of row `id`: distinct ids give distinct keys for a given seed.
uint64_t row_key(uint64_t seed, int64_t id) {
  return mix64(mix64(seed + kGolden) ^ static_cast<uint64_t>(id));
}

// Draw `draw` of element `index`: a uniform double in [0, 1) with 53 random bits.
double uniform01(uint64_t key, int64_t index, uint64_t draw) {
  uint64_t element = mix64(key + kGolden * (static_cast<uint64_t>(index) + 1));
  uint64_t bits = mix64(element ^ (kGolden * (draw + 1) + 0x632BE59BD9B4E019ULL));
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// A standard normal from draws 2k and 2k+1 of the element (Box-Muller, cosine branch).
double standard_normal(uint64_t key, int64_t index, uint64_t k) {
  double u1 = 1.0 - uniform01(key, index, 2 * k);  // in (0, 1]: log is finite
  double u2 = uniform01(key, index, 2 * k + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

}  // namespace

void check_initializer(const InitializerConfig& config, const std::string& table) {
  const std::string& kind = config.kind;
  SKIFF_CHECK(
      kind == "uniform" || kind == "normal" || kind == "truncated_normal" || kind == "constant",
      "table '", table, "': unknown initializer kind '", kind,
      "' (expected uniform, normal, truncated_normal or constant)");
  if (kind == "uniform") {
    SKIFF_CHECK(
        std::isfinite(config.low) && std::isfinite(config.high) && config.low <= config.high,
        "table '", table, "': uniform initializer needs finite low <= high, got low ", config.low,
        ", high ", config.high);
  }
  if (kind == "normal" || kind == "truncated_normal") {
    SKIFF_CHECK(std::isfinite(config.mean) && std::isfinite(config.std) && config.std >= 0,
                "table '", table, "': ", kind,
                " initializer needs a finite mean and std >= 0, got mean ", config.mean, ", std ",
                config.std);
  }
}

void init_span(const InitializerConfig& config, int64_t id, int64_t first, float* out, int64_t n) {
  const uint64_t key = row_key(config.seed, id);
  const std::string& kind = config.kind;
  if (kind == "constant") {
    for (int64_t i = 0; i < n; ++i) out[i] = config.value;
  } else if (kind == "uniform") {
    const double low = config.low, width = static_cast<double>(config.high) - config.low;
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<float>(low + width * uniform01(key, first + i, 0));
    }
  } else if (kind == "normal") {
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<float>(config.mean + config.std * standard_normal(key, first + i, 0));
    }
  } else if (kind == "truncated_normal") {
    for (int64_t i = 0; i < n; ++i) {
      double z = 0;
      for (int k = 0; k < kMaxTruncatedDraws; ++k) {
        z = standard_normal(key, first + i, k);
        if (std::fabs(z) <= 2.0) break;
      }
      z = std::fmax(-2.0, std::fmin(2.0, z));
      out[i] = static_cast<float>(config.mean + config.std * z);
    }
  } else {
    fail("unknown initializer kind '", kind, "'");
  }
}

void init_row(const InitializerConfig& config, int64_t id, float* row, int64_t dim) {
  init_span(config, id, 0, row, dim);
}

}  // namespace skiff::ps
