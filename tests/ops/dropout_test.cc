// dropout: Out = X * Mask (scaled per implementation) in f32 and f64, the kept fraction
// near 1 - p, a fixed seed repeating its mask and seed 0 following set_global_seed,
// inference scaling, gradients by finite differences (training and inference), and
// errors for bad attributes.
#include "skiff/kernels/cpu/dropout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/kernels/cpu/random.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::all_close;
using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr DType kFloatTypes[] = {DType::kF32, DType::kF64};

OpTest dropout_op(const Tensor& x, double p, bool is_test, int64_t seed,
                  const std::string& implementation = "upscale_in_train") {
  OpTest t("dropout");
  t.input("X", x).output("Out").output("Mask");
  t.attr("dropout_prob", p).attr("is_test", is_test).attr("seed", seed);
  t.attr("dropout_implementation", implementation);
  return t;
}

int64_t kept(const Tensor& mask) {
  int64_t n = 0;
  for (bool b : mask.to_vector<bool>()) n += b;
  return n;
}

TEST(DropoutOp, OutIsXTimesMaskScaled) {
  for (DType dtype : kFloatTypes) {
    for (const char* impl : {"upscale_in_train", "downgrade_in_infer"}) {
      SCOPED_TRACE(str_cat(dtype_name(dtype), " ", impl));
      const double p = 0.3;
      Tensor x = random_tensor({7, 33}, dtype, 1, 0.5, 2);  // no zeros: a zero means dropped
      auto outs = dropout_op(x, p, false, 5, impl).run();
      const Tensor& out = outs["Out"][0];
      const Tensor& mask = outs["Mask"][0];
      ASSERT_EQ(mask.dtype(), DType::kBool);
      ASSERT_EQ(mask.shape(), x.shape());
      const double scale = std::string(impl) == "upscale_in_train" ? 1 / (1 - p) : 1;
      Tensor want = to_f64(x);
      for (int64_t i = 0; i < x.numel(); ++i)
        want.data<double>()[i] *= mask.data<bool>()[i] ? scale : 0;
      std::string why;
      EXPECT_TRUE(all_close(out, from_f64(want, dtype), 1e-7, 1e-6, &why)) << why;
      EXPECT_GT(kept(mask), 0);
      EXPECT_LT(kept(mask), x.numel());
    }
  }
}

TEST(DropoutOp, KeptFractionIsOneMinusP) {
  const int64_t n = 200000;
  for (double p : {0.1, 0.5, 0.9}) {
    Tensor x = Tensor::zeros({n}, DType::kF32);
    const double frac = static_cast<double>(kept(dropout_op(x, p, false, 3).run()["Mask"][0])) / n;
    // The binomial standard deviation is at most 0.0012 here; allow 5 of them.
    EXPECT_NEAR(frac, 1 - p, 0.006) << "p = " << p;
  }
  Tensor x = Tensor::zeros({1000}, DType::kF32);
  EXPECT_EQ(kept(dropout_op(x, 0.0, false, 3).run()["Mask"][0]), 1000);
  auto all_dropped = dropout_op(x, 1.0, false, 3).run();
  EXPECT_EQ(kept(all_dropped["Mask"][0]), 0);
}

TEST(DropoutOp, FixedSeedRepeatsAndGlobalSeedReproduces) {
  Tensor x = random_tensor({4096}, DType::kF32, 1);
  const Tensor a = dropout_op(x, 0.5, false, 42).run()["Mask"][0];
  const Tensor b = dropout_op(x, 0.5, false, 42).run()["Mask"][0];
  const Tensor c = dropout_op(x, 0.5, false, 43).run()["Mask"][0];
  EXPECT_EQ(a.to_vector<bool>(), b.to_vector<bool>());
  EXPECT_NE(a.to_vector<bool>(), c.to_vector<bool>());

  // seed 0: successive runs differ, and set_global_seed replays the sequence.
  kernels::set_global_seed(7);
  const Tensor g1 = dropout_op(x, 0.5, false, 0).run()["Mask"][0];
  const Tensor g2 = dropout_op(x, 0.5, false, 0).run()["Mask"][0];
  kernels::set_global_seed(7);
  const Tensor h1 = dropout_op(x, 0.5, false, 0).run()["Mask"][0];
  EXPECT_NE(g1.to_vector<bool>(), g2.to_vector<bool>());
  EXPECT_EQ(g1.to_vector<bool>(), h1.to_vector<bool>());
}

TEST(DropoutOp, InferenceScalesPerImplementation) {
  for (DType dtype : kFloatTypes) {
    Tensor x = random_tensor({3, 5}, dtype, 2);
    OpTest up = dropout_op(x, 0.25, true, 0, "upscale_in_train");
    up.check_output("Out", x, 0, 0);
    const Tensor mask = up.run()["Mask"][0];
    EXPECT_EQ(kept(mask), x.numel());
    Tensor scaled = to_f64(x);
    for (int64_t i = 0; i < x.numel(); ++i) scaled.data<double>()[i] *= 0.75;
    dropout_op(x, 0.25, true, 0, "downgrade_in_infer")
        .check_output("Out", from_f64(scaled, dtype), 1e-7, 1e-6);
  }
}

TEST(DropoutOp, InferenceNeedsNoMask) {
  Tensor x = random_tensor({4}, DType::kF32, 3);
  OpTest t("dropout");
  t.input("X", x).output("Out").attr("is_test", true).attr("dropout_prob", 0.5);
  t.check_output("Out", x, 0, 0);
}

TEST(DropoutOp, GradientsMatchFiniteDifferences) {
  // The mask is fixed by the seed, so Out is linear in X and central differences are exact.
  for (const char* impl : {"upscale_in_train", "downgrade_in_infer"}) {
    for (bool is_test : {false, true}) {
      SCOPED_TRACE(str_cat(impl, is_test ? " is_test" : " training"));
      dropout_op(random_tensor({5, 6}, DType::kF64, 4), 0.4, is_test, 11, impl).check_grad({"X"});
    }
  }
}

TEST(DropoutOp, GradKernelInFloat32) {
  Tensor x = random_tensor({64}, DType::kF32, 5);
  Tensor out, mask, dx;
  const auto mode = kernels::DropoutMode::kUpscaleInTrain;
  kernels::dropout(x, 0.5, false, 9, mode, &out, &mask);
  Tensor dy = random_tensor({64}, DType::kF32, 6);
  kernels::dropout_grad(mask, dy, 0.5, false, mode, &dx);
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_FLOAT_EQ(dx.data<float>()[i], mask.data<bool>()[i] ? dy.data<float>()[i] * 2 : 0.f);
  }
}

TEST(DropoutOp, RejectsBadAttrs) {
  Tensor x = random_tensor({4}, DType::kF32, 1);
  expect_error(dropout_op(x, 1.5, false, 0), {"dropout_prob", "[0, 1]", "1.5"});
  expect_error(dropout_op(x, -0.1, true, 0), {"dropout_prob"});
  expect_error(dropout_op(x, 0.5, false, 0, "scale_always"),
               {"dropout_implementation", "scale_always"});
  expect_error(dropout_op(random_tensor({4}, DType::kI64, 1), 0.5, false, 0), {"float32", "int64"});
  OpTest no_mask("dropout");
  no_mask.input("X", x).output("Out");
  expect_error(no_mask, {"Mask"});
}

}  // namespace
}  // namespace skiff
