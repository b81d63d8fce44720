// lstm_layer and gru_layer: whole stacks built as while loops, run against a float64
// loop written from PyTorch's formulas, and differentiated by append_backward against
// finite differences (every parameter, the input sequence and the initial states).
#include "skiff/api/rnn.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"
#include "tests/testing/program_grad_check.h"

namespace skiff {
namespace {

using testing::check_program_grad;
using testing::random_tensor;
using testing::to_f64;

constexpr int64_t kT = 3, kB = 2, kI = 3, kH = 2;

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

using Matrix = std::vector<double>;  // row-major

// x [rows, inner] · w [inner, cols] + bias.
Matrix affine(const Matrix& x, const Tensor& w, const Tensor* bias, int64_t rows) {
  const int64_t cols = w.dim(1), inner = w.dim(0);
  Matrix out(rows * cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) {
      double s = bias ? bias->data<double>()[j] : 0.0;
      for (int64_t k = 0; k < inner; ++k) s += x[r * inner + k] * w.data<double>()[k * cols + j];
      out[r * cols + j] = s;
    }
  return out;
}

struct Reference {
  std::vector<Matrix> outputs;  // per step, the last layer's h [B, Hd]
  std::vector<Matrix> final_h, final_c;
};

// The stack as plain loops over float64 parameters (names as lstm_layer gives them).
Reference reference(bool lstm, const Tensor& seq, int layers, const std::string& prefix,
                    const std::map<std::string, Tensor>& p) {
  auto param = [&](int l, const char* what) {
    return to_f64(p.at(prefix + "_l" + std::to_string(l) + "_" + what));
  };
  Tensor x64 = to_f64(seq);
  std::vector<Matrix> inputs;
  for (int64_t t = 0; t < kT; ++t)
    inputs.emplace_back(x64.data<double>() + t * kB * kI, x64.data<double>() + (t + 1) * kB * kI);
  Reference ref;
  for (int l = 0; l < layers; ++l) {
    Tensor w_ih = param(l, "weight_ih"), w_hh = param(l, "weight_hh");
    Matrix h(kB * kH, 0.0), c(kB * kH, 0.0);
    std::vector<Matrix> outs;
    for (const Matrix& x : inputs) {
      Matrix next(kB * kH);
      if (lstm) {
        Tensor bias = param(l, "bias");
        Matrix a = affine(x, w_ih, &bias, kB), g = affine(h, w_hh, nullptr, kB);
        for (int64_t r = 0; r < kB; ++r)
          for (int64_t j = 0; j < kH; ++j) {
            auto pre = [&](int gate) {
              return a[r * 4 * kH + gate * kH + j] + g[r * 4 * kH + gate * kH + j];
            };
            double& cell = c[r * kH + j];
            cell = sigmoid(pre(1)) * cell + sigmoid(pre(0)) * std::tanh(pre(2));
            next[r * kH + j] = sigmoid(pre(3)) * std::tanh(cell);
          }
      } else {
        Tensor b_ih = param(l, "bias_ih"), b_hh = param(l, "bias_hh");
        Matrix a = affine(x, w_ih, &b_ih, kB), g = affine(h, w_hh, &b_hh, kB);
        for (int64_t r = 0; r < kB; ++r)
          for (int64_t j = 0; j < kH; ++j) {
            auto at = [&](const Matrix& m, int gate) { return m[r * 3 * kH + gate * kH + j]; };
            const double rg = sigmoid(at(a, 0) + at(g, 0)), z = sigmoid(at(a, 1) + at(g, 1));
            const double n = std::tanh(at(a, 2) + rg * at(g, 2));
            next[r * kH + j] = (1 - z) * n + z * h[r * kH + j];
          }
      }
      h = next;
      outs.push_back(next);
    }
    ref.final_h.push_back(h);
    ref.final_c.push_back(c);
    inputs = outs;
  }
  ref.outputs = inputs;
  return ref;
}

void expect_near(const Tensor& got, const Matrix& want, size_t offset, double tol,
                 const std::string& what) {
  Tensor g = to_f64(got);
  for (size_t k = 0; k < want.size(); ++k)
    EXPECT_NEAR(g.data<double>()[offset + k], want[k], tol) << what << " element " << k;
}

// Builds the stack, runs startup then main with a random input; checks every output.
void check_forward(bool lstm, DType dtype, int layers) {
  Program main, startup;
  BlockBuilder b(&main);
  b.data("x", dtype, {kT, kB, kI});
  RnnOptions o;
  o.hidden = kH;
  o.num_layers = layers;
  o.name = "net";
  o.seed = 7;
  RnnResult r = lstm ? lstm_layer(b, "x", o, &startup) : gru_layer(b, "x", o, &startup);
  ASSERT_EQ(r.final_h.size(), static_cast<size_t>(layers));
  ASSERT_EQ(r.final_c.size(), lstm ? static_cast<size_t>(layers) : 0u);
  EXPECT_EQ(main.global_block().find_local_var(r.outputs)->shape, Shape({kT, kB, kH}));

  Executor exe;
  Scope scope;
  exe.run(startup, &scope);
  std::map<std::string, Tensor> params;
  for (const std::string& p : r.parameters) params[p] = fetch(scope, p);
  Tensor x = random_tensor({kT, kB, kI}, dtype, 3);
  std::vector<std::string> fetches = {r.outputs};
  for (int l = 0; l < layers; ++l) {
    fetches.push_back(r.final_h[l]);
    if (lstm) fetches.push_back(r.final_c[l]);
  }
  std::vector<Tensor> got = exe.run(main, &scope, {{"x", x}}, fetches);

  Reference ref = reference(lstm, x, layers, "net", params);
  const double tol = dtype == DType::kF64 ? 1e-12 : 1e-5;
  for (int64_t t = 0; t < kT; ++t)
    expect_near(got[0], ref.outputs[t], t * kB * kH, tol, "outputs step " + std::to_string(t));
  size_t k = 1;
  for (int l = 0; l < layers; ++l) {
    expect_near(got[k++], ref.final_h[l], 0, tol, "final h");
    if (lstm) expect_near(got[k++], ref.final_c[l], 0, tol, "final c");
  }
}

TEST(LstmLayer, ForwardMatchesReferenceLoop) {
  check_forward(true, DType::kF64, 1);
  check_forward(true, DType::kF64, 2);
  check_forward(true, DType::kF32, 2);
}

TEST(GruLayer, ForwardMatchesReferenceLoop) {
  check_forward(false, DType::kF64, 1);
  check_forward(false, DType::kF64, 2);
  check_forward(false, DType::kF32, 2);
}

// loss = <w1, outputs> + <w2, final h of layer 0> (+ <w3, final c of the last layer>),
// differentiated with respect to every parameter, the input and the initial states.
void check_gradients(bool lstm) {
  Program p, startup;
  BlockBuilder b(&p);
  b.persistable("x", DType::kF64, {kT, kB, kI});
  RnnOptions o;
  o.hidden = kH;
  o.num_layers = 2;
  o.name = "net";
  std::map<std::string, Tensor> values = {{"x", random_tensor({kT, kB, kI}, DType::kF64, 1)}};
  for (int l = 0; l < 2; ++l) {
    for (const char* state : {"h", "c"}) {
      if (!lstm && state[0] == 'c') continue;
      std::string name =
          b.persistable(std::string(state) + "0_" + std::to_string(l), DType::kF64, {kB, kH});
      (state[0] == 'h' ? o.initial_h : o.initial_c).push_back(name);
      values[name] = random_tensor({kB, kH}, DType::kF64, 10 + values.size());
    }
  }
  RnnResult r = lstm ? lstm_layer(b, "x", o, &startup) : gru_layer(b, "x", o, &startup);
  for (const std::string& name : r.parameters) {
    const VarDesc* v = p.global_block().find_local_var(name);
    values[name] = random_tensor(v->shape, DType::kF64, 20 + values.size(), -0.8, 0.8);
  }
  std::map<std::string, Tensor> feeds;
  auto weighted = [&](const std::string& v, const Shape& shape, uint64_t seed) {
    std::string w = b.data("w_" + v, DType::kF64, shape);
    feeds[w] = random_tensor(shape, DType::kF64, seed);
    return b.apply("reduce_sum", {{"X", {b.apply("elementwise_mul", {{"X", {v}}, {"Y", {w}}})}}});
  };
  auto add = [&](const std::string& x, const std::string& y) {
    return b.apply("elementwise_add", {{"X", {x}}, {"Y", {y}}});
  };
  std::string loss =
      add(weighted(r.outputs, {kT, kB, kH}, 91), weighted(r.final_h[0], {kB, kH}, 92));
  if (lstm) loss = add(loss, weighted(r.final_c[1], {kB, kH}, 93));
  check_program_grad(p, loss, values, feeds);
}

TEST(LstmLayer, GradientsMatchFiniteDifferences) { check_gradients(true); }

TEST(GruLayer, GradientsMatchFiniteDifferences) { check_gradients(false); }

TEST(LstmLayer, Errors) {
  Program main, startup;
  BlockBuilder b(&main);
  b.data("unknown_batch", DType::kF32, {kT, -1, kI});
  b.data("flat", DType::kF32, {kT, kI});
  RnnOptions o;
  o.hidden = kH;
  auto error = [&](const std::string& x, const RnnOptions& opts) {
    return testing::error_of([&] { lstm_layer(b, x, opts, &startup); });
  };
  EXPECT_NE(error("unknown_batch", o).find("known batch size"), std::string::npos);
  EXPECT_NE(error("flat", o).find("[T, B, I]"), std::string::npos);
  EXPECT_NE(error("missing", o).find("not declared"), std::string::npos);
  RnnOptions bad = o;
  bad.initial_h = {"a", "b"};
  b.data("x", DType::kF32, {kT, kB, kI});
  EXPECT_NE(error("x", bad).find("initial_h holds 2 variables for 1 layers"), std::string::npos);
  bad = o;
  bad.hidden = 0;
  EXPECT_NE(error("x", bad).find("hidden must be > 0"), std::string::npos);
  bad = o;
  bad.initial_c = {"c0"};
  bad.initial_h = {"h0"};
  EXPECT_NE(
      testing::error_of([&] { gru_layer(b, "x", bad, &startup); }).find("a GRU has no cell state"),
      std::string::npos);
}

}  // namespace
}  // namespace skiff
