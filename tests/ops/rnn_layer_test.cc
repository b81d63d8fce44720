// lstm, gru and simple_rnn (whole layers over the time steps): forward values against a float64
// loop written from the PyTorch formulas, in both directions and with sequence lengths (a step past
// a sequence's length keeps its state and outputs zeros), gradients of every input against finite
// differences, and shape errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr int64_t kT = 3, kB = 3, kH = 2;

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

struct Reference {
  Tensor out, h_last, c_last;
};

// The layer written out: per step t (reversed: T - 1 first), for each row still within
// its length, pre = gx[t] + h · w_hh (+ bias), then the cell's formulas.
Reference reference(bool lstm, const Tensor& gx, const Tensor& h0, const Tensor* c0,
                    const Tensor& w_hh, const Tensor* bias, const Tensor* bias_hh,
                    const std::vector<int64_t>& lengths, bool reverse) {
  const int gates = lstm ? 4 : 3;
  const Tensor g = to_f64(gx), w = to_f64(w_hh);
  std::vector<double> h = to_f64(h0).to_vector<double>();
  std::vector<double> c = c0 ? to_f64(*c0).to_vector<double>() : std::vector<double>(kB * kH);
  const std::vector<double> b =
      bias ? to_f64(*bias).to_vector<double>() : std::vector<double>(gates * kH, 0.0);
  const std::vector<double> bh =
      bias_hh ? to_f64(*bias_hh).to_vector<double>() : std::vector<double>(gates * kH, 0.0);
  Reference r{Tensor::zeros({kT, kB, kH}, DType::kF64), Tensor(), Tensor()};
  for (int64_t s = 0; s < kT; ++s) {
    const int64_t t = reverse ? kT - 1 - s : s;
    std::vector<double> h_next = h, c_next = c;
    for (int64_t row = 0; row < kB; ++row) {
      if (t >= lengths[row]) continue;
      auto x_side = [&](int gate, int64_t j) {
        return g.data<double>()[(t * kB + row) * gates * kH + gate * kH + j] +
               (lstm ? 0.0 : b[gate * kH + j]);
      };
      auto h_side = [&](int gate, int64_t j) {
        double v = lstm ? b[gate * kH + j] : bh[gate * kH + j];
        for (int64_t k = 0; k < kH; ++k)
          v += h[row * kH + k] * w.data<double>()[k * gates * kH + gate * kH + j];
        return v;
      };
      for (int64_t j = 0; j < kH; ++j) {
        double hn;
        if (lstm) {
          const double i = sigmoid(x_side(0, j) + h_side(0, j)),
                       f = sigmoid(x_side(1, j) + h_side(1, j)),
                       gg = std::tanh(x_side(2, j) + h_side(2, j)),
                       o = sigmoid(x_side(3, j) + h_side(3, j));
          c_next[row * kH + j] = f * c[row * kH + j] + i * gg;
          hn = o * std::tanh(c_next[row * kH + j]);
        } else {
          const double rg = sigmoid(x_side(0, j) + h_side(0, j)),
                       z = sigmoid(x_side(1, j) + h_side(1, j));
          const double n = std::tanh(x_side(2, j) + rg * h_side(2, j));
          hn = (1 - z) * n + z * h[row * kH + j];
        }
        h_next[row * kH + j] = hn;
        r.out.data<double>()[(t * kB + row) * kH + j] = hn;
      }
    }
    h = h_next;
    c = c_next;
  }
  r.h_last = Tensor::from_vector<double>({kB, kH}, h);
  r.c_last = Tensor::from_vector<double>({kB, kH}, c);
  return r;
}

struct LayerCase {
  bool lstm;
  Tensor gx, h0, c0, w_hh, bias, bias_hh, lengths;
  LayerCase(bool lstm, DType t)
      : lstm(lstm),
        gx(random_tensor({kT, kB, (lstm ? 4 : 3) * kH}, t, 1)),
        h0(random_tensor({kB, kH}, t, 2)),
        c0(random_tensor({kB, kH}, t, 3)),
        w_hh(random_tensor({kH, (lstm ? 4 : 3) * kH}, t, 4)),
        bias(random_tensor({(lstm ? 4 : 3) * kH}, t, 5)),
        bias_hh(random_tensor({3 * kH}, t, 6)),
        lengths(Tensor::from_vector<int64_t>({kB}, {3, 1, 2})) {}

  OpTest op(bool with_lengths, bool reverse) const {
    OpTest t(lstm ? "lstm" : "gru");
    t.input("Gates_x", gx).input("H0", h0);
    if (lstm) {
      t.input("C0", c0).input("Weight_hh", w_hh).input("Bias", bias);
    } else {
      t.input("Weight_hh", w_hh).input("Bias_ih", bias).input("Bias_hh", bias_hh);
    }
    if (with_lengths) t.input("Sequence_length", lengths);
    t.attr("is_reverse", reverse);
    t.output("Out").output("H_last").output("Gates").output("H_prev");
    if (lstm) t.output("C_last").output("C_prev").output("C_step");
    return t;
  }

  Reference expected(bool with_lengths, bool reverse) const {
    const std::vector<int64_t> all(kB, kT);
    return reference(lstm, gx, h0, lstm ? &c0 : nullptr, w_hh, &bias, lstm ? nullptr : &bias_hh,
                     with_lengths ? lengths.to_vector<int64_t>() : all, reverse);
  }
};

TEST(RnnLayer, ForwardMatchesReference) {
  for (bool lstm : {true, false})
    for (DType t : {DType::kF32, DType::kF64})
      for (bool with_lengths : {false, true})
        for (bool reverse : {false, true}) {
          SCOPED_TRACE(std::string(lstm ? "lstm" : "gru") + (with_lengths ? " lengths" : "") +
                       (reverse ? " reverse" : ""));
          LayerCase k(lstm, t);
          Reference ref = k.expected(with_lengths, reverse);
          OpTest op = k.op(with_lengths, reverse);
          op.check_output("Out", from_f64(ref.out, t), 1e-6, 1e-5);
          op.check_output("H_last", from_f64(ref.h_last, t), 1e-6, 1e-5);
          if (lstm) op.check_output("C_last", from_f64(ref.c_last, t), 1e-6, 1e-5);
        }
}

TEST(RnnLayer, GradientsOfEveryInput) {
  for (bool with_lengths : {false, true})
    for (bool reverse : {false, true}) {
      LayerCase lstm(true, DType::kF64);
      for (const char* out : {"Out", "H_last", "C_last"})
        lstm.op(with_lengths, reverse)
            .check_grad({"Gates_x", "H0", "C0", "Weight_hh", "Bias"}, out);
      LayerCase gru(false, DType::kF64);
      for (const char* out : {"Out", "H_last"})
        gru.op(with_lengths, reverse)
            .check_grad({"Gates_x", "H0", "Weight_hh", "Bias_ih", "Bias_hh"}, out);
    }
}

// simple_rnn written out: h = act(gx[t] + h · w_hh) for the rows within their length.
Tensor simple_reference(const Tensor& gx, const Tensor& h0, const Tensor& w_hh, bool relu,
                        const std::vector<int64_t>& lengths, bool reverse, Tensor* h_last) {
  const Tensor g = to_f64(gx), w = to_f64(w_hh);
  std::vector<double> h = to_f64(h0).to_vector<double>();
  Tensor out = Tensor::zeros({kT, kB, kH}, DType::kF64);
  for (int64_t s = 0; s < kT; ++s) {
    const int64_t t = reverse ? kT - 1 - s : s;
    std::vector<double> next = h;
    for (int64_t row = 0; row < kB; ++row) {
      if (t >= lengths[row]) continue;
      for (int64_t j = 0; j < kH; ++j) {
        double v = g.data<double>()[(t * kB + row) * kH + j];
        for (int64_t k = 0; k < kH; ++k) v += h[row * kH + k] * w.data<double>()[k * kH + j];
        next[row * kH + j] = relu ? std::max(v, 0.0) : std::tanh(v);
        out.data<double>()[(t * kB + row) * kH + j] = next[row * kH + j];
      }
    }
    h = next;
  }
  *h_last = Tensor::from_vector<double>({kB, kH}, h);
  return out;
}

TEST(SimpleRnnLayer, ForwardAndGradients) {
  const Tensor lengths = Tensor::from_vector<int64_t>({kB}, {3, 1, 2});
  const std::vector<int64_t> all(kB, kT);
  for (const char* act : {"tanh", "relu"})
    for (bool with_lengths : {false, true})
      for (bool reverse : {false, true}) {
        SCOPED_TRACE(std::string(act) + (with_lengths ? " lengths" : "") +
                     (reverse ? " reverse" : ""));
        for (DType t : {DType::kF32, DType::kF64}) {
          const Tensor gx = random_tensor({kT, kB, kH}, t, 21), h0 = random_tensor({kB, kH}, t, 22),
                       w = random_tensor({kH, kH}, t, 23);
          Tensor h_last;
          const Tensor out =
              simple_reference(gx, h0, w, std::string(act) == "relu",
                               with_lengths ? lengths.to_vector<int64_t>() : all, reverse, &h_last);
          OpTest op("simple_rnn");
          op.input("Gates_x", gx).input("H0", h0).input("Weight_hh", w);
          if (with_lengths) op.input("Sequence_length", lengths);
          op.attr("is_reverse", reverse).attr("activation", std::string(act));
          op.output("Out").output("H_last").output("H_prev");
          op.check_output("Out", from_f64(out, t), 1e-6, 1e-5);
          op.check_output("H_last", from_f64(h_last, t), 1e-6, 1e-5);
          if (t == DType::kF64)
            for (const char* slot : {"Out", "H_last"})
              op.check_grad({"Gates_x", "H0", "Weight_hh"}, slot);
        }
      }
}

TEST(RnnLayer, ShapeErrors) {
  LayerCase k(true, DType::kF32);
  OpTest wrong_w("lstm");
  wrong_w.input("Gates_x", k.gx).input("H0", k.h0).input("C0", k.c0);
  wrong_w.input("Weight_hh", random_tensor({kH, 3 * kH}, DType::kF32, 9));
  wrong_w.output("Out").output("H_last").output("C_last");
  expect_error(wrong_w, {"Weight_hh", "[2, 6]", "[2, 8]"});

  OpTest wrong_lengths = k.op(false, false);
  wrong_lengths.input("Sequence_length", Tensor::from_vector<int64_t>({2}, {1, 2}));
  expect_error(wrong_lengths, {"Sequence_length", "[3]"});

  OpTest wrong_gates("gru");
  wrong_gates.input("Gates_x", k.gx).input("H0", k.h0);
  wrong_gates.input("Weight_hh", random_tensor({kH, 3 * kH}, DType::kF32, 9));
  wrong_gates.output("Out").output("H_last");
  expect_error(wrong_gates, {"Gates_x", "3 * Hd"});

  OpTest wrong_act("simple_rnn");
  wrong_act.input("Gates_x", random_tensor({kT, kB, kH}, DType::kF32, 9)).input("H0", k.h0);
  wrong_act.input("Weight_hh", random_tensor({kH, kH}, DType::kF32, 9));
  wrong_act.attr("activation", std::string("sigmoid")).output("Out").output("H_last");
  expect_error(wrong_act, {"activation", "sigmoid"});
}

}  // namespace
}  // namespace skiff
