// lstm_cell and gru_cell: forward values against a float64 loop written from the
// PyTorch formulas, both ways of giving the input side (X with Weight_ih, or Gates_x),
// gradients of every input against finite differences, and shape errors.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr int64_t kB = 3, kI = 4, kH = 2;

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// rows x cols of x · w (float64 tensors) plus an optional bias row.
std::vector<double> affine(const Tensor& x, const Tensor& w, const Tensor* bias) {
  const int64_t rows = x.dim(0), inner = x.dim(1), cols = w.dim(1);
  std::vector<double> out(rows * cols, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) {
      double s = bias ? bias->data<double>()[j] : 0.0;
      for (int64_t k = 0; k < inner; ++k)
        s += x.data<double>()[r * inner + k] * w.data<double>()[k * cols + j];
      out[r * cols + j] = s;
    }
  return out;
}

struct LstmRef {
  Tensor h, c;
};

LstmRef lstm_reference(const Tensor& x, const Tensor& h, const Tensor& c, const Tensor& w_ih,
                       const Tensor& w_hh, const Tensor& bias) {
  std::vector<double> a = affine(to_f64(x), to_f64(w_ih), nullptr);
  Tensor b64 = to_f64(bias);
  std::vector<double> b = affine(to_f64(h), to_f64(w_hh), &b64);
  Tensor c64 = to_f64(c);
  LstmRef out{Tensor::empty({kB, kH}, DType::kF64), Tensor::empty({kB, kH}, DType::kF64)};
  for (int64_t r = 0; r < kB; ++r)
    for (int64_t j = 0; j < kH; ++j) {
      auto pre = [&](int gate) {
        return a[r * 4 * kH + gate * kH + j] + b[r * 4 * kH + gate * kH + j];
      };
      const double i = sigmoid(pre(0)), f = sigmoid(pre(1)), g = std::tanh(pre(2)),
                   o = sigmoid(pre(3));
      const double cn = f * c64.data<double>()[r * kH + j] + i * g;
      out.c.data<double>()[r * kH + j] = cn;
      out.h.data<double>()[r * kH + j] = o * std::tanh(cn);
    }
  return out;
}

Tensor gru_reference(const Tensor& x, const Tensor& h, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih, const Tensor& b_hh) {
  Tensor bi = to_f64(b_ih), bh = to_f64(b_hh), h64 = to_f64(h);
  std::vector<double> a = affine(to_f64(x), to_f64(w_ih), &bi);
  std::vector<double> b = affine(h64, to_f64(w_hh), &bh);
  Tensor out = Tensor::empty({kB, kH}, DType::kF64);
  for (int64_t r = 0; r < kB; ++r)
    for (int64_t j = 0; j < kH; ++j) {
      auto at = [&](const std::vector<double>& v, int gate) {
        return v[r * 3 * kH + gate * kH + j];
      };
      const double rg = sigmoid(at(a, 0) + at(b, 0)), z = sigmoid(at(a, 1) + at(b, 1));
      const double n = std::tanh(at(a, 2) + rg * at(b, 2));
      out.data<double>()[r * kH + j] = (1 - z) * n + z * h64.data<double>()[r * kH + j];
    }
  return out;
}

struct LstmCase {
  Tensor x, h, c, w_ih, w_hh, bias;
  explicit LstmCase(DType t)
      : x(random_tensor({kB, kI}, t, 1)),
        h(random_tensor({kB, kH}, t, 2)),
        c(random_tensor({kB, kH}, t, 3)),
        w_ih(random_tensor({kI, 4 * kH}, t, 4)),
        w_hh(random_tensor({kH, 4 * kH}, t, 5)),
        bias(random_tensor({4 * kH}, t, 6)) {}

  OpTest op(bool with_x, bool keep_gates = true) const {
    OpTest t("lstm_cell");
    if (with_x) {
      t.input("X", x).input("Weight_ih", w_ih);
    } else {
      Tensor gx = from_f64(
          Tensor::from_vector<double>({kB, 4 * kH}, affine(to_f64(x), to_f64(w_ih), nullptr)),
          x.dtype());
      t.input("Gates_x", gx);
    }
    t.input("H", h).input("C", c).input("Weight_hh", w_hh).input("Bias", bias);
    t.output("H_out").output("C_out");
    if (keep_gates) t.output("Gates");
    return t;
  }
};

TEST(LstmCell, ForwardMatchesReference) {
  for (DType t : {DType::kF32, DType::kF64}) {
    LstmCase k(t);
    LstmRef ref = lstm_reference(k.x, k.h, k.c, k.w_ih, k.w_hh, k.bias);
    for (bool with_x : {true, false}) {
      OpTest op = k.op(with_x);
      op.check_output("H_out", from_f64(ref.h, t), 1e-6, 1e-5);
      op.check_output("C_out", from_f64(ref.c, t), 1e-6, 1e-5);
    }
  }
}

TEST(LstmCell, WithoutBias) {
  LstmCase k(DType::kF64);
  LstmRef ref = lstm_reference(k.x, k.h, k.c, k.w_ih, k.w_hh, Tensor::zeros({4 * kH}, DType::kF64));
  OpTest t("lstm_cell");
  t.input("X", k.x).input("H", k.h).input("C", k.c).input("Weight_ih", k.w_ih);
  t.input("Weight_hh", k.w_hh).output("H_out").output("C_out");
  t.check_output("H_out", ref.h, 1e-12, 1e-12);
  t.check_output("C_out", ref.c, 1e-12, 1e-12);
}

TEST(LstmCell, GradientsOfEveryInput) {
  LstmCase k(DType::kF64);
  for (const char* out : {"H_out", "C_out"}) {
    k.op(true).check_grad({"X", "H", "C", "Weight_ih", "Weight_hh", "Bias"}, out);
    k.op(false).check_grad({"Gates_x", "H", "C", "Weight_hh", "Bias"}, out);
  }
}

TEST(LstmCell, GradientsWithoutSavedGates) {
  LstmCase k(DType::kF64);
  k.op(true, /*keep_gates=*/false)
      .check_grad({"X", "H", "C", "Weight_ih", "Weight_hh", "Bias"}, "H_out");
  k.op(true, false).check_grad({"H", "C"}, "C_out");
}

TEST(LstmCell, ShapeErrors) {
  LstmCase k(DType::kF32);
  OpTest wrong_w("lstm_cell");
  wrong_w.input("X", k.x).input("H", k.h).input("C", k.c).input("Weight_ih", k.w_ih);
  wrong_w.input("Weight_hh", random_tensor({kH, 3 * kH}, DType::kF32, 9));
  wrong_w.output("H_out").output("C_out");
  expect_error(wrong_w, {"Weight_hh", "[2, 6]", "[2, 8]"});

  OpTest both = k.op(true);
  both.input("Gates_x", random_tensor({kB, 4 * kH}, DType::kF32, 9));
  expect_error(both, {"exactly one of X"});

  OpTest wrong_c("lstm_cell");
  wrong_c.input("X", k.x).input("H", k.h).input("C", random_tensor({kB, 3}, DType::kF32, 9));
  wrong_c.input("Weight_ih", k.w_ih).input("Weight_hh", k.w_hh).output("H_out").output("C_out");
  expect_error(wrong_c, {"C must match H", "[3, 3]"});
}

struct GruCase {
  Tensor x, h, w_ih, w_hh, b_ih, b_hh;
  explicit GruCase(DType t)
      : x(random_tensor({kB, kI}, t, 11)),
        h(random_tensor({kB, kH}, t, 12)),
        w_ih(random_tensor({kI, 3 * kH}, t, 13)),
        w_hh(random_tensor({kH, 3 * kH}, t, 14)),
        b_ih(random_tensor({3 * kH}, t, 15)),
        b_hh(random_tensor({3 * kH}, t, 16)) {}

  OpTest op(bool with_x, bool keep_gates = true) const {
    OpTest t("gru_cell");
    if (with_x) {
      t.input("X", x).input("Weight_ih", w_ih);
    } else {
      Tensor gx = from_f64(
          Tensor::from_vector<double>({kB, 3 * kH}, affine(to_f64(x), to_f64(w_ih), nullptr)),
          x.dtype());
      t.input("Gates_x", gx);
    }
    t.input("H", h).input("Weight_hh", w_hh).input("Bias_ih", b_ih).input("Bias_hh", b_hh);
    t.output("H_out");
    if (keep_gates) t.output("Gates");
    return t;
  }
};

TEST(GruCell, ForwardMatchesReference) {
  for (DType t : {DType::kF32, DType::kF64}) {
    GruCase k(t);
    Tensor ref = gru_reference(k.x, k.h, k.w_ih, k.w_hh, k.b_ih, k.b_hh);
    for (bool with_x : {true, false})
      k.op(with_x).check_output("H_out", from_f64(ref, t), 1e-6, 1e-5);
  }
}

TEST(GruCell, WithoutBiases) {
  GruCase k(DType::kF64);
  Tensor zeros = Tensor::zeros({3 * kH}, DType::kF64);
  OpTest t("gru_cell");
  t.input("X", k.x).input("H", k.h).input("Weight_ih", k.w_ih).input("Weight_hh", k.w_hh);
  t.output("H_out");
  t.check_output("H_out", gru_reference(k.x, k.h, k.w_ih, k.w_hh, zeros, zeros), 1e-12, 1e-12);
}

TEST(GruCell, GradientsOfEveryInput) {
  GruCase k(DType::kF64);
  k.op(true).check_grad({"X", "H", "Weight_ih", "Weight_hh", "Bias_ih", "Bias_hh"}, "H_out");
  k.op(false).check_grad({"Gates_x", "H", "Weight_hh", "Bias_ih", "Bias_hh"}, "H_out");
  k.op(true, /*keep_gates=*/false).check_grad({"X", "H", "Weight_hh", "Bias_hh"}, "H_out");
}

TEST(GruCell, ShapeErrors) {
  GruCase k(DType::kF32);
  OpTest t("gru_cell");
  t.input("X", k.x).input("H", k.h).input("Weight_ih", k.w_ih).input("Weight_hh", k.w_hh);
  t.input("Bias_ih", random_tensor({4 * kH}, DType::kF32, 9)).output("H_out");
  expect_error(t, {"Bias_ih", "[8]", "[6]"});

  OpTest no_w("gru_cell");
  no_w.input("X", k.x).input("H", k.h).input("Weight_hh", k.w_hh).output("H_out");
  expect_error(no_w, {"X needs Weight_ih"});

  OpTest wrong_x("gru_cell");
  wrong_x.input("X", random_tensor({kB + 1, kI}, DType::kF32, 9)).input("H", k.h);
  wrong_x.input("Weight_ih", k.w_ih).input("Weight_hh", k.w_hh).output("H_out");
  expect_error(wrong_x, {"X must be", "[4, 4]"});
}

}  // namespace
}  // namespace skiff
