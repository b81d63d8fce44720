#include "skiff/runtime/executor.h"

#include <gtest/gtest.h>

#include <cmath>

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
