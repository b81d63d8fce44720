// sgd, momentum, adam: several steps against double-precision references, in f32 and
// f64, small and large (threaded) tensors, in place, sparse SGD, and shape errors.
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr DType kFloatTypes[] = {DType::kF32, DType::kF64};

double atol_for(DType t) { return t == DType::kF32 ? 2e-6 : 1e-13; }
double rtol_for(DType t) { return t == DType::kF32 ? 2e-5 : 1e-12; }

// A float64 tensor with f(i) applied elementwise to the float64 inputs.
template <typename Fn>
Tensor map_f64(const Shape& shape, Fn f) {
  Tensor out = Tensor::empty(shape, DType::kF64);
  for (int64_t i = 0; i < out.numel(); ++i) out.data<double>()[i] = f(i);
  return out;
}

const double* f64(const Tensor& t) { return t.data<double>(); }

Tensor lr_tensor(double lr, DType dtype, bool rank0) {
  return rank0 ? from_f64(Tensor::scalar<double>(lr), dtype)
               : from_f64(Tensor::from_vector<double>({1}, {lr}), dtype);
}

void sgd_steps(const Shape& shape, DType dtype, bool rank0_lr, int steps) {
  const double lr = 0.1;
  Tensor p = to_f64(from_f64(random_tensor(shape, DType::kF64, 1), dtype));
  for (int s = 0; s < steps; ++s) {
    Tensor g = to_f64(from_f64(random_tensor(shape, DType::kF64, 10 + s), dtype));
    Tensor want = map_f64(shape, [&](int64_t i) { return f64(p)[i] - lr * f64(g)[i]; });
    OpTest t("sgd");
    t.input("Param", from_f64(p, dtype))
        .input("Grad", from_f64(g, dtype))
        .input("LearningRate", lr_tensor(lr, dtype, rank0_lr))
        .output("ParamOut");
    t.check_output("ParamOut", from_f64(want, dtype), atol_for(dtype), rtol_for(dtype));
    p = to_f64(from_f64(want, dtype));
  }
}

TEST(SgdOp, ThreeStepsMatchReference) {
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    sgd_steps({3, 4}, dtype, /*rank0_lr=*/false, 3);
    sgd_steps({5}, dtype, /*rank0_lr=*/true, 2);
  }
}

TEST(SgdOp, LargeTensorThreaded) { sgd_steps({300, 300}, DType::kF32, false, 1); }

void momentum_steps(const Shape& shape, DType dtype, bool nesterov, int steps) {
  const double lr = 0.05, mu = 0.8;
  Tensor p = to_f64(from_f64(random_tensor(shape, DType::kF64, 2), dtype));
  Tensor v = Tensor::zeros(shape, DType::kF64);
  for (int s = 0; s < steps; ++s) {
    Tensor g = to_f64(from_f64(random_tensor(shape, DType::kF64, 20 + s), dtype));
    Tensor v_new = map_f64(shape, [&](int64_t i) { return mu * f64(v)[i] + f64(g)[i]; });
    Tensor p_new = map_f64(shape, [&](int64_t i) {
      double step = nesterov ? f64(g)[i] + mu * f64(v_new)[i] : f64(v_new)[i];
      return f64(p)[i] - lr * step;
    });
    OpTest t("momentum");
    t.input("Param", from_f64(p, dtype))
        .input("Grad", from_f64(g, dtype))
        .input("Velocity", from_f64(v, dtype))
        .input("LearningRate", lr_tensor(lr, dtype, false))
        .output("ParamOut")
        .output("VelocityOut")
        .attr("mu", mu)
        .attr("use_nesterov", nesterov);
    t.check_output("ParamOut", from_f64(p_new, dtype), atol_for(dtype), rtol_for(dtype));
    t.check_output("VelocityOut", from_f64(v_new, dtype), atol_for(dtype), rtol_for(dtype));
    p = to_f64(from_f64(p_new, dtype));
    v = to_f64(from_f64(v_new, dtype));
  }
}

TEST(MomentumOp, ThreeStepsMatchReference) {
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    momentum_steps({4, 3}, dtype, /*nesterov=*/false, 3);
    momentum_steps({4, 3}, dtype, /*nesterov=*/true, 3);
  }
}

TEST(MomentumOp, LargeTensorThreaded) { momentum_steps({200, 300}, DType::kF32, true, 1); }

// The state of Adam in float64, advanced by the reference update.
struct AdamRef {
  Tensor p, m1, m2, m2max;
  double b1p, b2p;
};

// With amsgrad, beta2 is small and the gradients shrink after the first step, so that
// Moment2 falls below its running maximum.
void adam_steps(const Shape& shape, DType dtype, int steps, bool amsgrad = false) {
  const double lr = 0.01, b1 = 0.85, b2 = amsgrad ? 0.5 : 0.99, eps = 1e-6;
  AdamRef st{to_f64(from_f64(random_tensor(shape, DType::kF64, 3), dtype)),
             Tensor::zeros(shape, DType::kF64),
             Tensor::zeros(shape, DType::kF64),
             Tensor::zeros(shape, DType::kF64),
             b1,
             b2};
  for (int s = 0; s < steps; ++s) {
    const double scale = amsgrad && s > 0 ? 0.2 : 1.0;
    const Tensor noise = random_tensor(shape, DType::kF64, 30 + s);
    Tensor g =
        to_f64(from_f64(map_f64(shape, [&](int64_t i) { return scale * f64(noise)[i]; }), dtype));
    AdamRef next = st;
    next.m1 = map_f64(shape, [&](int64_t i) { return b1 * f64(st.m1)[i] + (1 - b1) * f64(g)[i]; });
    next.m2 = map_f64(
        shape, [&](int64_t i) { return b2 * f64(st.m2)[i] + (1 - b2) * f64(g)[i] * f64(g)[i]; });
    next.m2max =
        map_f64(shape, [&](int64_t i) { return std::max(f64(st.m2max)[i], f64(next.m2)[i]); });
    const Tensor& denom = amsgrad ? next.m2max : next.m2;
    const double lr_t = lr * std::sqrt(1 - st.b2p) / (1 - st.b1p);
    next.p = map_f64(shape, [&](int64_t i) {
      return f64(st.p)[i] -
             lr_t * f64(next.m1)[i] / (std::sqrt(f64(denom)[i]) + eps * std::sqrt(1 - st.b2p));
    });
    next.b1p = st.b1p * b1;
    next.b2p = st.b2p * b2;

    OpTest t("adam");
    t.input("Param", from_f64(st.p, dtype))
        .input("Grad", from_f64(g, dtype))
        .input("Moment1", from_f64(st.m1, dtype))
        .input("Moment2", from_f64(st.m2, dtype))
        .input("Beta1Pow", from_f64(Tensor::from_vector<double>({1}, {st.b1p}), dtype))
        .input("Beta2Pow", from_f64(Tensor::from_vector<double>({1}, {st.b2p}), dtype))
        .input("LearningRate", lr_tensor(lr, dtype, false))
        .output("ParamOut")
        .output("Moment1Out")
        .output("Moment2Out")
        .output("Beta1PowOut")
        .output("Beta2PowOut")
        .attr("beta1", b1)
        .attr("beta2", b2)
        .attr("epsilon", eps);
    if (amsgrad) {
      t.input("Moment2Max", from_f64(st.m2max, dtype))
          .output("Moment2MaxOut")
          .attr("amsgrad", true);
    }
    const double atol = atol_for(dtype), rtol = rtol_for(dtype);
    if (amsgrad) t.check_output("Moment2MaxOut", from_f64(next.m2max, dtype), atol, rtol);
    t.check_output("ParamOut", from_f64(next.p, dtype), atol, rtol);
    t.check_output("Moment1Out", from_f64(next.m1, dtype), atol, rtol);
    t.check_output("Moment2Out", from_f64(next.m2, dtype), atol, rtol);
    t.check_output("Beta1PowOut", from_f64(Tensor::from_vector<double>({1}, {next.b1p}), dtype),
                   atol, rtol);
    t.check_output("Beta2PowOut", from_f64(Tensor::from_vector<double>({1}, {next.b2p}), dtype),
                   atol, rtol);
    st = next;
    st.p = to_f64(from_f64(st.p, dtype));
    st.m1 = to_f64(from_f64(st.m1, dtype));
    st.m2 = to_f64(from_f64(st.m2, dtype));
    st.m2max = to_f64(from_f64(st.m2max, dtype));
  }
}

TEST(AdamOp, ThreeStepsMatchReference) {
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    adam_steps({3, 5}, dtype, 3);
    adam_steps({17}, dtype, 2);  // a length that is not a multiple of the vector width
  }
}

TEST(AdamOp, LargeTensorThreaded) { adam_steps({256, 130}, DType::kF32, 2); }

TEST(AdamOp, AmsgradDividesByTheLargestSecondMoment) {
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    adam_steps({4, 9}, dtype, 3, /*amsgrad=*/true);
  }
  adam_steps({256, 130}, DType::kF32, 3, /*amsgrad=*/true);
}

TEST(AdamOp, UpdatesInPlaceAcrossRuns) {
  // The usual training form: every output names its input variable; the prepared
  // block runs twice in one scope.
  Program prog;
  BlockBuilder b(&prog);
  for (const char* n : {"p", "g", "m1", "m2"}) b.persistable(n, DType::kF32, {4});
  for (const char* n : {"b1p", "b2p", "lr"}) b.persistable(n, DType::kF32, {1});
  b.op("adam",
       {{"Param", {"p"}},
        {"Grad", {"g"}},
        {"Moment1", {"m1"}},
        {"Moment2", {"m2"}},
        {"Beta1Pow", {"b1p"}},
        {"Beta2Pow", {"b2p"}},
        {"LearningRate", {"lr"}}},
       {{"ParamOut", {"p"}},
        {"Moment1Out", {"m1"}},
        {"Moment2Out", {"m2"}},
        {"Beta1PowOut", {"b1p"}},
        {"Beta2PowOut", {"b2p"}}});
  Scope scope;
  Tensor p0 = Tensor::from_vector<float>({4}, {1, -2, 3, 0.5f});
  Tensor g = Tensor::from_vector<float>({4}, {0.5f, 0.25f, -1, 2});
  scope.var("p")->set(p0);  // shared with p0: the update must not write through
  scope.var("g")->set(g);
  scope.var("m1")->set(Tensor::zeros({4}, DType::kF32));
  scope.var("m2")->set(Tensor::zeros({4}, DType::kF32));
  scope.var("b1p")->set(Tensor::from_vector<float>({1}, {0.9f}));
  scope.var("b2p")->set(Tensor::from_vector<float>({1}, {0.999f}));
  scope.var("lr")->set(Tensor::from_vector<float>({1}, {0.1f}));
  Executor exe;
  auto prepared = exe.prepare(prog);
  exe.run(*prepared, &scope);
  exe.run(*prepared, &scope);
  // With a constant gradient, Adam's bias-corrected step is lr * sign(g) (up to eps)
  // at every step: two steps move each element by 0.2 against its gradient's sign.
  std::vector<float> want = {0.8f, -2.2f, 3.2f, 0.3f};
  std::vector<float> got = fetch(scope, "p").to_vector<float>();
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  EXPECT_EQ(p0.to_vector<float>()[0], 1.0f) << "the fed tensor was written through";
  EXPECT_NEAR(fetch(scope, "b1p").item<double>(), 0.9 * 0.9 * 0.9, 1e-6);
  EXPECT_NEAR(fetch(scope, "b2p").item<double>(), 0.999 * 0.999 * 0.999, 1e-6);
}

TEST(SgdOp, SparseGradientUpdatesOnlyItsRows) {
  Program prog;
  BlockBuilder b(&prog);
  b.persistable("table", DType::kF32, {4, 2});
  b.block().add_var(VarDesc("rows_grad", DType::kF32, Shape{-1, 2}, VarKind::kSelectedRows));
  b.data("lr", DType::kF32, {1});
  b.op("sgd", {{"Param", {"table"}}, {"Grad", {"rows_grad"}}, {"LearningRate", {"lr"}}},
       {{"ParamOut", {"table"}}});
  Scope scope;
  scope.var("table")->set(Tensor::from_vector<float>({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}));
  SelectedRows* g = scope.var("rows_grad")->mutable_selected_rows();
  g->height = 4;
  g->rows = {3, 1, 3};  // row 3 twice: both updates apply
  g->value = Tensor::from_vector<float>({3, 2}, {1, 1, 10, 20, 2, 4});
  Executor().run(prog, &scope, {{"lr", Tensor::from_vector<float>({1}, {0.5f})}});
  std::vector<float> want = {0, 1, -3, -7, 4, 5, 4.5f, 4.5f};
  EXPECT_EQ(fetch(scope, "table").to_vector<float>(), want);

  g->rows = {4};
  g->value = Tensor::from_vector<float>({1, 2}, {1, 1});
  EXPECT_THROW(Executor().run(prog, &scope, {{"lr", Tensor::from_vector<float>({1}, {0.5f})}}),
               Error);
}

// The table after one sparse sgd step on `threads` threads.
std::vector<float> sparse_sgd_table(const std::vector<int64_t>& rows, int threads) {
  constexpr int64_t kHeight = 3000, kWidth = 16;
  Program prog;
  BlockBuilder b(&prog);
  b.persistable("table", DType::kF32, {kHeight, kWidth});
  b.block().add_var(VarDesc("rows_grad", DType::kF32, Shape{-1, kWidth}, VarKind::kSelectedRows));
  b.data("lr", DType::kF32, {1});
  b.op("sgd", {{"Param", {"table"}}, {"Grad", {"rows_grad"}}, {"LearningRate", {"lr"}}},
       {{"ParamOut", {"table"}}});
  Scope scope;
  scope.var("table")->set(from_f64(random_tensor({kHeight, kWidth}, DType::kF64, 3), DType::kF32));
  SelectedRows* g = scope.var("rows_grad")->mutable_selected_rows();
  g->height = kHeight;
  g->rows = rows;
  const int64_t n = static_cast<int64_t>(rows.size());
  g->value = from_f64(random_tensor({n, kWidth}, DType::kF64, 4), DType::kF32);
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  Executor().run(prog, &scope, {{"lr", Tensor::from_vector<float>({1}, {0.3f})}});
  omp_set_num_threads(before);
  return fetch(scope, "table").to_vector<float>();
}

TEST(SgdOp, LargeSparseGradientOnTwoThreadsEqualsOneThread) {
  // Rows repeat (each occurrence applies, in order); ascending rows are split by entry,
  // rows in any order by bands of the table, and the result must not depend on either.
  std::vector<int64_t> scattered, ascending;
  for (int64_t i = 0; i < 9000; ++i) scattered.push_back((i * 1237 + (i % 5) * 17) % 2999);
  ascending = scattered;
  std::sort(ascending.begin(), ascending.end());
  for (const auto& rows : {scattered, ascending}) {
    const std::vector<float> one = sparse_sgd_table(rows, 1), two = sparse_sgd_table(rows, 2);
    ASSERT_EQ(one.size(), two.size());
    int64_t mismatches = 0;
    for (size_t i = 0; i < one.size(); ++i) mismatches += one[i] != two[i];
    EXPECT_EQ(mismatches, 0);
    // Against float64: each occurrence of a row subtracts lr * its gradient row.
    std::vector<double> want =
        to_f64(from_f64(random_tensor({3000, 16}, DType::kF64, 3), DType::kF32))
            .to_vector<double>();
    const std::vector<double> g =
        to_f64(from_f64(random_tensor({static_cast<int64_t>(rows.size()), 16}, DType::kF64, 4),
                        DType::kF32))
            .to_vector<double>();
    for (size_t k = 0; k < rows.size(); ++k)
      for (int j = 0; j < 16; ++j) want[rows[k] * 16 + j] -= 0.3 * g[k * 16 + j];
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(two[i], want[i], 1e-5) << i;
  }
}

TEST(OptimizerOps, ShapeMismatchesAreErrors) {
  OpTest bad_grad("sgd");
  bad_grad.input("Param", Tensor::zeros({3, 4}, DType::kF32))
      .input("Grad", Tensor::zeros({4, 3}, DType::kF32))
      .input("LearningRate", Tensor::zeros({1}, DType::kF32))
      .output("ParamOut");
  EXPECT_THROW(bad_grad.run(), Error);

  OpTest bad_lr("momentum");
  bad_lr.input("Param", Tensor::zeros({3}, DType::kF64))
      .input("Grad", Tensor::zeros({3}, DType::kF64))
      .input("Velocity", Tensor::zeros({3}, DType::kF64))
      .input("LearningRate", Tensor::zeros({2}, DType::kF64))
      .output("ParamOut")
      .output("VelocityOut");
  EXPECT_THROW(bad_lr.run(), Error);

  OpTest bad_moment("adam");
  bad_moment.input("Param", Tensor::zeros({3}, DType::kF32))
      .input("Grad", Tensor::zeros({3}, DType::kF32))
      .input("Moment1", Tensor::zeros({3}, DType::kF64))
      .input("Moment2", Tensor::zeros({3}, DType::kF32))
      .input("Beta1Pow", Tensor::zeros({1}, DType::kF32))
      .input("Beta2Pow", Tensor::zeros({1}, DType::kF32))
      .input("LearningRate", Tensor::zeros({1}, DType::kF32))
      .output("ParamOut")
      .output("Moment1Out")
      .output("Moment2Out")
      .output("Beta1PowOut")
      .output("Beta2PowOut");
  EXPECT_THROW(bad_moment.run(), Error);
}

}  // namespace
}  // namespace skiff
