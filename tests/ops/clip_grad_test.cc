// squared_l2_norm (dense, selected rows, threaded sizes, gradient) and
// clip_by_global_norm: gradients above the norm are scaled by clip / norm, below it
// are left alone, selected rows count as their dense tensor (repeated rows summed),
// in place, GlobalNorm, and errors.
#include <gtest/gtest.h>

#include <cmath>
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

double sum_of_squares(const Tensor& t) {
  const Tensor a = to_f64(t);
  double s = 0;
  for (int64_t i = 0; i < a.numel(); ++i) s += a.data<double>()[i] * a.data<double>()[i];
  return s;
}

TEST(SquaredL2NormOp, SumsSquares) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    for (const Shape& shape : {Shape{3, 4}, Shape{}, Shape{1000, 70}}) {
      Tensor x = random_tensor(shape, dtype, 1);
      OpTest t("squared_l2_norm");
      t.input("X", x);
      t.check_output("Out", from_f64(Tensor::from_vector<double>({1}, {sum_of_squares(x)}), dtype),
                     1e-12, dtype == DType::kF32 ? 1e-6 : 1e-12);
    }
  }
  OpTest g("squared_l2_norm");
  g.input("X", random_tensor({2, 5}, DType::kF64, 2));
  g.check_grad({"X"});
}

// A program clipping `names` (declared like `grads`, selected rows where given) in
// place; returns the scope after one run.
struct ClipRun {
  Program prog;
  Scope scope;
};
void run_clip(ClipRun* run, const std::vector<std::pair<std::string, Variable>>& grads,
              double clip_norm) {
  BlockBuilder b(&run->prog);
  std::vector<std::string> names;
  for (const auto& [name, value] : grads) {
    names.push_back(name);
    if (const SelectedRows* rows = value.selected_rows()) {
      Shape shape = rows->value.shape();
      shape[0] = rows->height;
      VarDesc v(name, rows->value.dtype(), shape, VarKind::kSelectedRows);
      v.persistable = true;
      b.block().add_var(v);
      *run->scope.var(name)->mutable_selected_rows() = *rows;
    } else {
      b.persistable(name, value.tensor()->dtype(), value.tensor()->shape());
      run->scope.var(name)->set(value.tensor()->clone());
    }
  }
  b.persistable("norm",
                grads[0].second.is_tensor() ? grads[0].second.tensor()->dtype()
                                            : grads[0].second.selected_rows()->value.dtype(),
                {1});
  b.op("clip_by_global_norm", {{"X", names}}, {{"Out", names}, {"GlobalNorm", {"norm"}}},
       {{"clip_norm", clip_norm}});
  Executor().run(run->prog, &run->scope);
}

Variable dense(const Tensor& t) {
  Variable v;
  v.set(t);
  return v;
}

TEST(ClipByGlobalNormOp, ScalesAllGradientsByOneFactor) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    Tensor a = random_tensor({3, 4}, dtype, 3), b = random_tensor({5}, dtype, 4);
    const double norm = std::sqrt(sum_of_squares(a) + sum_of_squares(b));
    const double tol = dtype == DType::kF32 ? 1e-6 : 1e-14;
    for (double clip : {0.5 * norm, 2.0 * norm}) {
      ClipRun run;
      run_clip(&run, {{"a", dense(a)}, {"b", dense(b)}}, clip);
      const double scale = clip / std::max(norm, clip);
      EXPECT_NEAR(fetch(run.scope, "norm").item<double>(), norm, tol * norm);
      for (const auto& [name, t] : {std::pair<const char*, Tensor>{"a", a}, {"b", b}}) {
        const Tensor got = to_f64(fetch(run.scope, name));
        const Tensor want = to_f64(t);
        for (int64_t i = 0; i < want.numel(); ++i)
          EXPECT_NEAR(got.data<double>()[i], want.data<double>()[i] * scale, tol) << name << i;
      }
      if (clip > norm) {  // below the limit: the gradients pass unchanged
        EXPECT_EQ(to_f64(fetch(run.scope, "a")).to_vector<double>(), to_f64(a).to_vector<double>());
      }
    }
  }
}

TEST(ClipByGlobalNormOp, SelectedRowsCountAsTheirDenseTensor) {
  // Row 2 twice: the dense gradient's row 2 is their sum, and the norm is that of the
  // dense gradient, not of the three stored rows.
  SelectedRows rows;
  rows.height = 5;
  rows.rows = {2, 0, 2};
  rows.value = Tensor::from_vector<double>({3, 2}, {1, 2, 3, 0, 2, 2});
  Variable sparse;
  *sparse.mutable_selected_rows() = rows;
  const Tensor d = Tensor::from_vector<double>({2}, {0, 4});
  const double norm = std::sqrt(3 * 3 + 4 * 4 + 3 * 3 + 0 + 16);  // rows 2 = (3, 4), 0 = (3, 0)
  ClipRun run;
  run_clip(&run, {{"s", sparse}, {"d", dense(d)}}, 1.0);
  EXPECT_DOUBLE_EQ(fetch(run.scope, "norm").item<double>(), norm);
  const SelectedRows* out = run.scope.find_var("s")->selected_rows();
  ASSERT_TRUE(out);
  EXPECT_EQ(out->rows, rows.rows);
  const std::vector<double> v = out->value.to_vector<double>();
  const std::vector<double> want = {1 / norm, 2 / norm, 3 / norm, 0, 2 / norm, 2 / norm};
  for (size_t i = 0; i < v.size(); ++i) EXPECT_DOUBLE_EQ(v[i], want[i]) << i;
  EXPECT_DOUBLE_EQ(fetch(run.scope, "d").to_vector<double>()[1], 4 / norm);
}

TEST(SquaredL2NormOp, OfSelectedRowsSumsRepeatedRowsFirst) {
  Program prog;
  BlockBuilder b(&prog);
  b.block().add_var(VarDesc("s", DType::kF64, Shape{5, 2}, VarKind::kSelectedRows));
  b.op("squared_l2_norm", {{"X", {"s"}}}, {{"Out", {"sq"}}});
  Scope scope;
  *scope.var("s")->mutable_selected_rows() = {
      {2, 0, 2}, Tensor::from_vector<double>({3, 2}, {1, 2, 3, 0, 2, 2}), 5};
  const std::vector<Tensor> out = Executor().run(prog, &scope, {}, {"sq"});
  EXPECT_DOUBLE_EQ(out[0].item<double>(), 3 * 3 + 4 * 4 + 3 * 3);  // rows (3, 4) and (3, 0)
}

TEST(ClipByGlobalNormOp, Errors) {
  OpTest bad_clip("clip_by_global_norm");
  bad_clip.input("X", Tensor::zeros({2}, DType::kF32)).attr("clip_norm", 0.0);
  expect_error(bad_clip, {"clip_norm must be > 0"});

  OpTest ints("clip_by_global_norm");
  ints.input("X", Tensor::zeros({2}, DType::kI64));
  expect_error(ints, {"float32/float64"});
}

}  // namespace
}  // namespace skiff
