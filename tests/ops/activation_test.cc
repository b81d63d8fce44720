// relu, tanh, sigmoid, exp, log: values against float64 std:: references in f32 and
// f64 (tiny, medium and threaded sizes), special values, in-place use, gradients by
// finite differences, and the grad ops in each float dtype against references.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "skiff/kernels/cpu/activation.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

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
};

const ActivationCase kOps[] = {
    {"relu", [](double x) { return x > 0 ? x : 0; },
     [](double x, double) { return x > 0 ? 1.0 : 0.0; }, -2, 2},
    {"tanh", [](double x) { return std::tanh(x); }, [](double, double y) { return 1 - y * y; }, -3,
     3},
    {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); },
     [](double, double y) { return y * (1 - y); }, -12, 12},
    {"exp", [](double x) { return std::exp(x); }, [](double, double y) { return y; }, -5, 5},
    {"log", [](double x) { return std::log(x); }, [](double x, double) { return 1 / x; }, 0.1, 10},
};

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
        SCOPED_TRACE(str_cat(op.type, " ", dtype_name(dtype), " ", s));
        Tensor x = random_tensor(s, dtype, 1, op.lo, op.hi);
        Tensor want = from_f64(map_f64(to_f64(x), op.f), dtype);
        OpTest t(op.type);
        t.input("X", x);
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
  };
  const Case cases[] = {
      {"relu", {nan, -inf, inf, -0.5, 0}, {nan, 0, inf, 0, 0}},
      {"tanh", {-inf, inf, 50, -50, 0}, {-1, 1, 1, -1, 0}},
      {"sigmoid", {-inf, inf, 0, -800, 800}, {0, 1, 0.5, 0, 1}},
      {"exp", {-inf, 0, 1000, -1000, 1}, {0, 1, inf, 0, std::exp(1.0)}},
      {"log", {0, -1, 1, inf, nan}, {-inf, nan, 0, inf, nan}},
  };
  for (const Case& c : cases) {
    for (DType dtype : kFloatTypes) {
      SCOPED_TRACE(str_cat(c.type, " ", dtype_name(dtype)));
      Shape s{static_cast<int64_t>(c.x.size())};
      OpTest t(c.type);
      t.input("X", from_f64(Tensor::from_vector<double>(s, c.x), dtype));
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

TEST(ActivationOps, GradientsMatchFiniteDifferences) {
  for (const ActivationCase& op : kOps) {
    for (const Shape& s : {Shape{}, Shape{2, 7}}) {
      SCOPED_TRACE(str_cat(op.type, " ", s));
      // relu: keep |x| >= 0.1 so that no finite difference straddles the kink.
      Tensor x = random_tensor(s, DType::kF64, 2, op.lo, op.hi);
      if (std::string(op.type) == "relu") {
        x = map_f64(x, [](double v) { return v < 0 ? v - 0.1 : v + 0.1; });
      }
      OpTest t(op.type);
      t.input("X", x);
      t.check_grad({"X"}, "Out", 1e-6, 1e-6, 1e-5);
    }
  }
}

// The grad ops in each float dtype (check_grad runs in float64), including the
// threaded size: X@GRAD = Out@GRAD * f'(x).
TEST(ActivationOps, GradOpsMatchReference) {
  for (const ActivationCase& op : kOps) {
    const bool reads_x = std::string(op.type) == "log";
    for (DType dtype : kFloatTypes) {
      for (const Shape& s : {Shape{1, 16}, Shape{300, 300}}) {
        SCOPED_TRACE(str_cat(op.type, "_grad ", dtype_name(dtype), " ", s));
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
        if (dtype == DType::kF32) {
          t.check_output("X@GRAD", from_f64(want, dtype), 1e-5, 1e-5);
        } else {
          t.check_output("X@GRAD", from_f64(want, dtype), 1e-13, 1e-12);
        }
      }
    }
  }
}

}  // namespace
}  // namespace skiff
