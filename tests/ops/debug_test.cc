// print / print_grad: the text shown for each dtype, summarize, the phases, the
// value passed through unchanged, and the gradient printed in backward; assert: passes,
// or stops with its message and the condition's values.
#include <gtest/gtest.h>

#include "skiff/api/builder.h"
#include "skiff/autodiff/backward.h"
#include "skiff/kernels/cpu/print.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::OpTest;
using testing::random_tensor;
using ::testing::internal::CaptureStdout;
using ::testing::internal::GetCapturedStdout;

TEST(PrintOp, ShowsNameShapeDtypeAndValues) {
  OpTest t("print");
  Tensor x = Tensor::from_vector<float>({2, 2}, {1.5f, -2, 0, 4});
  t.input("In", x).attr("message", std::string("before relu:"));
  CaptureStdout();
  auto out = t.run();
  std::string text = GetCapturedStdout();
  EXPECT_NE(text.find("before relu: Variable: "), std::string::npos) << text;
  EXPECT_NE(text.find("  - shape: [2, 2]\n  - dtype: float32\n  - data: [1.5 -2 0 4]\n"),
            std::string::npos)
      << text;
  CaptureStdout();
  t.check_output("Out", x, 0, 0);
  GetCapturedStdout();
}

TEST(PrintOp, EveryDtypeAndSummarize) {
  kernels::PrintOptions o;
  o.summarize = 3;
  EXPECT_EQ(kernels::format_tensor(Tensor::from_vector<int64_t>({5}, {1, 2, 3, 4, 5}), "v", o),
            "Variable: v\n  - shape: [5]\n  - dtype: int64\n  - data: [1 2 3 ... (2 more)]\n");
  o.summarize = -1;
  o.print_shape = o.print_type = false;
  EXPECT_EQ(kernels::format_tensor(Tensor::from_vector<bool>({2}, {true, false}), "b", o),
            "Variable: b\n  - data: [true false]\n");
  EXPECT_EQ(kernels::format_tensor(Tensor::from_vector<int32_t>({}, {7}), "s", o),
            "Variable: s\n  - data: [7]\n");
  EXPECT_EQ(kernels::format_tensor(Tensor::from_vector<double>({2}, {0.25, 1e-9}), "d", o),
            "Variable: d\n  - data: [0.25 1e-09]\n");
  o.summarize = 0;
  EXPECT_EQ(kernels::format_tensor(Tensor::from_vector<float>({2}, {1, 2}), "f", o),
            "Variable: f\n  - data: [... (2 more)]\n");
}

// y = sum(print(x) * x): the backward prints the gradient reaching print (x itself),
// and x@GRAD is 2x.
TEST(PrintOp, PrintsTheGradientInBackward) {
  for (std::string phase : {"both", "backward", "forward"}) {
    SCOPED_TRACE(phase);
    Program p;
    BlockBuilder b(&p);
    std::string x = b.persistable("x", DType::kF64, {3});
    std::string shown =
        b.apply("print", {{"In", {x}}}, {{"message", std::string("x is")}, {"print_phase", phase}});
    std::string prod = b.apply("elementwise_mul", {{"X", {shown}}, {"Y", {x}}});
    std::string loss = b.apply("reduce_sum", {{"X", {prod}}}, {{"reduce_all", true}});
    append_backward(p, loss);
    Scope scope;
    scope.var(x)->set(Tensor::from_vector<double>({3}, {1, -2, 3}));
    CaptureStdout();
    auto fetched = Executor().run(p, &scope, {}, {grad_name(x)});
    std::string text = GetCapturedStdout();
    EXPECT_EQ(fetched[0].data<double>()[1], -4.0);
    bool forward = text.find("x is Variable: x\n") != std::string::npos;
    bool backward = text.find("x is Variable: x@GRAD") != std::string::npos;
    EXPECT_EQ(forward, phase != "backward") << text;
    EXPECT_EQ(backward, phase != "forward") << text;
    if (backward) {
      EXPECT_NE(text.find("  - data: [1 -2 3]\n"), std::string::npos) << text;
    }
  }
}

TEST(PrintOp, GradientIsTheIdentity) {
  OpTest t("print");
  t.input("In", random_tensor({2, 3}, DType::kF64, 4)).attr("print_phase", std::string("forward"));
  CaptureStdout();
  t.check_grad({"In"});
  GetCapturedStdout();
}

TEST(PrintOp, RejectsAnUnknownPhase) {
  OpTest t("print");
  t.input("In", random_tensor({2}, DType::kF32, 1)).attr("print_phase", std::string("sideways"));
  testing::expect_error(t, {"print_phase must be 'forward', 'backward' or 'both'", "sideways"});
}

// Builds and runs an assert op on `cond`; returns the error's text ("" when it passes).
std::string run_assert(const Tensor& cond) {
  try {
    Program p;
    BlockBuilder b(&p);
    b.data("c", cond.dtype(), cond.shape());
    b.op("assert", {{"Cond", {"c"}}}, {},
         {{"message", std::string("model.py:7: assertion failed: x too small")}});
    Scope scope;
    Executor().run(p, &scope, {{"c", cond}}, {});
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(AssertOp, PassesWhenEveryElementHoldsAndStopsWithTheMessageOtherwise) {
  EXPECT_EQ(run_assert(Tensor::from_vector<bool>({3}, {true, true, true})), "");
  const std::string what = run_assert(Tensor::from_vector<bool>({3}, {true, false, true}));
  EXPECT_NE(what.find("model.py:7: assertion failed: x too small"), std::string::npos) << what;
  EXPECT_NE(what.find("data: [true false true]"), std::string::npos) << what;
  const std::string not_bool = run_assert(Tensor::from_vector<float>({1}, {1.f}));
  EXPECT_NE(not_bool.find("must be bool, got float32"), std::string::npos) << not_bool;
}

}  // namespace
}  // namespace skiff
