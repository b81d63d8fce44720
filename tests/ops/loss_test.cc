// mse_loss, sigmoid_cross_entropy_with_logits and nll_loss: values against float64
// references (and values PaddlePaddle gives) in f32 and f64, ignored labels,
// normalization, weights and reductions, stability on large logits, gradients by
// finite differences, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr DType kFloatTypes[] = {DType::kF32, DType::kF64};

double atol_for(DType t) { return t == DType::kF32 ? 1e-6 : 1e-14; }
double rtol_for(DType t) { return t == DType::kF32 ? 1e-5 : 1e-13; }

template <typename Fn>
Tensor map2(const Tensor& a, const Tensor& b, Fn f) {
  const Tensor x = to_f64(a), y = to_f64(b);
  Tensor out = Tensor::empty(a.shape(), DType::kF64);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.data<double>()[i] = f(x.data<double>()[i], y.data<double>()[i]);
  return out;
}

// ---- mse_loss ----

TEST(MseLossOp, SquaredErrorAndGradients) {
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    for (const Shape& shape : {Shape{3, 4}, Shape{7}, Shape{}, Shape{200, 300}}) {
      Tensor x = random_tensor(shape, dtype, 1), label = random_tensor(shape, dtype, 2);
      OpTest t("mse_loss");
      t.input("X", x).input("Label", label);
      t.check_output(
          "Out",
          from_f64(map2(x, label, [](double a, double b) { return (a - b) * (a - b); }), dtype),
          atol_for(dtype), rtol_for(dtype));
    }
  }
  OpTest g("mse_loss");
  g.input("X", random_tensor({2, 3}, DType::kF64, 3))
      .input("Label", random_tensor({2, 3}, DType::kF64, 4));
  g.check_grad({"X", "Label"});
  g.check_grad({"Label"});
}

TEST(MseLossOp, ShapeMismatchIsAnError) {
  OpTest t("mse_loss");
  t.input("X", Tensor::zeros({2, 3}, DType::kF32))
      .input("Label", Tensor::zeros({3, 2}, DType::kF32));
  expect_error(t, {"Label", "[3, 2]", "[2, 3]"});
}

// ---- sigmoid_cross_entropy_with_logits ----

double bce(double x, double label) {
  // -label * log(sigmoid(x)) - (1 - label) * log(1 - sigmoid(x)), in a stable form.
  return std::max(x, 0.0) - x * label + std::log1p(std::exp(-std::fabs(x)));
}

Tensor bce_reference(const Tensor& x, const Tensor& label, bool normalize) {
  Tensor out = map2(x, label, [](double a, double l) { return l == -100 ? 0.0 : bce(a, l); });
  if (normalize) {
    const Tensor l = to_f64(label);
    double kept = 0;
    for (int64_t i = 0; i < l.numel(); ++i) kept += l.data<double>()[i] != -100;
    for (int64_t i = 0; i < out.numel(); ++i) out.data<double>()[i] /= kept;
  }
  return out;
}

// Labels in [0, 1] with every fourth one ignored.
Tensor bce_labels(const Shape& shape, DType dtype, uint64_t seed) {
  Tensor l = to_f64(random_tensor(shape, DType::kF64, seed, 0.0, 1.0));
  for (int64_t i = 0; i < l.numel(); i += 4) l.data<double>()[i] = -100;
  return from_f64(l, dtype);
}

TEST(SigmoidCrossEntropyOp, MatchesReference) {
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    for (bool normalize : {false, true}) {
      for (const Shape& shape : {Shape{4, 5}, Shape{300, 257}}) {
        Tensor x = random_tensor(shape, dtype, 5, -4, 4);
        Tensor label = bce_labels(shape, dtype, 6);
        OpTest t("sigmoid_cross_entropy_with_logits");
        t.input("X", x).input("Label", label).attr("normalize", normalize);
        t.check_output("Out", from_f64(bce_reference(x, label, normalize), dtype), atol_for(dtype),
                       rtol_for(dtype));
      }
    }
  }
}

TEST(SigmoidCrossEntropyOp, ValuesPaddlePaddleGives) {
  Tensor x = Tensor::from_vector<double>({2, 2}, {1.0, -2.0, 0.5, 3.0});
  Tensor label = Tensor::from_vector<double>({2, 2}, {1.0, -100, 0.3, 0.0});
  OpTest t("sigmoid_cross_entropy_with_logits");
  t.input("X", x).input("Label", label);
  t.check_output(
      "Out", Tensor::from_vector<double>({2, 2}, {0.31326169, 0, 0.82407698, 3.04858735}), 1e-8, 0);
  t.attr("normalize", true);
  t.check_output(
      "Out", Tensor::from_vector<double>({2, 2}, {0.10442056, 0, 0.27469233, 1.01619578}), 1e-8, 0);
}

TEST(SigmoidCrossEntropyOp, LargeLogitsStayFinite) {
  Tensor x = Tensor::from_vector<float>({4}, {100, -100, 88, -1000});
  Tensor label = Tensor::from_vector<float>({4}, {1, 1, 0, 0});
  OpTest t("sigmoid_cross_entropy_with_logits");
  t.input("X", x).input("Label", label);
  t.check_output("Out", Tensor::from_vector<float>({4}, {0, 100, 88, 0}), 1e-6, 1e-6);
}

TEST(SigmoidCrossEntropyOp, AllIgnoredNormalizesToZero) {
  OpTest t("sigmoid_cross_entropy_with_logits");
  t.input("X", Tensor::from_vector<float>({2}, {1, 2}))
      .input("Label", Tensor::from_vector<float>({2}, {-1, -1}))
      .attr("ignore_index", int64_t{-1})
      .attr("normalize", true);
  t.check_output("Out", Tensor::zeros({2}, DType::kF32));
}

TEST(SigmoidCrossEntropyOp, GradientMatchesFiniteDifferences) {
  for (bool normalize : {false, true}) {
    OpTest t("sigmoid_cross_entropy_with_logits");
    t.input("X", random_tensor({3, 4}, DType::kF64, 7, -3, 3))
        .input("Label", bce_labels({3, 4}, DType::kF64, 8))
        .attr("normalize", normalize);
    t.check_grad({"X"});
  }
}

// The grad ops run directly in float32 against float64 formulas.
TEST(LossGradOps, Float32MatchesReference) {
  const DType f32 = DType::kF32;
  Tensor x = random_tensor({3, 4}, f32, 12, -3, 3), label = random_tensor({3, 4}, f32, 13, 0, 1);
  Tensor dout = random_tensor({3, 4}, f32, 14);
  const Tensor d64 = to_f64(dout);
  auto times_dout = [&](Tensor t) {
    for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] *= d64.data<double>()[i];
    return t;
  };
  OpTest mse("mse_loss_grad");
  mse.input("X", x).input("Label", label).input("Out@GRAD", dout);
  mse.output("X@GRAD").output("Label@GRAD");
  Tensor dx = times_dout(map2(x, label, [](double a, double l) { return 2 * (a - l); }));
  mse.check_output("X@GRAD", from_f64(dx, f32), 1e-6, 1e-5);
  for (int64_t i = 0; i < dx.numel(); ++i) dx.data<double>()[i] = -dx.data<double>()[i];
  mse.check_output("Label@GRAD", from_f64(dx, f32), 1e-6, 1e-5);

  OpTest bce("sigmoid_cross_entropy_with_logits_grad");
  bce.input("X", x).input("Label", label).input("Out@GRAD", dout).output("X@GRAD");
  Tensor want =
      times_dout(map2(x, label, [](double a, double l) { return 1 / (1 + std::exp(-a)) - l; }));
  bce.check_output("X@GRAD", from_f64(want, f32), 1e-6, 1e-5);

  OpTest nll("nll_loss_grad");
  nll.input("X", x)
      .input("Label", Tensor::from_vector<int64_t>({3}, {3, -100, 1}))
      .input("Out@GRAD", Tensor::scalar<float>(0.5f))
      .output("X@GRAD");
  Tensor nll_want = Tensor::zeros({3, 4}, DType::kF64);
  nll_want.data<double>()[0 * 4 + 3] = -0.5 / 2;  // mean over the two samples kept
  nll_want.data<double>()[2 * 4 + 1] = -0.5 / 2;
  nll.check_output("X@GRAD", from_f64(nll_want, f32));
}

// ---- nll_loss ----

TEST(NllLossOp, ValuesPaddlePaddleGives) {
  Tensor x = Tensor::from_vector<double>(
      {2, 2}, {std::log(0.2), std::log(0.8), std::log(0.6), std::log(0.4)});
  Tensor label = Tensor::from_vector<int64_t>({2}, {1, 0});
  OpTest mean("nll_loss");
  mean.input("X", x).input("Label", label).output("Out").output("Total_weight");
  mean.check_output("Out", Tensor::scalar<double>(0.36698459), 1e-8, 0);
  mean.check_output("Total_weight", Tensor::scalar<double>(2.0));
  OpTest none("nll_loss");
  none.input("X", x).input("Label", label).attr("reduction", std::string("none"));
  none.check_output("Out", Tensor::from_vector<double>({2}, {0.22314355, 0.51082562}), 1e-8, 0);
}

// Weighted losses per sample in float64; ignored samples 0.
struct NllReference {
  std::vector<double> losses;
  double total_weight = 0;
};
NllReference nll_reference(const Tensor& x, const std::vector<int64_t>& labels,
                           const std::vector<double>& weight, int64_t ignore_index) {
  const Tensor a = to_f64(x);
  const int64_t c = x.dim(1);
  NllReference r;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] == ignore_index) {
      r.losses.push_back(0);
      continue;
    }
    const double w = weight.empty() ? 1.0 : weight[labels[i]];
    r.losses.push_back(-w * a.data<double>()[i * c + labels[i]]);
    r.total_weight += w;
  }
  return r;
}

TEST(NllLossOp, ReductionsWeightsAndIgnoredLabels) {
  const std::vector<int64_t> labels = {2, 0, -100, 3, 2, 1};
  const std::vector<double> weight = {0.5, 2.0, 1.5, 0.25};
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    Tensor x = random_tensor({6, 4}, dtype, 9, -3, 0);
    for (bool weighted : {false, true}) {
      const NllReference ref =
          nll_reference(x, labels, weighted ? weight : std::vector<double>{}, -100);
      double sum = 0;
      for (double l : ref.losses) sum += l;
      for (const char* reduction : {"none", "sum", "mean"}) {
        SCOPED_TRACE(reduction);
        OpTest t("nll_loss");
        t.input("X", x).input("Label", Tensor::from_vector<int64_t>({6, 1}, labels));
        if (weighted) t.input("Weight", from_f64(Tensor::from_vector<double>({4}, weight), dtype));
        t.attr("reduction", std::string(reduction)).output("Out").output("Total_weight");
        Tensor want = std::string(reduction) == "none"
                          ? Tensor::from_vector<double>({6}, ref.losses)
                          : Tensor::scalar<double>(
                                std::string(reduction) == "sum" ? sum : sum / ref.total_weight);
        t.check_output("Out", from_f64(want, dtype), atol_for(dtype), rtol_for(dtype));
        t.check_output("Total_weight", from_f64(Tensor::scalar<double>(ref.total_weight), dtype),
                       atol_for(dtype), rtol_for(dtype));
      }
    }
  }
}

TEST(NllLossOp, AllIgnoredMeanIsZero) {
  OpTest t("nll_loss");
  t.input("X", Tensor::from_vector<float>({2, 2}, {-1, -2, -3, -4}))
      .input("Label", Tensor::from_vector<int64_t>({2}, {-100, -100}));
  t.check_output("Out", Tensor::scalar<float>(0));
}

TEST(NllLossOp, GradientMatchesFiniteDifferences) {
  for (const char* reduction : {"none", "sum", "mean"}) {
    SCOPED_TRACE(reduction);
    OpTest t("nll_loss");
    t.input("X", random_tensor({5, 3}, DType::kF64, 10, -3, 0))
        .input("Label", Tensor::from_vector<int64_t>({5}, {2, -100, 0, 2, 1}))
        .input("Weight", Tensor::from_vector<double>({3}, {0.5, 2.0, 1.5}))
        .attr("reduction", std::string(reduction));
    t.check_grad({"X"});
  }
  OpTest unweighted("nll_loss");
  unweighted.input("X", random_tensor({4, 6}, DType::kF64, 11, -3, 0))
      .input("Label", Tensor::from_vector<int32_t>({4}, {5, 0, 3, 3}));
  unweighted.check_grad({"X"});
}

TEST(NllLossOp, Errors) {
  OpTest out_of_range("nll_loss");
  out_of_range.input("X", Tensor::zeros({2, 3}, DType::kF32))
      .input("Label", Tensor::from_vector<int64_t>({2}, {0, 3}));
  expect_error(out_of_range, {"label 3", "sample 1", "[0, 3)"});

  OpTest bad_rank("nll_loss");
  bad_rank.input("X", Tensor::zeros({2, 3, 4}, DType::kF32))
      .input("Label", Tensor::from_vector<int64_t>({2}, {0, 1}));
  expect_error(bad_rank, {"[N, C]", "[2, 3, 4]"});

  OpTest bad_count("nll_loss");
  bad_count.input("X", Tensor::zeros({2, 3}, DType::kF32))
      .input("Label", Tensor::from_vector<int64_t>({3}, {0, 1, 2}));
  expect_error(bad_count, {"3 samples"});

  OpTest bad_weight("nll_loss");
  bad_weight.input("X", Tensor::zeros({2, 3}, DType::kF32))
      .input("Label", Tensor::from_vector<int64_t>({2}, {0, 1}))
      .input("Weight", Tensor::zeros({2}, DType::kF32));
  expect_error(bad_weight, {"Weight", "[C]"});

  OpTest bad_reduction("nll_loss");
  bad_reduction.input("X", Tensor::zeros({2, 3}, DType::kF32))
      .input("Label", Tensor::from_vector<int64_t>({2}, {0, 1}))
      .attr("reduction", std::string("avg"));
  expect_error(bad_reduction, {"'avg'"});
}

}  // namespace
}  // namespace skiff
