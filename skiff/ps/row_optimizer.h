// Server-side update rules applied to one row (or a dense vector) given its gradient.
// A row keeps its optimizer state next to its values; state_width() says how many
// floats that state takes, init_state() fills it for a new row.
//
//   OptimizerConfig adam;
//   adam.kind = "adam";
//   std::vector<float> state(state_width(adam, dim));
//   init_state(adam, state.data(), dim);
//   update_row(adam, value, state.data(), grad, dim);  // one step
#pragma once

#include <cstdint>
#include <string>

namespace skiff::ps {

// The rule and its hyper-parameters. kind is one of:
//   sgd:     w -= lr * g                                            (no state)
//   adagrad: g2sum += g^2; w -= lr * g / (sqrt(g2sum) + epsilon)     (g2sum per element,
//            starting at initial_g2sum)
//   adam:    m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
//            w -= lr * m_hat / (sqrt(v_hat) + epsilon) with m_hat = m / (1 - beta1^t),
//            v_hat = v / (1 - beta2^t), t the row's own step count (kept as beta1^t, beta2^t)
struct OptimizerConfig {
  std::string kind = "sgd";
  float lr = 0.01f, beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f, initial_g2sum = 0;
};

// Throws skiff::Error naming `table` if the kind is unknown or a hyper-parameter is out
// of range (negative lr, betas outside [0, 1), a zero epsilon where it can divide 0 by 0).
void check_optimizer(const OptimizerConfig& config, const std::string& table);

// Floats of state one row of `dim` values needs: sgd 0, adagrad dim (g2sum),
// adam 2 * dim + 2 (m, v, then beta1^t and beta2^t).
int64_t state_width(const OptimizerConfig& config, int64_t dim);

// Fills the state of a new row: adagrad's g2sum = initial_g2sum; adam's moments = 0 and
// its powers = beta1, beta2 (the values the first step uses).
void init_state(const OptimizerConfig& config, float* state, int64_t dim);

// One update of value[0, dim) by grad[0, dim); state holds state_width(config, dim) floats.
void update_row(const OptimizerConfig& config, float* value, float* state, const float* grad,
                int64_t dim);

}  // namespace skiff::ps
