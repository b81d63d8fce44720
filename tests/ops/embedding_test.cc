// embedding: lookups against gathered rows in f32 and f64 (padding rows, int32 ids,
// rank-2 ids), the dense gradient by finite differences, the sparse gradient against
// the dense one, errors; and, in training programs, that a sparse table's updates
// equal the dense table's (sgd, adam), one lookup or two (sum over selected rows),
// or mixed with a dense use of the table.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "skiff/api/optimizer.h"
#include "skiff/autodiff/backward.h"
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

// out[i, :] = table[ids[i], :] (zeros for padding_idx), in float64.
Tensor gather_rows(const Tensor& table, const std::vector<int64_t>& ids, const Shape& out_shape,
                   int64_t padding_idx) {
  const Tensor t = to_f64(table);
  const int64_t d = table.dim(1);
  Tensor out = Tensor::zeros(out_shape, DType::kF64);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == padding_idx) continue;
    for (int64_t j = 0; j < d; ++j)
      out.data<double>()[i * d + j] = t.data<double>()[ids[i] * d + j];
  }
  return out;
}

TEST(EmbeddingOp, LooksUpRows) {
  const std::vector<int64_t> ids = {3, 0, 3, 6, 1, 2};
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    Tensor table = random_tensor({7, 5}, dtype, 1);
    OpTest t("embedding");
    t.input("W", table).input("Ids", Tensor::from_vector<int64_t>({2, 3}, ids));
    t.check_output("Out", from_f64(gather_rows(table, ids, {2, 3, 5}, -1), dtype), 0, 0);

    OpTest padded("embedding");
    padded.input("W", table).input("Ids", Tensor::from_vector<int64_t>({6}, ids));
    padded.attr("padding_idx", int64_t{3});
    padded.check_output("Out", from_f64(gather_rows(table, ids, {6, 5}, 3), dtype), 0, 0);
  }
}

TEST(EmbeddingOp, Int32IdsAndLargeThreadedLookup) {
  Tensor table = random_tensor({50, 64}, DType::kF32, 2);
  std::vector<int64_t> ids(3000);
  std::vector<int32_t> ids32(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) ids32[i] = static_cast<int32_t>(ids[i] = (i * 7) % 50);
  OpTest t("embedding");
  t.input("W", table).input("Ids", Tensor::from_vector<int32_t>({3000}, ids32));
  t.check_output("Out", from_f64(gather_rows(table, ids, {3000, 64}, -1), DType::kF32), 0, 0);
}

TEST(EmbeddingOp, CacheLineRowsThreadedWithPadding) {
  // Rows of 64 bytes (16 floats, 8 doubles) take a fixed-size copy; 6000 ids use threads.
  std::vector<int64_t> ids(6000);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>((i * 13) % 97);
  for (DType dtype : kFloatTypes) {
    const int64_t width = dtype == DType::kF32 ? 16 : 8;
    Tensor table = random_tensor({97, width}, dtype, 6);
    OpTest t("embedding");
    t.input("W", table).input("Ids", Tensor::from_vector<int64_t>({3000, 2}, ids));
    t.attr("padding_idx", int64_t{5});
    t.check_output("Out", from_f64(gather_rows(table, ids, {3000, 2, width}, 5), dtype), 0, 0);
  }
}

TEST(EmbeddingOp, DenseGradientMatchesFiniteDifferences) {
  OpTest t("embedding");
  t.input("W", random_tensor({5, 3}, DType::kF64, 3))
      .input("Ids", Tensor::from_vector<int64_t>({2, 3}, {4, 1, 4, 0, 4, 2}));
  t.check_grad({"W"});
  t.attr("padding_idx", int64_t{4});  // row 4 gets no gradient
  t.check_grad({"W"});
}

// Runs embedding_grad directly and returns W@GRAD's variable.
struct GradRun {
  Scope scope;
  const Variable* grad = nullptr;
};
void run_embedding_grad(GradRun* run, bool sparse, const Tensor& ids, const Tensor& out_grad,
                        int64_t padding_idx, const Shape& table = {6, 2}) {
  Program prog;
  BlockBuilder b(&prog);
  b.data("w", out_grad.dtype(), table);
  b.data("ids", ids.dtype(), ids.shape());
  b.data("dout", out_grad.dtype(), out_grad.shape());
  b.op("embedding_grad", {{"W", {"w"}}, {"Ids", {"ids"}}, {"Out@GRAD", {"dout"}}},
       {{"W@GRAD", {"dw"}}}, {{"is_sparse", sparse}, {"padding_idx", padding_idx}});
  EXPECT_EQ(prog.global_block().find_local_var("dw")->kind,
            sparse ? VarKind::kSelectedRows : VarKind::kDenseTensor);
  feed(prog, &run->scope, "w", Tensor::zeros(table, out_grad.dtype()));
  feed(prog, &run->scope, "ids", ids);
  feed(prog, &run->scope, "dout", out_grad);
  Executor exe;
  exe.run(*exe.prepare(prog, {"dw"}), &run->scope);  // keep dw: it is a temporary
  run->grad = run->scope.find_var("dw");
}

TEST(EmbeddingOp, SparseGradientHoldsTheTouchedRowsOfTheDenseOne) {
  const Tensor ids = Tensor::from_vector<int64_t>({5}, {5, 2, 5, 0, 3});
  const Tensor dout = random_tensor({5, 2}, DType::kF64, 4);
  GradRun dense, sparse;
  run_embedding_grad(&dense, false, ids, dout, /*padding_idx=*/3);
  run_embedding_grad(&sparse, true, ids, dout, /*padding_idx=*/3);
  ASSERT_TRUE(sparse.grad->is_selected_rows());
  const SelectedRows& rows = *sparse.grad->selected_rows();
  EXPECT_EQ(rows.rows, (std::vector<int64_t>{0, 2, 5}));  // ascending, once each, no padding
  EXPECT_EQ(rows.height, 6);
  ASSERT_EQ(rows.value.shape(), (Shape{3, 2}));
  const double* d = dense.grad->tensor()->data<double>();
  for (size_t k = 0; k < rows.rows.size(); ++k) {
    for (int j = 0; j < 2; ++j)
      EXPECT_EQ(rows.value.data<double>()[k * 2 + j], d[rows.rows[k] * 2 + j]) << k << "," << j;
  }
  const double* g = dout.data<double>();
  EXPECT_EQ(d[5 * 2], g[0] + g[2 * 2]);  // id 5 twice: summed
  EXPECT_EQ(d[3 * 2], 0.0);              // the padding row
}

TEST(EmbeddingOp, LargeSparseGradientEqualsTheDenseOneExactly) {
  // 24,000 ids into 5,000 rows (most rows several times, in scattered order): grouped by
  // a radix sort and summed on several threads, each row in the order of its ids.
  constexpr int64_t kHeight = 5000, kIds = 24000, kPadding = 17;
  for (DType dtype : kFloatTypes) {
    for (DType id_type : {DType::kI64, DType::kI32}) {
      for (int64_t width : {int64_t{16}, int64_t{3}}) {
        std::vector<int64_t> id_values(kIds);
        for (int64_t i = 0; i < kIds; ++i) id_values[i] = (i * 7919 + (i % 7) * 131) % kHeight;
        const std::vector<int32_t> id32(id_values.begin(), id_values.end());
        const Tensor ids = id_type == DType::kI64
                               ? Tensor::from_vector<int64_t>({kIds / 8, 8}, id_values)
                               : Tensor::from_vector<int32_t>({kIds / 8, 8}, id32);
        const Tensor dout = random_tensor({kIds / 8, 8, width}, dtype, 11);
        GradRun dense, sparse;
        run_embedding_grad(&dense, false, ids, dout, kPadding, {kHeight, width});
        run_embedding_grad(&sparse, true, ids, dout, kPadding, {kHeight, width});
        const SelectedRows& rows = *sparse.grad->selected_rows();
        std::vector<int64_t> want_rows;
        for (int64_t id : id_values)
          if (id != kPadding) want_rows.push_back(id);
        std::sort(want_rows.begin(), want_rows.end());
        want_rows.erase(std::unique(want_rows.begin(), want_rows.end()), want_rows.end());
        ASSERT_EQ(rows.rows, want_rows);
        ASSERT_EQ(rows.value.shape(), (Shape{static_cast<int64_t>(want_rows.size()), width}));
        const Tensor d = to_f64(*dense.grad->tensor()), v = to_f64(rows.value);
        int64_t mismatches = 0;
        for (size_t k = 0; k < want_rows.size(); ++k) {
          for (int64_t j = 0; j < width; ++j) {
            mismatches +=
                v.data<double>()[k * width + j] != d.data<double>()[want_rows[k] * width + j];
          }
        }
        EXPECT_EQ(mismatches, 0) << dtype_name(dtype) << " ids " << dtype_name(id_type) << " width "
                                 << width;
      }
    }
  }
}

TEST(EmbeddingOp, DenseGradientInFloat32) {
  const Tensor ids = Tensor::from_vector<int64_t>({4}, {2, 0, 2, 1});
  const Tensor dout = random_tensor({4, 3}, DType::kF32, 5);
  const Tensor d = to_f64(dout);
  Tensor want = Tensor::zeros({3, 3}, DType::kF64);
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j)
      want.data<double>()[ids.data<int64_t>()[i] * 3 + j] += d.data<double>()[i * 3 + j];
  }
  OpTest t("embedding_grad");
  t.input("W", Tensor::zeros({3, 3}, DType::kF32))
      .input("Ids", ids)
      .input("Out@GRAD", dout)
      .output("W@GRAD");
  t.check_output("W@GRAD", from_f64(want, DType::kF32), 1e-6, 1e-6);
}

TEST(EmbeddingOp, Errors) {
  OpTest out_of_range("embedding");
  out_of_range.input("W", Tensor::zeros({4, 2}, DType::kF32))
      .input("Ids", Tensor::from_vector<int64_t>({3}, {0, 4, 1}));
  expect_error(out_of_range, {"id 4", "position 1", "4 rows"});

  OpTest negative("embedding");
  negative.input("W", Tensor::zeros({4, 2}, DType::kF32))
      .input("Ids", Tensor::from_vector<int64_t>({1}, {-1}));
  expect_error(negative, {"id -1"});

  OpTest float_ids("embedding");
  float_ids.input("W", Tensor::zeros({4, 2}, DType::kF32))
      .input("Ids", Tensor::zeros({3}, DType::kF32));
  expect_error(float_ids, {"Ids", "int64"});

  OpTest flat_table("embedding");
  flat_table.input("W", Tensor::zeros({8}, DType::kF32))
      .input("Ids", Tensor::from_vector<int64_t>({1}, {0}));
  expect_error(flat_table, {"[V, D]", "[8]"});

  OpTest bad_padding("embedding");
  bad_padding.input("W", Tensor::zeros({4, 2}, DType::kF32))
      .input("Ids", Tensor::from_vector<int64_t>({1}, {0}))
      .attr("padding_idx", int64_t{4});
  expect_error(bad_padding, {"padding_idx 4"});
}

// ---- training programs: sparse table updates equal dense ones ----

enum class TableUse { kOneLookup, kTwoLookups, kLookupAndDense };

// loss = sum((emb(ids1) - t1)^2) [+ sum(emb(ids2) * c2)] [+ sum(W * W)], trained for a
// few steps; returns the table afterwards.
Tensor train_table(bool sparse, TableUse use, const OptimizerConfig& config, int64_t padding_idx,
                   int steps) {
  Program main, startup;
  BlockBuilder b(&main);
  b.parameter("w", DType::kF32, {6, 3}, &startup, Initializer::uniform(-1, 1, 7));
  b.data("ids1", DType::kI64, {5});
  b.data("ids2", DType::kI64, {4});
  b.data("t1", DType::kF32, {5, 3});
  b.data("c2", DType::kF32, {4, 3});
  const AttrList attrs = {{"is_sparse", sparse}, {"padding_idx", padding_idx}};
  auto sum_all = [&](const std::string& x) { return b.apply("reduce_sum", {{"X", {x}}}); };
  std::string emb1 = b.apply("embedding", {{"W", {"w"}}, {"Ids", {"ids1"}}}, attrs);
  std::string d1 = b.apply("elementwise_sub", {{"X", {emb1}}, {"Y", {"t1"}}});
  std::string loss = sum_all(b.apply("elementwise_mul", {{"X", {d1}}, {"Y", {d1}}}));
  if (use == TableUse::kTwoLookups) {
    std::string emb2 = b.apply("embedding", {{"W", {"w"}}, {"Ids", {"ids2"}}}, attrs);
    std::string l2 = sum_all(b.apply("elementwise_mul", {{"X", {emb2}}, {"Y", {"c2"}}}));
    loss = b.apply("elementwise_add", {{"X", {loss}}, {"Y", {l2}}});
  }
  if (use == TableUse::kLookupAndDense) {
    std::string l2 = sum_all(b.apply("elementwise_mul", {{"X", {"w"}}, {"Y", {"w"}}}));
    loss = b.apply("elementwise_add", {{"X", {loss}}, {"Y", {l2}}});
  }
  auto param_grads = append_backward(main, loss);
  const VarDesc* grad = main.global_block().find_local_var(grad_name("w"));
  EXPECT_EQ(grad->kind, sparse && use != TableUse::kLookupAndDense ? VarKind::kSelectedRows
                                                                   : VarKind::kDenseTensor);
  append_optimizer(main, startup, param_grads, config);

  Executor exe;
  Scope scope;
  exe.run(startup, &scope);
  feed(main, &scope, "ids1", Tensor::from_vector<int64_t>({5}, {1, 4, 1, 0, 4}));
  feed(main, &scope, "ids2", Tensor::from_vector<int64_t>({4}, {4, 2, 2, 1}));
  feed(main, &scope, "t1", random_tensor({5, 3}, DType::kF32, 8));
  feed(main, &scope, "c2", random_tensor({4, 3}, DType::kF32, 9));
  auto step = exe.prepare(main, {});
  for (int s = 0; s < steps; ++s) exe.run(*step, &scope);
  return fetch(scope, "w").clone();
}

void expect_sparse_equals_dense(const OptimizerConfig& config, TableUse use, int64_t padding_idx,
                                double tolerance) {
  const Tensor w0 = train_table(false, use, config, padding_idx, 0);
  const Tensor dense = train_table(false, use, config, padding_idx, 3);
  const Tensor sparse = train_table(true, use, config, padding_idx, 3);
  const std::vector<float> d = dense.to_vector<float>(), s = sparse.to_vector<float>();
  const std::vector<float> start = w0.to_vector<float>();
  for (size_t i = 0; i < d.size(); ++i) {
    if (tolerance == 0) {
      EXPECT_EQ(s[i], d[i]) << config.type << " element " << i;
    } else {
      EXPECT_NEAR(s[i], d[i], tolerance) << config.type << " element " << i;
    }
  }
  // Row 5, which no lookup touches: sgd leaves it alone; adam (not lazy) moves it only
  // through its moments, which stay zero, so it stays as well.
  if (use != TableUse::kLookupAndDense && config.weight_decay == 0) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(s[5 * 3 + j], start[5 * 3 + j]) << config.type;
  }
  if (padding_idx >= 0 && use == TableUse::kOneLookup) {
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(s[padding_idx * 3 + j], start[padding_idx * 3 + j]) << "padding row moved";
  }
}

TEST(SparseEmbeddingTraining, OneLookupMatchesDenseExactly) {
  expect_sparse_equals_dense({"sgd", 0.1}, TableUse::kOneLookup, -1, 0);
  expect_sparse_equals_dense({"adam", 0.05}, TableUse::kOneLookup, -1, 0);
  expect_sparse_equals_dense({"sgd", 0.1}, TableUse::kOneLookup, /*padding_idx=*/4, 0);
  expect_sparse_equals_dense({"adam", 0.05}, TableUse::kOneLookup, /*padding_idx=*/4, 0);
}

TEST(SparseEmbeddingTraining, TwoLookupsAccumulateAsSelectedRows) {
  // sgd applies repeated rows one by one (p - a - b rather than p - (a + b)): equal up
  // to rounding; adam merges the rows first and matches exactly.
  expect_sparse_equals_dense({"sgd", 0.1}, TableUse::kTwoLookups, -1, 1e-6);
  expect_sparse_equals_dense({"adam", 0.05}, TableUse::kTwoLookups, -1, 0);
}

TEST(SparseEmbeddingTraining, LookupPlusDenseUseGivesADenseGradient) {
  expect_sparse_equals_dense({"sgd", 0.1}, TableUse::kLookupAndDense, -1, 1e-6);
  OptimizerConfig momentum{"momentum", 0.05};
  expect_sparse_equals_dense(momentum, TableUse::kLookupAndDense, -1, 1e-6);
}

TEST(SparseEmbeddingTraining, WeightDecayAndClipping) {
  // adamw decays every row (not lazy): still the dense result exactly.
  OptimizerConfig adamw{"adamw", 0.05};
  adamw.weight_decay = 0.1;
  expect_sparse_equals_dense(adamw, TableUse::kTwoLookups, -1, 0);
  // The L2 term makes the gradient dense (sum of selected rows and a dense tensor), so
  // momentum, which takes only dense gradients, applies.
  OptimizerConfig momentum{"momentum", 0.05};
  momentum.weight_decay = 0.1;
  expect_sparse_equals_dense(momentum, TableUse::kOneLookup, -1, 1e-6);
  // The norm of selected rows is that of their dense tensor (summed in another order).
  OptimizerConfig clipped{"sgd", 0.1};
  clipped.clip_global_norm = 0.5;
  expect_sparse_equals_dense(clipped, TableUse::kTwoLookups, -1, 1e-6);
}

TEST(SparseEmbeddingTraining, OptimizersWithoutSparseSupportAreRejected) {
  Program main, startup;
  BlockBuilder b(&main);
  b.parameter("w", DType::kF32, {6, 3}, &startup, Initializer::constant(0.5));
  b.data("ids", DType::kI64, {2});
  std::string emb = b.apply("embedding", {{"W", {"w"}}, {"Ids", {"ids"}}}, {{"is_sparse", true}});
  auto param_grads = append_backward(main, b.apply("reduce_sum", {{"X", {emb}}}));
  std::string message = testing::error_of([&] {
    append_optimizer(main, startup, param_grads, {"rmsprop", 0.1});
  });
  EXPECT_NE(message.find("selected_rows"), std::string::npos) << message;
  EXPECT_NE(message.find("rmsprop"), std::string::npos) << message;
}

// ---- sum over selected rows ----

TEST(SumOp, AddsSelectedRows) {
  Program prog;
  BlockBuilder b(&prog);
  for (const char* n : {"a", "b"})
    b.block().add_var(VarDesc(n, DType::kF32, Shape{4, 2}, VarKind::kSelectedRows));
  b.data("d", DType::kF32, {4, 2});
  b.op("sum", {{"X", {"a", "b"}}}, {{"Out", {"ab"}}});
  b.op("sum", {{"X", {"a", "d", "b"}}}, {{"Out", {"adb"}}});
  EXPECT_EQ(prog.global_block().find_local_var("ab")->kind, VarKind::kSelectedRows);
  EXPECT_EQ(prog.global_block().find_local_var("adb")->kind, VarKind::kDenseTensor);

  Scope scope;
  SelectedRows* a = scope.var("a")->mutable_selected_rows();
  *a = {{3, 1}, Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4}), 4};
  SelectedRows* bb = scope.var("b")->mutable_selected_rows();
  *bb = {{1}, Tensor::from_vector<float>({1, 2}, {10, 20}), 4};
  feed(prog, &scope, "d", Tensor::from_vector<float>({4, 2}, {1, 1, 1, 1, 1, 1, 1, 1}));
  Executor exe;
  exe.run(*exe.prepare(prog, {"ab", "adb"}), &scope);
  const SelectedRows* ab = scope.find_var("ab")->selected_rows();
  ASSERT_TRUE(ab);
  EXPECT_EQ(ab->rows, (std::vector<int64_t>{3, 1, 1}));
  EXPECT_EQ(ab->height, 4);
  EXPECT_EQ(ab->value.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 10, 20}));
  const Tensor* adb = scope.find_var("adb")->tensor();
  ASSERT_TRUE(adb);
  EXPECT_EQ(adb->to_vector<float>(), (std::vector<float>{1, 1, 14, 25, 1, 1, 2, 3}));
}

TEST(SumOp, RejectsSelectedRowsWithTensorArrays) {
  Program prog;
  BlockBuilder b(&prog);
  b.block().add_var(VarDesc("rows", DType::kF32, Shape{4, 2}, VarKind::kSelectedRows));
  b.block().add_var(VarDesc("arr", DType::kF32, Shape{4, 2}, VarKind::kTensorArray));
  std::string message = testing::error_of([&] {
    b.op("sum", {{"X", {"rows", "arr"}}}, {{"Out", {"out"}}});
  });
  EXPECT_NE(message.find("selected_rows"), std::string::npos) << message;
}

}  // namespace
}  // namespace skiff
