// Training programs compiled: N steps of the generated step function give the parameters
// the interpreter gives after N steps of the same program — identical in float64, within
// 1e-6 in float32 — for W1 (a while loop, trained through while_grad), an if/else
// (conditional_block_grad), W2 (MLP 784-512-512-10, batch 64, Adam), a CNN with momentum,
// an LSTM (and a GRU) language model (tensor arrays kept per step, global-norm clipping,
// SGD) and a W5-like sparse CTR model (selected-rows gradients applied by SGD, and summed
// and clipped before Adam).
#include "tests/codegen/training_check.h"
#include "tests/codegen/training_programs.h"
#include "tests/testing/op_test.h"

namespace skiff::testing {
namespace {

TEST(TrainingTest, W1WhileLoopSgdFloat64IsIdentical) {
  const TrainingModel t = w1_training_model(DType::kF64, 10);
  expect_same_training(t, {}, 0.0);
}

TEST(TrainingTest, W1WhileLoopSgdFloat32WithinTolerance) {
  const TrainingModel t = w1_training_model(DType::kF32, 10);
  expect_same_training(t, {}, 1e-6);
}

TEST(TrainingTest, IfElseEachBranchFloat64IsIdentical) {
  const TrainingModel t = if_else_training_model(DType::kF64);
  for (double offset : {1.0, -1.0})  // the true branch, then the false one
    expect_same_training(t, {{"x", wave({2, 3}, DType::kF64, 0.3, 0.2, offset)}}, 0.0);
}

TEST(TrainingTest, IfElseEachBranchFloat32WithinTolerance) {
  const TrainingModel t = if_else_training_model(DType::kF32);
  for (double offset : {1.0, -1.0})
    expect_same_training(t, {{"x", wave({2, 3}, DType::kF32, 0.3, 0.2, offset)}}, 1e-6);
}

TEST(TrainingTest, W2MlpAdamFloat64IsIdentical) {
  const TrainingModel t = mlp_training_model(DType::kF64, {784, 512, 512, 10}, {"adam", 1e-3});
  expect_same_training(
      t, {{"x", wave({64, 784}, DType::kF64, 0.5, 0.1, 0.5)}, {"label", labels(64, 10)}}, 0.0);
}

TEST(TrainingTest, W2MlpAdamFloat32WithinTolerance) {
  const TrainingModel t = mlp_training_model(DType::kF32, {784, 512, 512, 10}, {"adam", 1e-3});
  expect_same_training(
      t, {{"x", wave({64, 784}, DType::kF32, 0.5, 0.1, 0.5)}, {"label", labels(64, 10)}}, 1e-6);
}

TEST(TrainingTest, CnnMomentumFloat64IsIdentical) {
  OptimizerConfig momentum("momentum", 0.01);
  const TrainingModel t = cnn_training_model(DType::kF64, momentum);
  expect_same_training(
      t, {{"x", wave({4, 1, 8, 8}, DType::kF64, 0.5, 0.3, 0.5)}, {"label", labels(4, 3)}}, 0.0);
}

TEST(TrainingTest, CnnMomentumFloat32WithinTolerance) {
  OptimizerConfig momentum("momentum", 0.01);
  const TrainingModel t = cnn_training_model(DType::kF32, momentum);
  expect_same_training(
      t, {{"x", wave({4, 1, 8, 8}, DType::kF32, 0.5, 0.3, 0.5)}, {"label", labels(4, 3)}}, 1e-6);
}

TrainingModel lstm_lm(DType dtype) { return lstm_lm_training_model(dtype, 5, 3, 11, 6); }

std::map<std::string, Tensor> lstm_lm_feeds() {
  Tensor ids = Tensor::empty({5, 3}, DType::kI64), next = Tensor::empty({15, 1}, DType::kI64);
  for (int64_t t = 0; t < 15; ++t) {
    ids.data<int64_t>()[t] = (7 * t + 2) % 11;
    next.data<int64_t>()[t] = (7 * t + 9) % 11;
  }
  return {{"ids", ids}, {"labels", next}};
}

TEST(TrainingTest, LstmLanguageModelClippedSgdFloat64IsIdentical) {
  expect_same_training(lstm_lm(DType::kF64), lstm_lm_feeds(), 0.0);
}

TEST(TrainingTest, LstmLanguageModelClippedSgdFloat32WithinTolerance) {
  expect_same_training(lstm_lm(DType::kF32), lstm_lm_feeds(), 1e-6);
}

TEST(TrainingTest, GruLanguageModelClippedSgdFloat64IsIdentical) {
  expect_same_training(lstm_lm_training_model(DType::kF64, 5, 3, 11, 6, /*lstm=*/false),
                       lstm_lm_feeds(), 0.0);
}

std::map<std::string, Tensor> ctr_feeds(DType dtype) {
  Tensor clicks = labels(16, 2);
  Tensor click = Tensor::empty({16, 1}, DType::kF64);
  for (int64_t r = 0; r < 16; ++r) click.data<double>()[r] = double(clicks.data<int64_t>()[r]);
  return {{"ids", ctr_ids(16, 5, 40)},
          {"click", dtype == DType::kF64 ? click : from_f64(click, dtype)}};
}

TEST(TrainingTest, SparseCtrSgdFloat64IsIdentical) {
  const TrainingModel t = sparse_ctr_training_model(DType::kF64, 5, 40, 4, 1, {"sgd", 0.5});
  expect_same_training(t, ctr_feeds(DType::kF64), 0.0);
}

TEST(TrainingTest, SparseCtrSgdFloat32WithinTolerance) {
  const TrainingModel t = sparse_ctr_training_model(DType::kF32, 5, 40, 4, 1, {"sgd", 0.5});
  expect_same_training(t, ctr_feeds(DType::kF32), 1e-6);
}

TEST(TrainingTest, SparseCtrTwoLookupsClippedAdamFloat64IsIdentical) {
  OptimizerConfig adam("adam", 0.05);
  adam.clip_global_norm = 0.5;
  const TrainingModel t = sparse_ctr_training_model(DType::kF64, 5, 40, 4, 2, adam);
  expect_same_training(t, ctr_feeds(DType::kF64), 0.0);
}

TEST(TrainingTest, SparseCtrTwoLookupsClippedAdamFloat32WithinTolerance) {
  OptimizerConfig adam("adam", 0.05);
  adam.clip_global_norm = 0.5;
  const TrainingModel t = sparse_ctr_training_model(DType::kF32, 5, 40, 4, 2, adam);
  expect_same_training(t, ctr_feeds(DType::kF32), 1e-6);
}

}  // namespace
}  // namespace skiff::testing
