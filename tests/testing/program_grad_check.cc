#include "tests/testing/program_grad_check.h"

#include <gtest/gtest.h>

#include "skiff/autodiff/backward.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"

namespace skiff::testing {

namespace {

double run_loss(const Program& program, const std::map<std::string, Tensor>& params,
                const std::map<std::string, Tensor>& feeds, const std::string& loss) {
  Scope scope;
  for (const auto& [n, t] : params) scope.var(n)->set(t.clone());
  std::vector<Tensor> out = Executor().run(program, &scope, feeds, {loss});
  return out[0].item<double>();
}

}  // namespace

void check_program_grad(const Program& forward, const std::string& loss,
                        const std::map<std::string, Tensor>& params,
                        const std::map<std::string, Tensor>& feeds, double eps, double atol,
                        double rtol) {
  Program backward = forward;
  BackwardOptions opts;
  for (const auto& [n, t] : params) opts.parameters.push_back(n);
  auto param_grads = append_backward(backward, loss, opts);

  Scope scope;
  for (const auto& [n, t] : params) scope.var(n)->set(t.clone());
  std::vector<std::string> names;
  for (const auto& [p, g] : param_grads) names.push_back(g);
  std::vector<Tensor> grads = Executor().run(backward, &scope, feeds, names);

  ASSERT_EQ(param_grads.size(), params.size()) << "some parameter got no gradient";
  for (size_t k = 0; k < param_grads.size(); ++k) {
    const std::string& p = param_grads[k].first;
    const Tensor& base = params.at(p);
    Tensor numeric = Tensor::zeros(base.shape(), DType::kF64);
    for (int64_t j = 0; j < base.numel(); ++j) {
      auto plus = params, minus = params;
      plus[p] = base.clone();
      minus[p] = base.clone();
      plus[p].data<double>()[j] += eps;
      minus[p].data<double>()[j] -= eps;
      numeric.data<double>()[j] =
          (run_loss(forward, plus, feeds, loss) - run_loss(forward, minus, feeds, loss)) /
          (2 * eps);
    }
    std::string why;
    EXPECT_TRUE(all_close(grads[k], numeric, atol, rtol, &why))
        << "gradient of " << p << " vs finite differences: " << why;
  }
}

}  // namespace skiff::testing
