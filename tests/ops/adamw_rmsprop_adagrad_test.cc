// The ops of ops/optimizer.cc beyond sgd, momentum and adam (optimizer_test.cc): adamw,
// rmsprop (plain, centered, with momentum), adagrad: several steps against
// double-precision references in f32 and f64 and against values PaddlePaddle gives;
// sparse adam / adamw (selected-rows gradients, repeated rows) equal to the dense
// update without lazy_mode and touching only their rows with it; errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
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

double atol_for(DType t) { return t == DType::kF32 ? 2e-6 : 1e-13; }
double rtol_for(DType t) { return t == DType::kF32 ? 2e-5 : 1e-12; }

Tensor one(double v, DType dtype) { return from_f64(Tensor::from_vector<double>({1}, {v}), dtype); }

// Rounds a float64 tensor through `dtype` (the state the op sees next step).
Tensor through(const Tensor& t, DType dtype) { return to_f64(from_f64(t, dtype)); }

// Applies f(i) to every element index of a new float64 tensor shaped `shape`.
Tensor make(const Shape& shape, const std::function<double(int64_t)>& f) {
  Tensor out = Tensor::empty(shape, DType::kF64);
  for (int64_t i = 0; i < out.numel(); ++i) out.data<double>()[i] = f(i);
  return out;
}
double at(const Tensor& t, int64_t i) { return t.data<double>()[i]; }

// ---- adamw ----

TEST(AdamwOp, StepsMatchReference) {
  const double lr = 0.02, b1 = 0.9, b2 = 0.99, eps = 1e-7, coeff = 0.05;
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    const Shape shape{4, 5};
    Tensor p = through(random_tensor(shape, DType::kF64, 1), dtype);
    Tensor m1 = Tensor::zeros(shape, DType::kF64), m2 = m1.clone();
    double b1p = b1, b2p = b2;
    for (int s = 0; s < 3; ++s) {
      Tensor g = through(random_tensor(shape, DType::kF64, 10 + s), dtype);
      Tensor m1n = make(shape, [&](int64_t i) { return b1 * at(m1, i) + (1 - b1) * at(g, i); });
      Tensor m2n =
          make(shape, [&](int64_t i) { return b2 * at(m2, i) + (1 - b2) * at(g, i) * at(g, i); });
      const double lr_t = lr * std::sqrt(1 - b2p) / (1 - b1p);
      Tensor pn = make(shape, [&](int64_t i) {
        return at(p, i) * (1 - lr * coeff) -
               lr_t * at(m1n, i) / (std::sqrt(at(m2n, i)) + eps * std::sqrt(1 - b2p));
      });
      OpTest t("adamw");
      t.input("Param", from_f64(p, dtype))
          .input("Grad", from_f64(g, dtype))
          .input("Moment1", from_f64(m1, dtype))
          .input("Moment2", from_f64(m2, dtype))
          .input("Beta1Pow", one(b1p, dtype))
          .input("Beta2Pow", one(b2p, dtype))
          .input("LearningRate", one(lr, dtype));
      for (const char* o : {"ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut"})
        t.output(o);
      t.attr("beta1", b1).attr("beta2", b2).attr("epsilon", eps).attr("coeff", coeff);
      t.check_output("ParamOut", from_f64(pn, dtype), atol_for(dtype), rtol_for(dtype));
      t.check_output("Moment2Out", from_f64(m2n, dtype), atol_for(dtype), rtol_for(dtype));
      t.check_output("Beta1PowOut", one(b1p * b1, dtype), atol_for(dtype), rtol_for(dtype));
      p = through(pn, dtype), m1 = through(m1n, dtype), m2 = through(m2n, dtype);
      b1p *= b1, b2p *= b2;
    }
  }
}

// Runs `type` for `steps` steps in place on a 2x2 parameter with a constant gradient
// (the setting of the PaddlePaddle values below); returns the parameter.
std::vector<double> paddle_setting(const std::string& type, const AttrList& attrs, int steps) {
  Program prog;
  BlockBuilder b(&prog);
  const Shape shape{2, 2};
  std::vector<Slot> ins = {{"Param", {"p"}}, {"Grad", {"g"}}, {"LearningRate", {"lr"}}};
  std::vector<Slot> outs = {{"ParamOut", {"p"}}};
  std::vector<std::string> zero_state, one_state;
  if (type == "adamw") {
    ins.insert(
        ins.end(),
        {{"Moment1", {"m1"}}, {"Moment2", {"m2"}}, {"Beta1Pow", {"b1p"}}, {"Beta2Pow", {"b2p"}}});
    outs.insert(outs.end(), {{"Moment1Out", {"m1"}},
                             {"Moment2Out", {"m2"}},
                             {"Beta1PowOut", {"b1p"}},
                             {"Beta2PowOut", {"b2p"}}});
    zero_state = {"m1", "m2"};
  } else if (type == "rmsprop") {
    ins.insert(ins.end(), {{"MeanSquare", {"ms"}}, {"Moment", {"mom"}}, {"MeanGrad", {"mg"}}});
    outs.insert(outs.end(),
                {{"MeanSquareOut", {"ms"}}, {"MomentOut", {"mom"}}, {"MeanGradOut", {"mg"}}});
    zero_state = {"ms", "mom", "mg"};
  } else {
    ins.push_back({"Moment", {"mom"}});
    outs.push_back({"MomentOut", {"mom"}});
    zero_state = {"mom"};
  }
  for (const char* n : {"p", "g"}) b.persistable(n, DType::kF64, shape);
  for (const auto& n : zero_state) b.persistable(n, DType::kF64, shape);
  for (const char* n : {"lr", "b1p", "b2p"}) b.persistable(n, DType::kF64, {1});
  b.op(type, ins, outs, attrs);
  Scope scope;
  scope.var("p")->set(Tensor::from_vector<double>(shape, {0.5, -1.0, 2.0, 0.3}));
  scope.var("g")->set(Tensor::from_vector<double>(shape, {0.1, -0.2, 0.3, 0.05}));
  for (const auto& n : zero_state) scope.var(n)->set(Tensor::zeros(shape, DType::kF64));
  scope.var("lr")->set(Tensor::from_vector<double>({1}, {0.1}));
  scope.var("b1p")->set(Tensor::from_vector<double>({1}, {0.9}));
  scope.var("b2p")->set(Tensor::from_vector<double>({1}, {0.999}));
  Executor exe;
  auto prepared = exe.prepare(prog);
  for (int s = 0; s < steps; ++s) exe.run(*prepared, &scope);
  return fetch(scope, "p").to_vector<double>();
}

void expect_values(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(OptimizerOps, ValuesPaddlePaddleGives) {
  // paddle.optimizer.AdamW(learning_rate=0.1, weight_decay=0.01), two steps.
  expect_values(paddle_setting("adamw", {{"coeff", 0.01}}, 2),
                {0.29910052, -0.79810101, 1.79610201, 0.09950034}, 1e-8);
  // paddle.optimizer.RMSProp(learning_rate=0.1): PaddlePaddle keeps epsilon in float32
  // (1e-6 becomes 9.99999997e-7), hence the looser tolerance.
  expect_values(paddle_setting("rmsprop", {}, 2), {-0.26685916, -0.232683, 1.23259812, -0.4650367},
                2e-7);
  expect_values(paddle_setting("rmsprop", {{"centered", true}, {"momentum", 0.5}}, 2),
                {-0.52444427, 0.02513007, 0.97474277, -0.72171567}, 2e-7);
  // paddle.optimizer.Adagrad(learning_rate=0.1), two steps.
  expect_values(paddle_setting("adagrad", {}, 2), {0.32929082, -0.82929007, 1.82928982, 0.12929232},
                1e-8);
}

// ---- rmsprop ----

void rmsprop_steps(DType dtype, bool centered, double momentum) {
  const double lr = 0.01, rho = 0.9, eps = 1e-5;
  const Shape shape{3, 7};
  Tensor p = through(random_tensor(shape, DType::kF64, 2), dtype);
  Tensor ms = Tensor::zeros(shape, DType::kF64), mom = ms.clone(), mg = ms.clone();
  for (int s = 0; s < 3; ++s) {
    Tensor g = through(random_tensor(shape, DType::kF64, 20 + s), dtype);
    Tensor msn =
        make(shape, [&](int64_t i) { return rho * at(ms, i) + (1 - rho) * at(g, i) * at(g, i); });
    Tensor mgn = make(shape, [&](int64_t i) { return rho * at(mg, i) + (1 - rho) * at(g, i); });
    Tensor momn = make(shape, [&](int64_t i) {
      const double var = centered ? at(msn, i) - at(mgn, i) * at(mgn, i) : at(msn, i);
      return momentum * at(mom, i) + lr * at(g, i) / std::sqrt(var + eps);
    });
    Tensor pn = make(shape, [&](int64_t i) { return at(p, i) - at(momn, i); });
    OpTest t("rmsprop");
    t.input("Param", from_f64(p, dtype))
        .input("Grad", from_f64(g, dtype))
        .input("MeanSquare", from_f64(ms, dtype))
        .input("Moment", from_f64(mom, dtype))
        .input("LearningRate", one(lr, dtype))
        .output("ParamOut")
        .output("MeanSquareOut")
        .output("MomentOut");
    if (centered) t.input("MeanGrad", from_f64(mg, dtype)).output("MeanGradOut");
    t.attr("decay", rho).attr("epsilon", eps).attr("momentum", momentum).attr("centered", centered);
    t.check_output("ParamOut", from_f64(pn, dtype), atol_for(dtype), rtol_for(dtype));
    t.check_output("MomentOut", from_f64(momn, dtype), atol_for(dtype), rtol_for(dtype));
    t.check_output("MeanSquareOut", from_f64(msn, dtype), atol_for(dtype), rtol_for(dtype));
    if (centered) {
      t.check_output("MeanGradOut", from_f64(mgn, dtype), atol_for(dtype), rtol_for(dtype));
    }
    p = through(pn, dtype), ms = through(msn, dtype), mom = through(momn, dtype);
    mg = through(mgn, dtype);
  }
}

TEST(RmspropOp, StepsMatchReference) {
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    rmsprop_steps(dtype, /*centered=*/false, /*momentum=*/0.0);
    rmsprop_steps(dtype, /*centered=*/false, /*momentum=*/0.9);
    rmsprop_steps(dtype, /*centered=*/true, /*momentum=*/0.5);
  }
}

// ---- adagrad ----

TEST(AdagradOp, StepsMatchReference) {
  const double lr = 0.05, eps = 1e-6;
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    for (const Shape& shape : {Shape{5, 3}, Shape{300, 301}}) {
      Tensor p = through(random_tensor(shape, DType::kF64, 3), dtype);
      Tensor m = make(shape, [](int64_t) { return 0.1; });  // initial_accumulator_value
      for (int s = 0; s < 2; ++s) {
        Tensor g = through(random_tensor(shape, DType::kF64, 30 + s), dtype);
        Tensor mn = make(shape, [&](int64_t i) { return at(m, i) + at(g, i) * at(g, i); });
        Tensor pn = make(shape, [&](int64_t i) {
          return at(p, i) - lr * at(g, i) / (std::sqrt(at(mn, i)) + eps);
        });
        OpTest t("adagrad");
        t.input("Param", from_f64(p, dtype))
            .input("Grad", from_f64(g, dtype))
            .input("Moment", from_f64(m, dtype))
            .input("LearningRate", one(lr, dtype))
            .output("ParamOut")
            .output("MomentOut")
            .attr("epsilon", eps);
        t.check_output("ParamOut", from_f64(pn, dtype), atol_for(dtype), rtol_for(dtype));
        t.check_output("MomentOut", from_f64(mn, dtype), atol_for(dtype), rtol_for(dtype));
        p = through(pn, dtype), m = through(mn, dtype);
      }
    }
  }
}

// ---- sparse adam / adamw ----

struct AdamRun {
  std::vector<float> param, moment1, moment2;
};

// Three in-place steps of `type` on a [rows, 4] parameter with the gradient given as
// selected rows (sparse) or as the dense tensor they stand for.
AdamRun run_adam(const std::string& type, bool sparse, bool lazy, int64_t rows) {
  Program prog;
  BlockBuilder b(&prog);
  const Shape shape{rows, 4};
  for (const char* n : {"p", "m1", "m2"}) b.persistable(n, DType::kF32, shape);
  for (const char* n : {"b1p", "b2p", "lr"}) b.persistable(n, DType::kF32, {1});
  if (sparse) {
    b.block().add_var(VarDesc("g", DType::kF32, shape, VarKind::kSelectedRows));
  } else {
    b.persistable("g", DType::kF32, shape);
  }
  AttrList attrs = {{"lazy_mode", lazy}, {"beta2", 0.99}};
  if (type == "adamw") attrs.push_back({"coeff", 0.1});
  b.op(type,
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
        {"Beta2PowOut", {"b2p"}}},
       attrs);
  Scope scope;
  scope.var("p")->set(from_f64(random_tensor(shape, DType::kF64, 4), DType::kF32));
  scope.var("m1")->set(Tensor::zeros(shape, DType::kF32));
  scope.var("m2")->set(Tensor::zeros(shape, DType::kF32));
  scope.var("b1p")->set(Tensor::from_vector<float>({1}, {0.9f}));
  scope.var("b2p")->set(Tensor::from_vector<float>({1}, {0.99f}));
  scope.var("lr")->set(Tensor::from_vector<float>({1}, {0.01f}));
  Executor exe;
  auto prepared = exe.prepare(prog);
  for (int s = 0; s < 3; ++s) {
    // Rows 1 and rows-2 (row 1 twice, as two lookups of one id give it), different
    // each step; the other rows get no gradient.
    SelectedRows g;
    g.height = rows;
    g.rows = {rows - 2, 1, 1};
    g.value = from_f64(random_tensor({3, 4}, DType::kF64, 40 + s), DType::kF32);
    if (sparse) {
      *scope.var("g")->mutable_selected_rows() = g;
    } else {
      Tensor dense = Tensor::zeros(shape, DType::kF32);
      float* d = dense.data<float>();
      const float* v = g.value.data<float>();
      for (size_t k = 0; k < g.rows.size(); ++k)
        for (int j = 0; j < 4; ++j) d[g.rows[k] * 4 + j] += v[k * 4 + j];
      scope.var("g")->set(dense);
    }
    exe.run(*prepared, &scope);
  }
  return {fetch(scope, "p").to_vector<float>(), fetch(scope, "m1").to_vector<float>(),
          fetch(scope, "m2").to_vector<float>()};
}

TEST(SparseAdamOp, WithoutLazyModeEqualsTheDenseUpdate) {
  for (const char* type : {"adam", "adamw"}) {
    for (int64_t rows : {6, 700}) {  // 700 x 4: several pieces of the update loop
      SCOPED_TRACE(std::string(type) + " rows " + std::to_string(rows));
      AdamRun dense = run_adam(type, false, false, rows);
      AdamRun sparse = run_adam(type, true, false, rows);
      EXPECT_EQ(sparse.param, dense.param);
      EXPECT_EQ(sparse.moment1, dense.moment1);
      EXPECT_EQ(sparse.moment2, dense.moment2);
    }
  }
}

TEST(SparseAdamOp, LazyModeTouchesOnlyTheGivenRows) {
  const int64_t rows = 6;
  AdamRun start = run_adam("adam", true, true, rows);
  AdamRun dense = run_adam("adam", false, false, rows);
  Tensor p0 = from_f64(random_tensor({rows, 4}, DType::kF64, 4), DType::kF32);
  const std::vector<float> initial = p0.to_vector<float>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int j = 0; j < 4; ++j) {
      const size_t i = static_cast<size_t>(r * 4 + j);
      if (r == 1 || r == rows - 2) {
        // The touched rows get a gradient every step: the dense update's values (up
        // to rounding: a row-wide loop may vectorise differently).
        EXPECT_NEAR(start.param[i], dense.param[i], 1e-6) << r;
      } else {
        EXPECT_EQ(start.param[i], initial[i]) << r;
        EXPECT_EQ(start.moment1[i], 0.0f) << r;
      }
    }
  }
  // adamw's decay applies to the given rows only in lazy mode.
  AdamRun adamw = run_adam("adamw", true, true, rows);
  EXPECT_EQ(adamw.param[0], initial[0]);
  EXPECT_NE(adamw.param[4], start.param[4]);
}

// ---- errors ----

TEST(OptimizerOps, MoreShapeAndConfigurationErrors) {
  OpTest centered("rmsprop");
  centered.input("Param", Tensor::zeros({3}, DType::kF32))
      .input("Grad", Tensor::zeros({3}, DType::kF32))
      .input("MeanSquare", Tensor::zeros({3}, DType::kF32))
      .input("Moment", Tensor::zeros({3}, DType::kF32))
      .input("LearningRate", Tensor::zeros({1}, DType::kF32))
      .output("ParamOut")
      .output("MeanSquareOut")
      .output("MomentOut")
      .attr("centered", true);
  expect_error(centered, {"centered needs MeanGrad"});

  OpTest moment("adagrad");
  moment.input("Param", Tensor::zeros({3}, DType::kF32))
      .input("Grad", Tensor::zeros({3}, DType::kF32))
      .input("Moment", Tensor::zeros({4}, DType::kF32))
      .input("LearningRate", Tensor::zeros({1}, DType::kF32))
      .output("ParamOut")
      .output("MomentOut");
  expect_error(moment, {"Moment", "[4]", "[3]"});

  Program prog;
  BlockBuilder b(&prog);
  for (const char* n : {"p", "v"}) b.persistable(n, DType::kF32, {4, 2});
  b.persistable("lr", DType::kF32, {1});
  b.block().add_var(VarDesc("g", DType::kF32, Shape{4, 2}, VarKind::kSelectedRows));
  std::string message = testing::error_of([&] {
    b.op("momentum",
         {{"Param", {"p"}}, {"Grad", {"g"}}, {"Velocity", {"v"}}, {"LearningRate", {"lr"}}},
         {{"ParamOut", {"p"}}, {"VelocityOut", {"v"}}});
  });
  EXPECT_NE(message.find("selected rows"), std::string::npos) << message;

  Program sparse_rows;
  BlockBuilder s(&sparse_rows);
  for (const char* n : {"p", "m1", "m2"}) s.persistable(n, DType::kF32, {4, 2});
  for (const char* n : {"b1p", "b2p", "lr"}) s.persistable(n, DType::kF32, {1});
  s.block().add_var(VarDesc("g", DType::kF32, Shape{4, 2}, VarKind::kSelectedRows));
  s.op("adam",
       {{"Param", {"p"}},
        {"Grad", {"g"}},
        {"Moment1", {"m1"}},
        {"Moment2", {"m2"}},
        {"Beta1Pow", {"b1p"}},
        {"Beta2Pow", {"b2p"}},
        {"LearningRate", {"lr"}}},
       {{"ParamOut", {"p"}}, {"Moment1Out", {"m1"}}, {"Moment2Out", {"m2"}}});
  Scope scope;
  for (const char* n : {"p", "m1", "m2"}) scope.var(n)->set(Tensor::zeros({4, 2}, DType::kF32));
  for (const char* n : {"b1p", "b2p", "lr"})
    scope.var(n)->set(Tensor::from_vector<float>({1}, {0.5f}));
  *scope.var("g")->mutable_selected_rows() = {{4}, Tensor::zeros({1, 2}, DType::kF32), 4};
  message = testing::error_of([&] { Executor().run(sparse_rows, &scope); });
  EXPECT_NE(message.find("row 4 is outside"), std::string::npos) << message;
  *scope.var("g")->mutable_selected_rows() = {{1, -2}, Tensor::zeros({2, 2}, DType::kF32), 4};
  message = testing::error_of([&] { Executor().run(sparse_rows, &scope); });
  EXPECT_NE(message.find("row -2 at position 1"), std::string::npos) << message;
}

}  // namespace
}  // namespace skiff
