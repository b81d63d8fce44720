// adamax, adadelta, nadam, radam, lamb: several in-place steps (f32 and f64, small and
// threaded sizes) each checked against a double-precision reference written from the
// explicit-step formulas (t, beta^t, 0.96^(t*psi) instead of the ops' recurrences);
// one out-of-place step per op through the shared harness; values PaddlePaddle gives;
// shape and configuration errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr DType kFloatTypes[] = {DType::kF32, DType::kF64};
using Values = std::vector<double>;
using State = std::map<std::string, Values>;  // slot -> values (per-step values: element 0)

// One optimizer op: its state slots and a reference step on the state at step t
// (1-based) with gradient g and learning rate lr.
struct Case {
  std::string type;
  AttrList attrs;
  std::vector<std::pair<std::string, double>> like_param;  // slot, initial value
  std::vector<std::pair<std::string, double>> step_values;
  bool step_values_like_param = false;  // else shaped [1]
  std::function<void(State& s, int t, const Values& g, double lr)> reference;
};

Tensor filled(const Shape& shape, double value) {
  Tensor t = Tensor::empty(shape, DType::kF64);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = value;
  return t;
}

double sum_squares(const Values& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return s;
}

Case adamax_case(double b1, double b2, double eps) {
  Case c{"adamax",
         {{"beta1", b1}, {"beta2", b2}, {"epsilon", eps}},
         {{"Moment", 0}, {"InfNorm", 0}},
         {{"Beta1Pow", b1}},
         false,
         {}};
  c.reference = [=](State& s, int t, const Values& g, double lr) {
    for (size_t i = 0; i < g.size(); ++i) {
      s["Moment"][i] = b1 * s["Moment"][i] + (1 - b1) * g[i];
      s["InfNorm"][i] = std::max(std::abs(g[i]), b2 * s["InfNorm"][i] + eps);
      s["Param"][i] -= lr / (1 - std::pow(b1, t)) * s["Moment"][i] / s["InfNorm"][i];
    }
    s["Beta1Pow"][0] = std::pow(b1, t + 1);
  };
  return c;
}

Case adadelta_case(double rho, double eps) {
  Case c{"adadelta",
         {{"rho", rho}, {"epsilon", eps}},
         {{"AvgSquaredGrad", 0}, {"AvgSquaredUpdate", 0}},
         {},
         false,
         {}};
  c.reference = [=](State& s, int, const Values& g, double lr) {
    for (size_t i = 0; i < g.size(); ++i) {
      double& eg = s["AvgSquaredGrad"][i];
      double& edx = s["AvgSquaredUpdate"][i];
      eg = rho * eg + (1 - rho) * g[i] * g[i];
      const double d = -std::sqrt(edx + eps) / std::sqrt(eg + eps) * g[i];
      s["Param"][i] += lr * d;
      edx = rho * edx + (1 - rho) * d * d;
    }
  };
  return c;
}

Case nadam_case(double b1, double b2, double eps, double psi) {
  Case c{"nadam",
         {{"beta1", b1}, {"beta2", b2}, {"epsilon", eps}, {"momentum_decay", psi}},
         {{"Moment1", 0}, {"Moment2", 0}},
         {{"MomentumDecayPow", 1}, {"Beta2Pow", 1}, {"MuProduct", 1}},
         /*step_values_like_param=*/true,
         {}};
  c.reference = [=](State& s, int t, const Values& g, double lr) {
    auto mu = [&](int k) { return b1 * (1 - 0.5 * std::pow(0.96, k * psi)); };
    double product = 1;
    for (int k = 1; k <= t; ++k) product *= mu(k);
    for (size_t i = 0; i < g.size(); ++i) {
      double& m = s["Moment1"][i];
      double& v = s["Moment2"][i];
      m = b1 * m + (1 - b1) * g[i];
      v = b2 * v + (1 - b2) * g[i] * g[i];
      const double m_hat =
          mu(t + 1) * m / (1 - product * mu(t + 1)) + (1 - mu(t)) * g[i] / (1 - product);
      s["Param"][i] -= lr * m_hat / (std::sqrt(v / (1 - std::pow(b2, t))) + eps);
    }
    s["MomentumDecayPow"][0] = std::pow(0.96, t);
    s["Beta2Pow"][0] = std::pow(b2, t);
    s["MuProduct"][0] = product;
  };
  return c;
}

Case radam_case(double b1, double b2, double eps) {
  Case c{"radam",
         {{"beta1", b1}, {"beta2", b2}, {"epsilon", eps}},
         {{"Moment1", 0}, {"Moment2", 0}},
         {{"Beta1Pow", 1}, {"Beta2Pow", 1}, {"Rho", 1}},
         /*step_values_like_param=*/true,
         {}};
  c.reference = [=](State& s, int t, const Values& g, double lr) {
    const double b1t = std::pow(b1, t), b2t = std::pow(b2, t);
    const double rho_inf = 2 / (1 - b2) - 1, rho = t * b2t / (1 - b2t);
    const double rho_t = rho_inf - 2 * rho;
    const double r =
        std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
    for (size_t i = 0; i < g.size(); ++i) {
      double& m = s["Moment1"][i];
      double& v = s["Moment2"][i];
      m = b1 * m + (1 - b1) * g[i];
      v = b2 * v + (1 - b2) * g[i] * g[i];
      const double m_hat = m / (1 - b1t);
      s["Param"][i] -=
          rho_t > 5 ? lr * m_hat * r * std::sqrt(1 - b2t) / (std::sqrt(v) + eps) : lr * m_hat;
    }
    s["Beta1Pow"][0] = b1t, s["Beta2Pow"][0] = b2t, s["Rho"][0] = rho;
  };
  return c;
}

Case lamb_case(double b1, double b2, double eps, double decay, bool always_adapt) {
  Case c{"lamb",
         {{"beta1", b1},
          {"beta2", b2},
          {"epsilon", eps},
          {"weight_decay", decay},
          {"always_adapt", always_adapt}},
         {{"Moment1", 0}, {"Moment2", 0}},
         {{"Beta1Pow", b1}, {"Beta2Pow", b2}},
         false,
         {}};
  c.reference = [=](State& s, int t, const Values& g, double lr) {
    Values r(g.size());
    for (size_t i = 0; i < g.size(); ++i) {
      double& m = s["Moment1"][i];
      double& v = s["Moment2"][i];
      m = b1 * m + (1 - b1) * g[i];
      v = b2 * v + (1 - b2) * g[i] * g[i];
      r[i] = (m / (1 - std::pow(b1, t))) / (std::sqrt(v / (1 - std::pow(b2, t))) + eps) +
             decay * s["Param"][i];
    }
    const double pn = std::sqrt(sum_squares(s["Param"])), rn = std::sqrt(sum_squares(r));
    const double ratio = (decay > 0 || always_adapt) && pn > 0 && rn > 0 ? pn / rn : 1.0;
    for (size_t i = 0; i < g.size(); ++i) s["Param"][i] -= lr * ratio * r[i];
    s["Beta1Pow"][0] = std::pow(b1, t + 1), s["Beta2Pow"][0] = std::pow(b2, t + 1);
  };
  return c;
}

std::vector<Case> all_cases() {
  return {adamax_case(0.9, 0.99, 1e-8),
          adamax_case(0.8, 0.999, 0.1),
          adadelta_case(0.9, 1e-6),
          adadelta_case(0.5, 1e-2),
          nadam_case(0.9, 0.999, 1e-8, 0.004),
          nadam_case(0.8, 0.99, 1e-3, 0.3),
          radam_case(0.9, 0.99, 1e-8),
          radam_case(0.8, 0.999, 1e-3),
          lamb_case(0.9, 0.999, 1e-6, 0.01, false),
          lamb_case(0.8, 0.99, 1e-3, 0.0, false),
          lamb_case(0.9, 0.99, 1e-6, 0.0, true)};
}

double atol_for(DType t) { return t == DType::kF32 ? 3e-6 : 1e-13; }
double rtol_for(DType t) { return t == DType::kF32 ? 3e-5 : 1e-11; }

Values values_of(const Tensor& t) { return to_f64(t).to_vector<double>(); }

void expect_close(const Values& got, const Values& want, DType dtype, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], atol_for(dtype) + rtol_for(dtype) * std::abs(want[i]))
        << what << " element " << i;
  }
}

// Runs `steps` in-place steps of c on a parameter shaped `shape`, checking every
// output after each step against the reference applied to the state before it.
void check_in_place_steps(const Case& c, DType dtype, const Shape& shape, int steps) {
  const double lr = 0.05;
  Program prog;
  BlockBuilder b(&prog);
  std::vector<Slot> ins = {{"Param", {"Param"}}, {"Grad", {"Grad"}}, {"LearningRate", {"lr"}}};
  std::vector<Slot> outs = {{"ParamOut", {"Param"}}};
  for (const char* n : {"Param", "Grad"}) b.persistable(n, dtype, shape);
  b.persistable("lr", dtype, {1});
  Scope scope;
  scope.var("Param")->set(from_f64(random_tensor(shape, DType::kF64, 7), dtype));
  scope.var("lr")->set(from_f64(Tensor::from_vector<double>({1}, {lr}), dtype));
  auto add_state = [&](const std::string& slot, double init, const Shape& s) {
    b.persistable(slot, dtype, s);
    ins.push_back({slot, {slot}});
    outs.push_back({slot + "Out", {slot}});
    scope.var(slot)->set(from_f64(filled(s, init), dtype));
  };
  for (const auto& [slot, init] : c.like_param) add_state(slot, init, shape);
  for (const auto& [slot, init] : c.step_values)
    add_state(slot, init, c.step_values_like_param ? shape : Shape{1});
  b.op(c.type, ins, outs, c.attrs);
  Executor exe;
  auto prepared = exe.prepare(prog);
  for (int t = 1; t <= steps; ++t) {
    SCOPED_TRACE("step " + std::to_string(t));
    const Tensor g = from_f64(random_tensor(shape, DType::kF64, 100 + t), dtype);
    scope.var("Grad")->set(g);
    State want;
    want["Param"] = values_of(*scope.find_var("Param")->tensor());
    for (const auto& [slot, init] : c.like_param)
      want[slot] = values_of(*scope.find_var(slot)->tensor());
    for (const auto& [slot, init] : c.step_values)
      want[slot] = {values_of(*scope.find_var(slot)->tensor())[0]};
    c.reference(want, t, values_of(g), lr);
    exe.run(*prepared, &scope);
    for (const auto& [slot, values] : want) {
      Values got = values_of(*scope.find_var(slot)->tensor());
      if (values.size() == 1 && got.size() > 1) {  // a per-step value: every element equal
        expect_close(got, Values(got.size(), values[0]), dtype, slot);
      } else {
        expect_close(got, values, dtype, slot);
      }
    }
  }
}

TEST(AdaptiveOptimizerOps, InPlaceStepsMatchReference) {
  for (const Case& c : all_cases()) {
    for (DType dtype : kFloatTypes) {
      SCOPED_TRACE(c.type + " " + dtype_name(dtype));
      check_in_place_steps(c, dtype, {4, 5}, 8);
    }
  }
}

TEST(AdaptiveOptimizerOps, ThreadedSizesMatchReference) {
  // 160 * 130 elements: past the size where the updates split across threads.
  for (const Case& c :
       {adamax_case(0.9, 0.99, 1e-8), adadelta_case(0.9, 1e-6), nadam_case(0.9, 0.999, 1e-8, 0.004),
        radam_case(0.9, 0.99, 1e-8), lamb_case(0.9, 0.999, 1e-6, 0.01, false)}) {
    for (DType dtype : kFloatTypes) {
      SCOPED_TRACE(c.type + " " + dtype_name(dtype));
      check_in_place_steps(c, dtype, {160, 130}, 3);
    }
  }
}

// One out-of-place step through the harness (outputs are fresh variables).
TEST(AdaptiveOptimizerOps, HarnessStepMatchesReference) {
  const double lr = 0.1;
  const Shape shape{3, 4};
  for (const Case& c : all_cases()) {
    for (DType dtype : kFloatTypes) {
      SCOPED_TRACE(c.type + " " + dtype_name(dtype));
      const Tensor p = from_f64(random_tensor(shape, DType::kF64, 3), dtype);
      const Tensor g = from_f64(random_tensor(shape, DType::kF64, 4), dtype);
      OpTest test(c.type);
      test.input("Param", p).input("Grad", g);
      test.input("LearningRate", from_f64(Tensor::from_vector<double>({1}, {lr}), dtype));
      test.output("ParamOut");
      State want{{"Param", values_of(p)}};
      for (const auto& [slot, init] : c.like_param) {
        test.input(slot, from_f64(filled(shape, init), dtype));
        test.output(slot + "Out");
        want[slot] = Values(shape.numel(), init);
      }
      for (const auto& [slot, init] : c.step_values) {
        test.input(slot, from_f64(Tensor::from_vector<double>({1}, {init}), dtype));
        test.output(slot + "Out");
        want[slot] = {init};
      }
      for (const auto& [name, value] : c.attrs) test.attr(name, value);
      c.reference(want, 1, values_of(g), lr);
      for (const auto& [slot, values] : want) {
        const Shape out_shape = values.size() == 1 ? Shape{1} : shape;
        test.check_output(slot + "Out",
                          from_f64(Tensor::from_vector<double>(out_shape, values), dtype),
                          atol_for(dtype), rtol_for(dtype));
      }
    }
  }
}

// Runs c in place for `steps` steps on the 2x2 setting below (float64, every state at
// its initial value, the same gradient each step); returns the parameter.
Values paddle_setting(const Case& c, int steps) {
  const Shape shape{2, 2};
  Program prog;
  BlockBuilder b(&prog);
  std::vector<Slot> ins = {{"Param", {"Param"}}, {"Grad", {"Grad"}}, {"LearningRate", {"lr"}}};
  std::vector<Slot> outs = {{"ParamOut", {"Param"}}};
  for (const char* n : {"Param", "Grad"}) b.persistable(n, DType::kF64, shape);
  b.persistable("lr", DType::kF64, {1});
  Scope scope;
  scope.var("Param")->set(Tensor::from_vector<double>(shape, {0.5, -1.0, 2.0, 0.3}));
  scope.var("Grad")->set(Tensor::from_vector<double>(shape, {0.1, -0.2, 0.3, 0.05}));
  scope.var("lr")->set(Tensor::from_vector<double>({1}, {0.1}));
  auto add_state = [&](const std::string& slot, double init, const Shape& s) {
    b.persistable(slot, DType::kF64, s);
    ins.push_back({slot, {slot}});
    outs.push_back({slot + "Out", {slot}});
    scope.var(slot)->set(filled(s, init));
  };
  for (const auto& [slot, init] : c.like_param) add_state(slot, init, shape);
  for (const auto& [slot, init] : c.step_values)
    add_state(slot, init, c.step_values_like_param ? shape : Shape{1});
  b.op(c.type, ins, outs, c.attrs);
  Executor exe;
  auto prepared = exe.prepare(prog);
  for (int s = 0; s < steps; ++s) exe.run(*prepared, &scope);
  return scope.find_var("Param")->tensor()->to_vector<double>();
}

void expect_values(const Values& got, const Values& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(AdaptiveOptimizerOps, ValuesPaddlePaddleGives) {
  // paddle.optimizer.<Name>(learning_rate=0.1) with its defaults, float64 parameters,
  // three steps. PaddlePaddle keeps beta and epsilon attributes in float32, hence 1e-7.
  expect_values(
      paddle_setting(adamax_case(0.9, 0.999, 1e-8), 3),
      {0.19999993219262707, -0.69999993219262713, 1.6999999321926271, -6.7807372966521839e-08},
      1e-7);
  expect_values(paddle_setting(adadelta_case(0.95, 1e-6), 3),
                {0.4986444804280765, -0.9986434538544089, 1.998643263493967, 0.29864856370730697},
                1e-7);
  expect_values(paddle_setting(nadam_case(0.9, 0.999, 1e-8, 0.004), 3),
                {0.24276469241139093, -0.7427646795496261, 1.7427646752623709, 0.04276471813491634},
                1e-7);
  expect_values(paddle_setting(radam_case(0.9, 0.999, 1e-8), 3), {0.47, -0.94, 1.91, 0.285}, 1e-7);
  // beta2 = 0.99: the steps from the sixth on are rectified.
  expect_values(paddle_setting(radam_case(0.9, 0.99, 1e-8), 8),
                {0.41918917430614105, -0.8691891684208413, 1.819189166459074, 0.24418918607673376},
                1e-7);
  expect_values(paddle_setting(lamb_case(0.9, 0.999, 1e-6, 0.01, false), 3),
                {0.1816616631305497, -0.6800762974244179, 1.6769082056274078, -0.01770165660048813},
                1e-7);
  // Without weight decay the trust ratio is 1 and PaddlePaddle's float32 betas show
  // (its powers start from the float64 values): 1 - 0.999f differs from 0.001 by 1.3e-5.
  Case plain = lamb_case(0.9f, 0.999f, 1e-6f, 0.0, false);
  plain.step_values = {{"Beta1Pow", 0.9}, {"Beta2Pow", 0.999}};
  expect_values(paddle_setting(plain, 3),
                {0.2000017779235960, -0.7000002779340904, 1.699999777934255, 4.777857608273539e-06},
                1e-9);
}

TEST(AdaptiveOptimizerOps, ShapeAndConfigurationErrors) {
  OpTest moment("adamax");
  moment.input("Param", Tensor::zeros({3}, DType::kF32))
      .input("Grad", Tensor::zeros({3}, DType::kF32))
      .input("LearningRate", Tensor::zeros({1}, DType::kF32))
      .input("Moment", Tensor::zeros({4}, DType::kF32))
      .input("InfNorm", Tensor::zeros({3}, DType::kF32))
      .input("Beta1Pow", Tensor::zeros({1}, DType::kF32))
      .output("ParamOut")
      .output("MomentOut")
      .output("InfNormOut");
  expect_error(moment, {"Moment", "[4]", "[3]"});

  OpTest rate("adadelta");
  rate.input("Param", Tensor::zeros({3}, DType::kF64))
      .input("Grad", Tensor::zeros({3}, DType::kF64))
      .input("LearningRate", Tensor::zeros({2}, DType::kF64))
      .input("AvgSquaredGrad", Tensor::zeros({3}, DType::kF64))
      .input("AvgSquaredUpdate", Tensor::zeros({3}, DType::kF64))
      .output("ParamOut")
      .output("AvgSquaredGradOut")
      .output("AvgSquaredUpdateOut");
  expect_error(rate, {"LearningRate", "one-element"});

  OpTest power("lamb");
  power.input("Param", Tensor::zeros({3}, DType::kF32))
      .input("Grad", Tensor::zeros({3}, DType::kF32))
      .input("LearningRate", Tensor::zeros({1}, DType::kF32))
      .input("Moment1", Tensor::zeros({3}, DType::kF32))
      .input("Moment2", Tensor::zeros({3}, DType::kF32))
      .input("Beta1Pow", Tensor::from_vector<float>({1}, {1.0f}))
      .input("Beta2Pow", Tensor::from_vector<float>({1}, {0.5f}))
      .output("ParamOut")
      .output("Moment1Out")
      .output("Moment2Out");
  expect_error(power, {"lamb", "Beta1Pow (1)", "below 1"});

  OpTest grad_dtype("nadam");
  grad_dtype.input("Param", Tensor::zeros({2}, DType::kF32))
      .input("Grad", Tensor::zeros({2}, DType::kF64))
      .input("LearningRate", Tensor::zeros({1}, DType::kF32));
  for (const char* slot : {"MomentumDecayPow", "Beta2Pow", "MuProduct", "Moment1", "Moment2"})
    grad_dtype.input(slot, Tensor::zeros({2}, DType::kF32)).output(std::string(slot) + "Out");
  grad_dtype.output("ParamOut");
  expect_error(grad_dtype, {"Grad", "float64", "float32"});

  Program prog;
  BlockBuilder b(&prog);
  for (const char* n : {"p", "m1", "m2", "b1p", "b2p", "rho"})
    b.persistable(n, DType::kF32, {4, 2});
  b.persistable("lr", DType::kF32, {1});
  b.block().add_var(VarDesc("g", DType::kF32, Shape{4, 2}, VarKind::kSelectedRows));
  const std::string message = testing::error_of([&] {
    b.op("radam",
         {{"Param", {"p"}},
          {"Grad", {"g"}},
          {"LearningRate", {"lr"}},
          {"Beta1Pow", {"b1p"}},
          {"Beta2Pow", {"b2p"}},
          {"Rho", {"rho"}},
          {"Moment1", {"m1"}},
          {"Moment2", {"m2"}}},
         {{"ParamOut", {"p"}},
          {"Beta1PowOut", {"b1p"}},
          {"Beta2PowOut", {"b2p"}},
          {"RhoOut", {"rho"}},
          {"Moment1Out", {"m1"}},
          {"Moment2Out", {"m2"}}});
  });
  EXPECT_NE(message.find("selected rows"), std::string::npos) << message;
}

}  // namespace
}  // namespace skiff
