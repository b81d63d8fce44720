// relu, tanh, sigmoid, exp, log, gelu (both forms), leaky_relu, elu, silu, softplus,
// sqrt, rsqrt, pow, softshrink: values against float64 std:: references in f32 and f64 (tiny,
// medium and threaded sizes), attrs, special values, in-place use, gradients by finite differences,
// and the grad ops in each float dtype against references.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "skiff/kernels/cpu/activation.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr DType kFloatTypes[] = {DType::kF32, DType::kF64};

struct ActivationCase {
  const char* type;
  std::function<double(double)> f;
  // The derivative as a function of x and y = f(x).
  std::function<double(double, double)> df;
  double lo, hi;  // input range
  // Where f' jumps: gradient checks keep their inputs 0.1 away from it.
  std::optional<double> kink = std::nullopt;
  AttrList attrs = {};
};

constexpr std::nullopt_t kNoKink = std::nullopt;

AttrList attrs(std::initializer_list<std::pair<std::string, Attr>> list) { return AttrList(list); }

constexpr double kPi = 3.14159265358979323846;

double gelu_erf(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double gelu_erf_grad(double x) {
  return 0.5 * (1 + std::erf(x / std::sqrt(2.0))) + x * std::exp(-0.5 * x * x) / std::sqrt(2 * kPi);
}
double gelu_tanh(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x)));
}
double gelu_tanh_grad(double x) {
  const double k = std::sqrt(2 / kPi), t = std::tanh(k * (x + 0.044715 * x * x * x));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x);
}
double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double softplus(double x, double beta, double threshold) {
  return beta * x > threshold ? x : std::log1p(std::exp(beta * x)) / beta;
}

const ActivationCase kOps[] = {
    {"relu", [](double x) { return x > 0 ? x : 0; },
     [](double x, double) { return x > 0 ? 1.0 : 0.0; }, -2, 2, 0.0},
    {"tanh", [](double x) { return std::tanh(x); }, [](double, double y) { return 1 - y * y; }, -3,
     3},
    {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); },
     [](double, double y) { return y * (1 - y); }, -12, 12},
    {"exp", [](double x) { return std::exp(x); }, [](double, double y) { return y; }, -5, 5},
    {"log", [](double x) { return std::log(x); }, [](double x, double) { return 1 / x; }, 0.1, 10},
    {"gelu", gelu_erf, [](double x, double) { return gelu_erf_grad(x); }, -4, 4},
    {"gelu", gelu_tanh, [](double x, double) { return gelu_tanh_grad(x); }, -4, 4, kNoKink,
     attrs({{"approximate", true}})},
    {"leaky_relu", [](double x) { return x > 0 ? x : 0.02 * x; },
     [](double x, double) { return x > 0 ? 1.0 : 0.02; }, -2, 2, 0.0},
    {"leaky_relu", [](double x) { return x > 0 ? x : -0.3 * x; },
     [](double x, double) { return x > 0 ? 1.0 : -0.3; }, -2, 2, 0.0, attrs({{"alpha", -0.3}})},
    {"elu", [](double x) { return x > 0 ? x : std::expm1(x); },
     [](double x, double) { return x > 0 ? 1.0 : std::exp(x); }, -4, 2, 0.0},
    {"elu", [](double x) { return x > 0 ? x : 0.5 * std::expm1(x); },
     [](double x, double) { return x > 0 ? 1.0 : 0.5 * std::exp(x); }, -4, 2, 0.0,
     attrs({{"alpha", 0.5}})},
    {"silu", [](double x) { return x * sigmoid(x); },
     [](double x, double) { return sigmoid(x) * (1 + x * (1 - sigmoid(x))); }, -8, 8},
    {"softplus", [](double x) { return softplus(x, 1, 20); },
     [](double x, double) { return x > 20 ? 1.0 : sigmoid(x); }, -30, 30, 20.0},
    {"softplus", [](double x) { return softplus(x, 2, 5); },
     [](double x, double) { return 2 * x > 5 ? 1.0 : sigmoid(2 * x); }, -6, 6, 2.5,
     attrs({{"beta", 2.0}, {"threshold", 5.0}})},
    {"sqrt", [](double x) { return std::sqrt(x); }, [](double, double y) { return 0.5 / y; }, 0.1,
     10},
    {"rsqrt", [](double x) { return 1 / std::sqrt(x); },
     [](double, double y) { return -0.5 * y * y * y; }, 0.1, 10},
    {"pow", [](double x) { return std::pow(x, 2.5); },
     [](double x, double) { return 2.5 * std::pow(x, 1.5); }, 0.1, 3, kNoKink,
     attrs({{"factor", 2.5}})},
    {"pow", [](double x) { return x * x * x; }, [](double x, double) { return 3 * x * x; }, -2, 2,
     kNoKink, attrs({{"factor", 3.0}})},
    {"pow", [](double) { return 1.0; }, [](double, double) { return 0.0; }, -2, 2, kNoKink,
     attrs({{"factor", 0.0}})},
};

// Ops whose grad op reads the forward Out instead of X.
bool grad_reads_out(const std::string& type) {
  for (const char* t : {"relu", "tanh", "sigmoid", "exp", "sqrt", "rsqrt"})
    if (type == t) return true;
  return false;
}

OpTest activation_op(const ActivationCase& op, const Tensor& x) {
  OpTest t(op.type);
  t.input("X", x);
  for (const auto& [name, value] : op.attrs) t.attr(name, value);
  return t;
}

// "softplus beta=2 threshold=5" for traces.
std::string label(const ActivationCase& op) {
  std::string s = op.type;
  for (const auto& [name, value] : op.attrs) s += " " + name + "=" + attr_str(value);
  return s;
}

Tensor map_f64(const Tensor& x64, const std::function<double(double)>& f) {
  Tensor out = Tensor::empty(x64.shape(), DType::kF64);
  for (int64_t i = 0; i < x64.numel(); ++i) out.data<double>()[i] = f(x64.data<double>()[i]);
  return out;
}

const Shape kShapes[] = {{}, {1, 16}, {3, 5}, {1000}, {300, 300}};

TEST(ActivationOps, ForwardMatchesReference) {
  for (const ActivationCase& op : kOps) {
    for (DType dtype : kFloatTypes) {
      for (const Shape& s : kShapes) {
        SCOPED_TRACE(str_cat(label(op), " ", dtype_name(dtype), " ", s));
        Tensor x = random_tensor(s, dtype, 1, op.lo, op.hi);
        Tensor want = from_f64(map_f64(to_f64(x), op.f), dtype);
        OpTest t = activation_op(op, x);
        if (dtype == DType::kF32) {
          t.check_output("Out", want, 1e-6, 4e-6);
        } else {
          t.check_output("Out", want, 1e-14, 1e-13);
        }
      }
    }
  }
}

TEST(ActivationOps, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    const char* type;
    std::vector<double> x, want;
    AttrList attrs = {};
  };
  const Case cases[] = {
      {"relu", {nan, -inf, inf, -0.5, 0}, {nan, 0, inf, 0, 0}},
      {"tanh", {-inf, inf, 50, -50, 0}, {-1, 1, 1, -1, 0}},
      {"sigmoid", {-inf, inf, 0, -800, 800}, {0, 1, 0.5, 0, 1}},
      {"exp", {-inf, 0, 1000, -1000, 1}, {0, 1, inf, 0, std::exp(1.0)}},
      {"log", {0, -1, 1, inf, nan}, {-inf, nan, 0, inf, nan}},
      {"gelu", {nan, inf, 50, -50, 0}, {nan, inf, 50, 0, 0}},
      {"gelu", {nan, inf, 50, -50, 0}, {nan, inf, 50, 0, 0}, {{"approximate", true}}},
      {"leaky_relu", {nan, -inf, inf, -1, 0}, {nan, -inf, inf, -0.02, 0}},
      {"elu", {nan, -inf, inf, -1000, 0}, {nan, -1, inf, -1, 0}},
      {"silu", {nan, inf, -200, 0, 200}, {nan, inf, 0, 0, 200}},
      {"softplus", {nan, -inf, inf, -200, 30, 0}, {nan, 0, inf, 0, 30, std::log(2.0)}},
      {"sqrt", {0, -1, inf, 4, nan}, {0, nan, inf, 2, nan}},
      {"rsqrt", {0, -1, inf, 4, nan}, {inf, nan, 0, 0.5, nan}},
      {"pow", {-3, inf, nan, 0, 2}, {9, inf, nan, 0, 4}, {{"factor", 2.0}}},
      {"pow", {-1, 0, inf, 4}, {nan, 0, inf, 2}, {{"factor", 0.5}}},
      {"pow", {0, 4, -inf}, {inf, 0.25, 0}, {{"factor", -1.0}}},
  };
  for (const Case& c : cases) {
    for (DType dtype : kFloatTypes) {
      SCOPED_TRACE(str_cat(c.type, " ", dtype_name(dtype)));
      Shape s{static_cast<int64_t>(c.x.size())};
      OpTest t(c.type);
      t.input("X", from_f64(Tensor::from_vector<double>(s, c.x), dtype));
      for (const auto& [name, value] : c.attrs) t.attr(name, value);
      t.check_output("Out", from_f64(Tensor::from_vector<double>(s, c.want), dtype), 1e-6, 1e-6);
    }
  }
}

TEST(ActivationOps, IntegerInputHasNoKernel) {
  OpTest t("tanh");
  t.input("X", Tensor::from_vector<int32_t>({2}, {1, 2}));
  try {
    t.run();
    FAIL() << "expected skiff::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos) << e.what();
  }
}

TEST(ActivationKernels, InPlaceOutput) {
  Tensor x = Tensor::from_vector<float>({3}, {-1, 0, 2});
  kernels::activation(kernels::Activation::kRelu, x, &x);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 0, 2}));
  Tensor y = Tensor::from_vector<double>({2}, {0, 1});
  Tensor kept = y;  // shares storage: the kernel must not write through it
  kernels::activation(kernels::Activation::kExp, y, &y);
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{1, std::exp(1.0)}));
  EXPECT_EQ(kept.to_vector<double>(), (std::vector<double>{0, 1}));
}

// Gradients that keep an intermediate (gelu's tanh form, silu) may write over Out@GRAD.
TEST(ActivationKernels, GradMayOverwriteOutGrad) {
  kernels::ActivationParams tanh_form;
  tanh_form.approximate = true;
  for (kernels::Activation kind : {kernels::Activation::kGelu, kernels::Activation::kSilu}) {
    SCOPED_TRACE(kernels::activation_name(kind));
    Tensor x = random_tensor({1000}, DType::kF32, 7, -3, 3);
    Tensor d = random_tensor({1000}, DType::kF32, 8);
    Tensor want;
    kernels::activation_grad(kind, x, d, &want, tanh_form);
    Tensor d_copy = d.clone();
    kernels::activation_grad(kind, x, d_copy, &d_copy, tanh_form);
    EXPECT_EQ(d_copy.to_vector<float>(), want.to_vector<float>());
  }
}

TEST(ActivationOps, Errors) {
  OpTest t("softplus");
  t.input("X", Tensor::from_vector<float>({2}, {1, 2})).attr("beta", 0.0);
  testing::expect_error(t, {"softplus", "beta must not be 0"});
}

TEST(ActivationOps, GradientsMatchFiniteDifferences) {
  for (const ActivationCase& op : kOps) {
    for (const Shape& s : {Shape{}, Shape{2, 7}}) {
      SCOPED_TRACE(str_cat(label(op), " ", s));
      // Keep inputs 0.1 away from a kink so that no finite difference straddles it.
      Tensor x = random_tensor(s, DType::kF64, 2, op.lo, op.hi);
      if (op.kink) {
        const double k = *op.kink;
        x = map_f64(x, [k](double v) { return v < k ? v - 0.1 : v + 0.1; });
      }
      activation_op(op, x).check_grad({"X"}, "Out", 1e-6, 1e-6, 1e-5);
    }
  }
}

// The grad ops in each float dtype (check_grad runs in float64), including the
// threaded size: X@GRAD = Out@GRAD * f'(x).
TEST(ActivationOps, GradOpsMatchReference) {
  for (const ActivationCase& op : kOps) {
    const bool reads_x = !grad_reads_out(op.type);
    for (DType dtype : kFloatTypes) {
      for (const Shape& s : {Shape{1, 16}, Shape{300, 300}}) {
        SCOPED_TRACE(str_cat(label(op), " grad ", dtype_name(dtype), " ", s));
        Tensor x = to_f64(random_tensor(s, dtype, 3, op.lo, op.hi));
        Tensor y = to_f64(from_f64(map_f64(x, op.f), dtype));
        Tensor d = to_f64(random_tensor(s, dtype, 4));
        Tensor want = Tensor::empty(s, DType::kF64);
        for (int64_t i = 0; i < x.numel(); ++i) {
          want.data<double>()[i] =
              d.data<double>()[i] * op.df(x.data<double>()[i], y.data<double>()[i]);
        }
        OpTest t(std::string(op.type) + "_grad");
        if (reads_x) {
          t.input("X", from_f64(x, dtype));
        } else {
          t.input("Out", from_f64(y, dtype));
        }
        t.input("Out@GRAD", from_f64(d, dtype)).output("X@GRAD");
        for (const auto& [name, value] : op.attrs) t.attr(name, value);
        if (dtype == DType::kF32) {
          t.check_output("X@GRAD", from_f64(want, dtype), 1e-5, 1e-5);
        } else {
          t.check_output("X@GRAD", from_f64(want, dtype), 1e-13, 1e-12);
        }
      }
    }
  }
}

// ---- softshrink ----

// Moves values within 0.1 of `kink` 0.1 further away, so finite differences avoid it.
Tensor away_from(const Tensor& x64, double kink) {
  return map_f64(x64, [kink](double v) { return v < kink ? v - 0.1 : v + 0.1; });
}

TEST(Softshrink, ValuesGradientsAndErrors) {
  const double t = 0.75;
  auto shrink = [t](double v) { return v > t ? v - t : v < -t ? v + t : 0.0; };
  for (DType dtype : {DType::kF32, DType::kF64}) {
    const Tensor x = random_tensor({4, 9}, dtype, 5, -3, 3);
    OpTest op("softshrink");
    op.input("X", x).attr("threshold", t);
    op.check_output("Out", from_f64(map_f64(to_f64(x), shrink), dtype));
  }
  OpTest grad("softshrink");
  grad.input("X", away_from(away_from(random_tensor({3, 5}, DType::kF64, 6, -3, 3), t), -t))
      .attr("threshold", t);
  grad.check_grad({"X"});
  OpTest negative("softshrink");
  negative.input("X", random_tensor({2}, DType::kF64, 7)).attr("threshold", -1.0);
  expect_error(negative, {"softshrink", "threshold must be >= 0", "-1"});
}

}  // namespace
}  // namespace skiff
