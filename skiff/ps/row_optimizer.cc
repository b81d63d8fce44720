#include "skiff/ps/row_optimizer.h"

#include <cmath>

#include "skiff/core/error.h"

namespace skiff::ps {
namespace {

void sgd(const OptimizerConfig& c, float* w, const float* g, int64_t dim) {
  for (int64_t i = 0; i < dim; ++i) w[i] -= c.lr * g[i];
}

void adagrad(const OptimizerConfig& c, float* w, float* g2sum, const float* g, int64_t dim) {
  for (int64_t i = 0; i < dim; ++i) {
    g2sum[i] += g[i] * g[i];
    w[i] -= c.lr * g[i] / (std::sqrt(g2sum[i]) + c.epsilon);
  }
}

// Adam with the bias corrections folded into the step size and epsilon:
// lr * m_hat / (sqrt(v_hat) + eps) == lr_t * m / (sqrt(v) + eps_t).
void adam(const OptimizerConfig& c, float* w, float* state, const float* g, int64_t dim) {
  float* m = state;
  float* v = state + dim;
  float& beta1_pow = state[2 * dim];
  float& beta2_pow = state[2 * dim + 1];
  const double correction2 = std::sqrt(1.0 - static_cast<double>(beta2_pow));
  const float lr_t = static_cast<float>(c.lr * correction2 / (1.0 - beta1_pow));
  const float eps_t = static_cast<float>(c.epsilon * correction2);
  for (int64_t i = 0; i < dim; ++i) {
    m[i] = c.beta1 * m[i] + (1 - c.beta1) * g[i];
    v[i] = c.beta2 * v[i] + (1 - c.beta2) * g[i] * g[i];
    w[i] -= lr_t * m[i] / (std::sqrt(v[i]) + eps_t);
  }
  beta1_pow *= c.beta1;
  beta2_pow *= c.beta2;
}

}  // namespace

void check_optimizer(const OptimizerConfig& c, const std::string& table) {
  SKIFF_CHECK(c.kind == "sgd" || c.kind == "adagrad" || c.kind == "adam", "table '", table,
              "': unknown optimizer kind '", c.kind, "' (expected sgd, adagrad or adam)");
  SKIFF_CHECK(std::isfinite(c.lr) && c.lr >= 0, "table '", table, "': ", c.kind,
              " needs a finite lr >= 0, got ", c.lr);
  if (c.kind == "adagrad") {
    SKIFF_CHECK(std::isfinite(c.initial_g2sum) && c.initial_g2sum >= 0, "table '", table,
                "': adagrad needs initial_g2sum >= 0, got ", c.initial_g2sum);
    SKIFF_CHECK(
        std::isfinite(c.epsilon) && c.epsilon >= 0 && (c.epsilon > 0 || c.initial_g2sum > 0),
        "table '", table, "': adagrad needs epsilon > 0 (or initial_g2sum > 0), got epsilon ",
        c.epsilon);
  }
  if (c.kind == "adam") {
    SKIFF_CHECK(c.beta1 >= 0 && c.beta1 < 1 && c.beta2 >= 0 && c.beta2 < 1, "table '", table,
                "': adam needs beta1 and beta2 in [0, 1), got ", c.beta1, " and ", c.beta2);
    SKIFF_CHECK(std::isfinite(c.epsilon) && c.epsilon > 0, "table '", table,
                "': adam needs epsilon > 0, got ", c.epsilon);
  }
}

int64_t state_width(const OptimizerConfig& config, int64_t dim) {
  if (config.kind == "adagrad") return dim;
  if (config.kind == "adam") return 2 * dim + 2;
  return 0;
}

void init_state(const OptimizerConfig& config, float* state, int64_t dim) {
  if (config.kind == "adagrad") {
    for (int64_t i = 0; i < dim; ++i) state[i] = config.initial_g2sum;
  } else if (config.kind == "adam") {
    for (int64_t i = 0; i < 2 * dim; ++i) state[i] = 0;
    state[2 * dim] = config.beta1;
    state[2 * dim + 1] = config.beta2;
  }
}

void update_row(const OptimizerConfig& config, float* value, float* state, const float* grad,
                int64_t dim) {
  if (config.kind == "sgd") {
    sgd(config, value, grad, dim);
  } else if (config.kind == "adagrad") {
    adagrad(config, value, state, grad, dim);
  } else if (config.kind == "adam") {
    adam(config, value, state, grad, dim);
  } else {
    fail("unknown optimizer kind '", config.kind, "'");
  }
}

}  // namespace skiff::ps
