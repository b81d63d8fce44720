// accuracy: top-1 and top-k from scores (ties to the smaller class), from top-k
// indices, int32 labels, an empty batch, that it is not differentiable, and errors.
#include <gtest/gtest.h>

#include <vector>

#include "skiff/ops/registry.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;

OpTest accuracy_of_scores(const Tensor& scores, const Tensor& label, int64_t k) {
  OpTest t("accuracy");
  t.input("Out", scores).input("Label", label).attr("k", k);
  t.output("Accuracy").output("Correct").output("Total");
  return t;
}

void expect_counts(const OpTest& t, float accuracy, int32_t correct, int32_t total) {
  t.check_output("Accuracy", Tensor::from_vector<float>({1}, {accuracy}));
  t.check_output("Correct", Tensor::from_vector<int32_t>({1}, {correct}));
  t.check_output("Total", Tensor::from_vector<int32_t>({1}, {total}));
}

// Four samples over three classes; sample 2 ties classes 0 and 2.
const std::vector<double> kScores = {0.1, 0.7, 0.2,   // best 1, then 2
                                     0.5, 0.3, 0.2,   // best 0, then 1
                                     0.4, 0.2, 0.4,   // tie: 0 before 2
                                     0.0, 0.1, 0.9};  // best 2, then 1

TEST(AccuracyOp, TopOneAndTopKFromScores) {
  const Tensor label = Tensor::from_vector<int64_t>({4, 1}, {1, 1, 2, 2});
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    const Tensor scores = from_f64(Tensor::from_vector<double>({4, 3}, kScores), dtype);
    // Top 1: samples 0 and 3 (sample 2's tie goes to class 0).
    expect_counts(accuracy_of_scores(scores, label, 1), 0.5f, 2, 4);
    // Top 2: sample 1 (class 1 second) and sample 2 (class 2 second) join.
    expect_counts(accuracy_of_scores(scores, label, 2), 1.0f, 4, 4);
  }
  const Tensor labels32 = Tensor::from_vector<int32_t>({4}, {0, 0, 0, 0});
  const Tensor scores = Tensor::from_vector<double>({4, 3}, kScores);
  expect_counts(accuracy_of_scores(scores, labels32, 1), 0.5f, 2, 4);
}

TEST(AccuracyOp, FromTopKIndices) {
  OpTest t("accuracy");
  t.input("Indices", Tensor::from_vector<int64_t>({3, 2}, {4, 1, 0, 2, 3, 3}))
      .input("Label", Tensor::from_vector<int64_t>({3, 1}, {1, 1, 3}))
      .output("Accuracy")
      .output("Correct")
      .output("Total");
  expect_counts(t, 2.0f / 3.0f, 2, 3);
}

TEST(AccuracyOp, EmptyBatchIsZero) {
  expect_counts(
      accuracy_of_scores(Tensor::zeros({0, 5}, DType::kF32), Tensor::zeros({0, 1}, DType::kI64), 1),
      0.0f, 0, 0);
}

TEST(AccuracyOp, IsNotDifferentiable) {
  EXPECT_FALSE(OpRegistry::global().get("accuracy").differentiable());
}

TEST(AccuracyOp, Errors) {
  const Tensor scores = Tensor::from_vector<double>({4, 3}, kScores);
  expect_error(accuracy_of_scores(scores, Tensor::from_vector<int64_t>({4}, {0, 1, 3, 0}), 1),
               {"label 3", "sample 2"});
  expect_error(accuracy_of_scores(scores, Tensor::from_vector<int64_t>({3}, {0, 1, 2}), 1),
               {"Label", "[3]"});
  expect_error(accuracy_of_scores(scores, Tensor::from_vector<int64_t>({4}, {0, 1, 2, 0}), 0),
               {"k must be >= 1"});
  expect_error(accuracy_of_scores(scores, Tensor::from_vector<float>({4}, {0, 1, 2, 0}), 1),
               {"Label", "int64"});
  OpTest neither("accuracy");
  neither.input("Label", Tensor::from_vector<int64_t>({1}, {0})).output("Accuracy");
  expect_error(neither, {"needs Out", "or Indices"});
}

}  // namespace
}  // namespace skiff
