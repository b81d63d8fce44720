#include "skiff/runtime/executor.h"

#include <gtest/gtest.h>

#include <cmath>

#include "skiff/autodiff/backward.h"
#include "skiff/runtime/nan_inf_check.h"
#include "skiff/runtime/prepared_block.h"
#include "tests/testing/op_test.h"
#include "tests/testing/programs.h"

namespace skiff {
namespace {

using testing::add;
using testing::constant;
using testing::unary;

TEST(Executor, FeedRunFetch) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {-1, 2});
  std::string y = unary(b, "relu", add(b, "x", "x"));
  Scope scope;
  auto out =
      Executor().run(p, &scope, {{"x", Tensor::from_vector<float>({2, 2}, {1, -2, 3, -4})}}, {y});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{2, 0, 6, 0}));
}

TEST(Executor, PreparedBlockRunsManyTimes) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF64, {3});
  std::string y = unary(b, "exp", "x");
  Executor exe;
  auto prepared = exe.prepare(p, {y});
  Scope scope;
  for (double v : {0.0, 1.0, 2.0}) {
    feed(p, &scope, "x", Tensor::from_vector<double>({3}, {v, v, v}));
    exe.run(*prepared, &scope);
    EXPECT_DOUBLE_EQ(fetch(scope, y).to_vector<double>()[2], std::exp(v));
  }
}

TEST(Executor, TemporariesAreFreedAfterLastUse) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {4});
  std::string t = unary(b, "exp", "x");
  std::string y = unary(b, "tanh", t);
  Scope scope;
  Executor().run(p, &scope, {{"x", Tensor::zeros({4}, DType::kF32)}}, {y});
  EXPECT_TRUE(scope.find_var(t)->empty()) << "temporary " << t << " kept its buffer";
  EXPECT_TRUE(fetch(scope, y).initialized());
  EXPECT_TRUE(fetch(scope, "x").initialized()) << "a fed variable is not a temporary";
}

// `v = assign(t)` of a temporary t is folded into t's producer at prepare time: one
// instruction, the producer writing v, the same values.
TEST(Executor, AnAssignOfATemporaryIsFoldedIntoItsProducer) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {3});
  b.persistable("v", DType::kF32, {3});
  std::string t = unary(b, "exp", "x");
  b.assign(t, "v");
  Executor exe;
  auto prepared = exe.prepare(p, {"v"});
  ASSERT_EQ(prepared->instrs.size(), 1u);
  EXPECT_EQ(prepared->instrs[0]->op.first_output("Out"), "v");
  Scope scope;
  feed(p, &scope, "x", Tensor::from_vector<float>({3}, {0, 1, 2}));
  exe.run(*prepared, &scope);
  EXPECT_EQ(fetch(scope, "v").to_vector<float>(),
            (std::vector<float>{1, std::exp(1.0f), std::exp(2.0f)}));
  EXPECT_EQ(p.global_block().ops.size(), 2u) << "the program itself is left as it was";
}

// Where folding could be seen, the assign stays: the producer reads the target and its
// kernel may not write an input's buffer (softmax; exp may), the temporary is fetched or
// read by another op, or an op between the two touches the target.
TEST(Executor, AnAssignStaysWhereFoldingItCouldBeSeen) {
  auto instructions = [](bool reads_target, bool fetch_temp, bool other_reader, bool between) {
    Program p;
    BlockBuilder b(&p);
    b.data("x", DType::kF32, {3});
    b.persistable("v", DType::kF32, {3});
    std::string t = reads_target ? unary(b, "softmax", "v") : unary(b, "exp", "x");
    if (other_reader) unary(b, "tanh", t);
    if (between) unary(b, "relu", "v");
    b.assign(t, "v");
    std::vector<std::string> keep = {"v"};
    if (fetch_temp) keep.push_back(t);
    return Executor().prepare(p, keep)->instrs.size();
  };
  EXPECT_EQ(instructions(false, false, false, false), 1u);
  EXPECT_EQ(instructions(true, false, false, false), 2u);
  EXPECT_EQ(instructions(false, true, false, false), 2u);
  EXPECT_EQ(instructions(false, false, true, false), 3u);
  EXPECT_EQ(instructions(false, false, false, true), 3u);
}

// `v = assign(P(v))` folds into `v = P(v)` where P's kernel may write its input's buffer
// (to_static's `i += 1`, a scale): the same values, the old value read before it is written.
TEST(Executor, AnInPlaceUpdateOfTheTargetIsFolded) {
  Program p;
  BlockBuilder b(&p);
  b.persistable("v", DType::kF32, {3});
  std::string t = b.apply("scale", {{"X", {"v"}}}, {{"scale", 2.0}, {"bias", 1.0}});
  b.assign(t, "v");
  Executor exe;
  auto prepared = exe.prepare(p, {"v"});
  ASSERT_EQ(prepared->instrs.size(), 1u);
  EXPECT_EQ(prepared->instrs[0]->op.first_input("X"), "v");
  EXPECT_EQ(prepared->instrs[0]->op.first_output("Out"), "v");
  Scope scope;
  Tensor kept = Tensor::from_vector<float>({3}, {0, 1, 2});
  scope.var("v")->set(kept);
  exe.run(*prepared, &scope);
  EXPECT_EQ(fetch(scope, "v").to_vector<float>(), (std::vector<float>{1, 3, 5}));
  EXPECT_EQ(kept.to_vector<float>(), (std::vector<float>{0, 1, 2})) << "a shared value is kept";
  exe.run(*prepared, &scope);
  EXPECT_EQ(fetch(scope, "v").to_vector<float>(), (std::vector<float>{3, 7, 11}));
}

// `o = act(elementwise_<op>(x, y))` runs as one instruction (fuse_activation) when the sum
// is a float temporary nothing else reads: the same values, broadcast or not.
TEST(Executor, AnActivationIsFusedIntoTheElementwiseOpBeforeIt) {
  for (const Shape& y_shape : {Shape{2, 3}, Shape{3}}) {
    Program p;
    BlockBuilder b(&p);
    b.data("x", DType::kF32, {2, 3});
    b.data("y", DType::kF32, y_shape);
    std::string o = unary(b, "tanh", b.apply("elementwise_sub", {{"X", {"x"}}, {"Y", {"y"}}}));
    Executor exe;
    auto prepared = exe.prepare(p, {o});
    ASSERT_EQ(prepared->instrs.size(), 1u);
    const OpDesc& fused = prepared->instrs[0]->op;
    EXPECT_EQ(fused.type, "elementwise_sub");
    EXPECT_EQ(fused.attr<std::string>("fuse_activation"), "tanh");
    EXPECT_EQ(fused.first_output("Out"), o);
    Tensor x = testing::random_tensor({2, 3}, DType::kF32, 1);
    Tensor y = testing::random_tensor(y_shape, DType::kF32, 2);
    Scope scope;
    feed(p, &scope, "x", x);
    feed(p, &scope, "y", y);
    exe.run(*prepared, &scope);
    const std::vector<float> got = fetch(scope, o).to_vector<float>();
    for (int i = 0; i < 6; ++i) {
      const float want =
          std::tanh(x.data<float>()[i] - y.data<float>()[y.numel() == 6 ? i : i % 3]);
      EXPECT_NEAR(got[i], want, 1e-6) << i;
    }
    EXPECT_EQ(p.global_block().ops.size(), 2u) << "the program itself is left as it was";
  }
}

// Where fusing could be seen, the two ops stay: the sum is fetched or read by another op, an
// op runs between the two, the operands are bfloat16, or NaN/inf checks are on.
TEST(Executor, AnActivationStaysSeparateWhereFusingCouldBeSeen) {
  auto instructions = [](bool fetch_sum, bool other_reader, bool between, DType dtype) {
    Program p;
    BlockBuilder b(&p);
    b.data("x", dtype, {3});
    std::string sum = add(b, "x", "x");
    if (between) unary(b, "exp", "x");
    if (other_reader) unary(b, "exp", sum);
    std::string o = unary(b, "relu", sum);
    std::vector<std::string> keep = {o};
    if (fetch_sum) keep.push_back(sum);
    return Executor().prepare(p, keep)->instrs.size();
  };
  EXPECT_EQ(instructions(false, false, false, DType::kF32), 1u);
  EXPECT_EQ(instructions(false, false, false, DType::kF64), 1u);
  EXPECT_EQ(instructions(true, false, false, DType::kF32), 2u);
  EXPECT_EQ(instructions(false, true, false, DType::kF32), 3u);
  EXPECT_EQ(instructions(false, false, true, DType::kF32), 3u);
  EXPECT_EQ(instructions(false, false, false, DType::kBF16), 2u);
  set_check_nan_inf(true);
  const size_t checked = instructions(false, false, false, DType::kF32);
  set_check_nan_inf(false);
  EXPECT_EQ(checked, 2u);
}

// A training program's forward fuses too where the backward reads only the activation's
// output (sigmoid_grad reads Out, elementwise_mul_grad X and Y): its gradients are those of
// the program as written, run with NaN/inf checks on (nothing fused).
TEST(Executor, ATrainingProgramFusesWhatItsBackwardDoesNotRead) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF64, {4});
  Program startup;
  std::string w = b.parameter("w", DType::kF64, {4}, &startup);
  std::string s = unary(b, "sigmoid", b.apply("elementwise_mul", {{"X", {"x"}}, {"Y", {w}}}));
  std::string loss = b.apply("reduce_mean", {{"X", {s}}});
  auto grads = append_backward(p, loss);
  ASSERT_EQ(grads.size(), 1u);
  const std::string w_grad = grads[0].second;
  Tensor x = Tensor::from_vector<double>({4}, {-2, -0.5, 1, 3});
  auto gradient = [&](bool checked) {
    set_check_nan_inf(checked);
    Executor exe;
    auto prepared = exe.prepare(p, {loss, w_grad});
    set_check_nan_inf(false);
    bool fused = false;
    for (const auto& instr : prepared->instrs)
      fused |= instr->op.attr_or<std::string>("fuse_activation", "") == "sigmoid";
    EXPECT_EQ(fused, !checked);
    Scope scope;
    scope.var(w)->set(Tensor::from_vector<double>({4}, {0.5, 0.5, 0.5, 0.5}));
    feed(p, &scope, "x", x);
    exe.run(*prepared, &scope);
    return fetch(scope, w_grad).to_vector<double>();
  };
  const std::vector<double> fused = gradient(false), plain = gradient(true);
  for (int i = 0; i < 4; ++i) {
    const double xi = x.data<double>()[i], si = 1 / (1 + std::exp(-0.5 * xi));
    EXPECT_NEAR(fused[i], si * (1 - si) * xi / 4, 1e-12) << i;
    EXPECT_EQ(fused[i], plain[i]) << i;
  }
}

TEST(Executor, MissingFeedNamesTheVariableAndOp) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {2});
  unary(b, "tanh", "x");
  Scope scope;
  try {
    Executor().run(p, &scope);
    FAIL();
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("tanh"), std::string::npos) << m;
    EXPECT_NE(m.find("'x'"), std::string::npos) << m;
    EXPECT_NE(m.find("executor_test.cc"), std::string::npos) << m;
  }
}

TEST(Executor, WrongFeedShapeOrDtypeIsRejected) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {-1, 3});
  Scope scope;
  EXPECT_THROW(feed(p, &scope, "x", Tensor::zeros({2, 4}, DType::kF32)), Error);
  EXPECT_THROW(feed(p, &scope, "x", Tensor::zeros({2, 3}, DType::kF64)), Error);
  EXPECT_THROW(feed(p, &scope, "nope", Tensor::zeros({2, 3}, DType::kF32)), Error);
  feed(p, &scope, "x", Tensor::zeros({5, 3}, DType::kF32));
}

TEST(Executor, KernelErrorNamesOpShapesAndSourceLine) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {-1, 3});
  b.data("y", DType::kF32, {-1, 3});
  add(b, "x", "y");
  Scope scope;
  try {
    Executor().run(
        p, &scope,
        {{"x", Tensor::zeros({2, 3}, DType::kF32)}, {"y", Tensor::zeros({4, 3}, DType::kF32)}});
    FAIL();
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("elementwise_add"), std::string::npos) << m;
    EXPECT_NE(m.find("[2, 3]"), std::string::npos) << m;
    EXPECT_NE(m.find("[4, 3]"), std::string::npos) << m;
    EXPECT_NE(m.find("executor_test.cc:"), std::string::npos) << m;
  }
}

TEST(Executor, UnknownOpIsAnError) {
  Program p;
  OpDesc& op = p.global_block().append_op("no_such_op");
  op.set_output("Out", {"y"});
  Scope scope;
  EXPECT_THROW(Executor().run(p, &scope), Error);
}

TEST(Scope, ChildSeesParentVariables) {
  Scope root;
  root.var("a")->set(Tensor::scalar<float>(1));
  Scope& child = root.new_child();
  EXPECT_EQ(child.find_var("a"), root.find_var("a"));
  child.var("a");
  EXPECT_NE(child.find_var("a"), root.find_var("a"));
  EXPECT_EQ(root.find_var("b"), nullptr);
}

}  // namespace
}  // namespace skiff
