// Forward semantics of while and if/else in the interpreter.
#include <gtest/gtest.h>

#include <cmath>

#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"
#include "tests/testing/programs.h"

namespace skiff {
namespace {

using testing::add;
using testing::constant;
using testing::less_than;
using testing::matmul;
using testing::unary;

TEST(While, SumsACounter) {
  Program p;
  BlockBuilder b(&p);
  std::string i = constant(b, 0), n = constant(b, 10), total = constant(b, 0);
  std::string cond = less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    body.assign(add(body, total, i), total);
    testing::step_counter(body, i, n, cond);
  });
  Scope scope;
  auto out = Executor().run(p, &scope, {}, {total, i});
  EXPECT_EQ(out[0].item<int64_t>(), 45);
  EXPECT_EQ(out[1].item<int64_t>(), 10);
}

// The body's `increment` + `less_than` tail runs natively on integer scalars
// (runtime/control_flow.cc, CountedTail) and as ops otherwise: the same values either way.
TEST(While, CountedLoopsOfEveryCounterKind) {
  for (const char* dtype : {"int64", "int32", "float32", "float64"}) {
    for (double step : {1.0, 3.0}) {
      for (int64_t bound : {0, 1, 10, 11}) {
        SCOPED_TRACE(std::string(dtype) + " step " + std::to_string(step) + " bound " +
                     std::to_string(bound));
        Program p;
        BlockBuilder b(&p);
        std::string i = constant(b, 0, dtype), n = constant(b, bound, dtype);
        std::string total = constant(b, 0, dtype), steps = constant(b, 0, dtype);
        std::string cond = less_than(b, i, n);
        b.while_loop(cond, [&](BlockBuilder& body) {
          body.assign(add(body, total, i), total);
          body.op("increment", {{"X", {steps}}}, {{"Out", {steps}}}, {{"step", 1.0}});
          body.op("increment", {{"X", {i}}}, {{"Out", {i}}}, {{"step", step}});
          body.op("less_than", {{"X", {i}}, {"Y", {n}}}, {{"Out", {cond}}});
        });
        int64_t want_total = 0, want_i = 0, want_steps = 0;
        for (; want_i < bound; want_i += static_cast<int64_t>(step), ++want_steps)
          want_total += want_i;
        Executor exe;
        auto prepared = exe.prepare(p, {total, i, steps, cond});
        Scope scope;
        for (int run = 0; run < 2; ++run) {
          exe.run(*prepared, &scope);
          EXPECT_EQ(fetch(scope, total).item<int64_t>(), want_total);
          EXPECT_EQ(fetch(scope, i).item<int64_t>(), want_i);
          EXPECT_EQ(fetch(scope, steps).item<int64_t>(), want_steps);
          EXPECT_FALSE(fetch(scope, cond).item<bool>());
          EXPECT_EQ(fetch(scope, i).dtype(), dtype_from_name(dtype));
        }
      }
    }
  }
}

// to_static writes `i += step` as `t = scale(i, bias=step); i = assign(t)` and the condition
// through a temporary: the assigns fold away and the tail runs as a counted loop's.
TEST(While, ToStaticCounterUpdatesGiveTheSameValues) {
  for (const char* dtype : {"int64", "int32", "float32"}) {
    SCOPED_TRACE(dtype);
    Program p;
    BlockBuilder b(&p);
    std::string i = constant(b, 1, dtype), n = constant(b, 20, dtype);
    std::string total = constant(b, 0, dtype);
    std::string cond = less_than(b, i, n);
    b.while_loop(cond, [&](BlockBuilder& body) {
      body.assign(add(body, total, i), total);
      body.assign(body.apply("scale", {{"X", {i}}}, {{"scale", 1.0}, {"bias", 3.0}}), i);
      body.assign(less_than(body, i, n), cond);
    });
    Scope scope;
    auto out = Executor().run(p, &scope, {}, {total, i});
    EXPECT_EQ(out[0].item<int64_t>(), 1 + 4 + 7 + 10 + 13 + 16 + 19);
    EXPECT_EQ(out[1].item<int64_t>(), 22);
  }
}

// A counter whose value another tensor shares (a fed tensor the caller keeps) is copied
// before it is written: the caller's tensor keeps its value.
TEST(While, CountedLoopLeavesASharedCounterValueIntact) {
  Program p;
  BlockBuilder b(&p);
  b.data("i", DType::kI64, {1});
  std::string n = constant(b, 7);
  std::string cond = less_than(b, "i", n);
  b.while_loop(cond, [&](BlockBuilder& body) { testing::step_counter(body, "i", n, cond); });
  Tensor fed = Tensor::from_vector<int64_t>({1}, {2});
  Scope scope;
  auto out = Executor().run(p, &scope, {{"i", fed}}, {"i"});
  EXPECT_EQ(out[0].item<int64_t>(), 7);
  EXPECT_EQ(fed.item<int64_t>(), 2);
}

// A bound of another shape than the counter's ([] against [1]) is left to the ops, whose
// broadcast sets the condition's shape.
TEST(While, CountedLoopWithABoundOfAnotherShapeRunsTheOps) {
  Program p;
  BlockBuilder b(&p);
  std::string i = constant(b, 0);
  std::string n =
      b.apply("fill_constant", {},
              {{"shape", std::vector<int64_t>{}}, {"value", 5.0}, {"dtype", std::string("int64")}});
  std::string total = constant(b, 0);
  std::string cond = less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    body.assign(add(body, total, i), total);
    testing::step_counter(body, i, n, cond);
  });
  Scope scope;
  auto out = Executor().run(p, &scope, {}, {total, i, cond});
  EXPECT_EQ(out[0].item<int64_t>(), 10);
  EXPECT_EQ(out[1].item<int64_t>(), 5);
  EXPECT_EQ(out[2].shape(), Shape({1}));
}

TEST(While, RnnMatchesHandLoopAndReruns) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {1, 4});
  b.data("W", DType::kF32, {4, 4});
  b.data("h0", DType::kF32, {1, 4});
  std::string h = unary(b, "assign", "h0");
  std::string i = constant(b, 0), n = constant(b, 50);
  std::string cond = less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    body.assign(unary(body, "tanh", add(body, matmul(body, h, "W"), "x")), h);
    testing::step_counter(body, i, n, cond);
  });
  Tensor x = testing::random_tensor({1, 4}, DType::kF32, 1);
  Tensor w = testing::random_tensor({4, 4}, DType::kF32, 2);
  Tensor h0 = testing::random_tensor({1, 4}, DType::kF32, 3);
  std::vector<double> ref(h0.data<float>(), h0.data<float>() + 4);
  for (int s = 0; s < 50; ++s) {
    std::vector<double> next(4);
    for (int c = 0; c < 4; ++c) {
      double acc = x.data<float>()[c];
      for (int k = 0; k < 4; ++k) acc += ref[k] * w.data<float>()[k * 4 + c];
      next[c] = std::tanh(acc);
    }
    ref = next;
  }
  Executor exe;
  auto prepared = exe.prepare(p, {h});
  Scope scope;
  for (int run = 0; run < 2; ++run) {
    feed(p, &scope, "x", x);
    feed(p, &scope, "W", w);
    feed(p, &scope, "h0", h0);
    exe.run(*prepared, &scope);
    std::vector<float> got = fetch(scope, h).to_vector<float>();
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(got[c], ref[c], 1e-5) << "run " << run;
  }
}

TEST(IfElse, TakesTheRightBranch) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF64, {2});
  b.data("flag", DType::kBool, {1});
  auto outs = b.if_else(
      "flag", [&](BlockBuilder& t) { return std::vector<std::string>{unary(t, "exp", "x")}; },
      [&](BlockBuilder& f) { return std::vector<std::string>{unary(f, "tanh", "x")}; });
  Tensor x = Tensor::from_vector<double>({2}, {0.5, -1.0});
  for (bool flag : {true, false}) {
    Scope scope;
    auto out = Executor().run(
        p, &scope, {{"x", x}, {"flag", Tensor::from_vector<bool>({1}, {flag})}}, {outs[0]});
    auto v = out[0].to_vector<double>();
    EXPECT_DOUBLE_EQ(v[0], flag ? std::exp(0.5) : std::tanh(0.5));
    EXPECT_DOUBLE_EQ(v[1], flag ? std::exp(-1.0) : std::tanh(-1.0));
  }
}

TEST(While, ConditionMustBeUpdatedByTheBody) {
  Program p;
  BlockBuilder b(&p);
  std::string i = constant(b, 0), n = constant(b, 10);
  std::string cond = less_than(b, i, n);
  EXPECT_THROW(b.while_loop(cond, [&](BlockBuilder& body) { unary(body, "assign", i); }), Error);
}

TEST(While, ErrorInsideTheBodyNamesTheInnerOp) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {-1, 3});
  b.data("y", DType::kF32, {-1, 3});
  std::string i = constant(b, 0), n = constant(b, 3);
  std::string cond = less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    add(body, "x", "y");
    testing::step_counter(body, i, n, cond);
  });
  Scope scope;
  try {
    Executor().run(
        p, &scope,
        {{"x", Tensor::zeros({2, 3}, DType::kF32)}, {"y", Tensor::zeros({5, 3}, DType::kF32)}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("elementwise_add"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace skiff
