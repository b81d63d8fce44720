// Training programs compiled: N steps of the generated step function give the parameters
// the interpreter gives after N steps of the same program — identical in float64, within
// 1e-6 in float32 — for W1 (a while loop, trained through while_grad), an if/else
// (conditional_block_grad), W2 (MLP 784-512-512-10, batch 64, Adam), a CNN with momentum,
// an LSTM (and a GRU) language model (tensor arrays kept per step, global-norm clipping,
// SGD) and a W5-like sparse CTR model (selected-rows gradients applied by SGD, and summed
// and clipped before Adam).
#include "tests/codegen/training_programs.h"
#include "tests/testing/op_test.h"

namespace skiff::testing {
namespace {

constexpr int kSteps = 4;

// Trains `t` for kSteps steps in the interpreter and through the compiled library, on the
// same batch each step, and compares every persistable variable afterwards.
void expect_same_training(const TrainingModel& t, const std::map<std::string, Tensor>& feeds,
                          double tol) {
  // The interpreter.
  Scope scope;
  for (const auto& [name, value] : t.model.params) scope.var(name)->set(value.clone());
  Executor exe;
  auto prepared = exe.prepare(t.model.program, {t.loss});
  std::vector<double> losses;
  for (int s = 0; s < kSteps; ++s) {
    for (const auto& [name, value] : feeds) feed(t.model.program, &scope, name, value);
    exe.run(*prepared, &scope);
    losses.push_back(fetch(scope, t.loss).item<double>());
  }

  // The compiled step.
  const std::string dir = scratch_dir(dtype_name(t.model.params[0].second.dtype()));
  codegen::CompileOptions o;
  o.out_dir = dir + "/out";
  o.shared_library = true;
  o.jobs = 2;
  const codegen::CompiledModel c = codegen::compile_model_file(save_model(t.model, dir), o);
  std::vector<skiff_tensor> inputs;
  for (const std::string& name : c.generated.inputs) inputs.push_back(c_tensor(feeds.at(name)));
  ASSERT_EQ(inputs.size(), feeds.size());
  ModelLibrary lib(c.library);
  skiff_model* model = lib.create(nullptr);
  ASSERT_TRUE(model) << lib.last_error();
  for (int s = 0; s < kSteps; ++s) {
    skiff_tensor loss;
    ASSERT_EQ(lib.run(model, inputs.data(), &loss), 0) << lib.last_error();
    EXPECT_NEAR(from_c_tensor(loss).item<double>(), losses[s], tol * (1 + std::fabs(losses[s])))
        << "step " << s;
  }
  for (const auto& [name, initial] : t.model.params) {
    skiff_tensor value;
    ASSERT_EQ(lib.variable(model, name.c_str(), &value), 0) << lib.last_error();
    const Tensor got = from_c_tensor(value);
    const Tensor& want = *scope.find_var(name)->tensor();
    std::string why;
    EXPECT_TRUE(all_close(got, want, tol, tol, &why)) << name << ": " << why;
  }
  // The parameters did train.
  const std::string& trained = t.trainable[0];
  skiff_tensor w;
  ASSERT_EQ(lib.variable(model, trained.c_str(), &w), 0);
  for (const auto& [name, initial] : t.model.params) {
    std::string unused;
    if (name == trained) {
      EXPECT_FALSE(all_close(from_c_tensor(w), initial, 0, 0, &unused));
    }
  }
  lib.destroy(model);
}

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
