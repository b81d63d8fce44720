// Gradients of whole programs — straight-line, with accumulation, through while
// loops (with tensor arrays and nesting) and if/else — against finite differences
// in float64 to 1e-6.
#include "skiff/autodiff/backward.h"

#include <gtest/gtest.h>

#include <cmath>

#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"
#include "tests/testing/program_grad_check.h"
#include "tests/testing/programs.h"

namespace skiff {
namespace {

using testing::add;
using testing::check_program_grad;
using testing::constant;
using testing::matmul;
using testing::mul;
using testing::random_tensor;
using testing::unary;

constexpr DType kF64 = DType::kF64;

TEST(Backward, StraightLine) {
  Program p;
  BlockBuilder b(&p);
  b.persistable("W", kF64, {3, 4});
  b.persistable("bias", kF64, {4});
  b.data("x", kF64, {2, 3});
  std::string y = unary(b, "tanh", add(b, matmul(b, "x", "W"), "bias"));
  std::string loss = b.apply("reduce_sum", {{"X", {y}}});
  check_program_grad(p, loss,
                     {{"W", random_tensor({3, 4}, kF64, 1)}, {"bias", random_tensor({4}, kF64, 2)}},
                     {{"x", random_tensor({2, 3}, kF64, 3)}});
}

TEST(Backward, VariableUsedTwiceAccumulates) {
  Program p;
  BlockBuilder b(&p);
  b.persistable("w", kF64, {5});
  std::string y = mul(b, "w", "w");
  std::string z = add(b, y, mul(b, y, "w"));  // w^2 + w^3
  std::string loss = b.apply("reduce_sum", {{"X", {add(b, z, unary(b, "exp", "w"))}}});
  check_program_grad(p, loss, {{"w", random_tensor({5}, kF64, 4)}});
}

TEST(Backward, UnusedParameterGetsNoGradientAndPrunes) {
  Program p;
  BlockBuilder b(&p);
  b.persistable("w", kF64, {2});
  b.persistable("unused", kF64, {2});
  unary(b, "exp", "unused");  // does not reach the loss
  std::string loss = b.apply("reduce_sum", {{"X", {unary(b, "tanh", "w")}}});
  auto grads = append_backward(p, loss);
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_EQ(grads[0].first, "w");
  for (const OpDesc& op : p.global_block().ops) EXPECT_NE(op.type, "exp_grad");
}

TEST(Backward, NonDifferentiableOpOnThePathIsAnError) {
  Program p;
  BlockBuilder b(&p);
  b.persistable("w", kF64, {2});
  std::string c = b.apply("cast", {{"X", {"w"}}}, {{"out_dtype", std::string("int64")}});
  std::string back = b.apply("cast", {{"X", {c}}}, {{"out_dtype", std::string("float64")}});
  std::string loss = b.apply("reduce_sum", {{"X", {back}}});
  // int64 values carry no gradient: w simply gets none.
  EXPECT_TRUE(append_backward(p, loss).empty());
}

// h = tanh(h @ W + x), `steps` times, inside a while op.
Program rnn_program(int steps, std::string* loss) {
  Program p;
  BlockBuilder b(&p);
  b.persistable("W", kF64, {3, 3});
  b.persistable("x", kF64, {1, 3});
  b.persistable("h0", kF64, {1, 3});
  std::string h = unary(b, "assign", "h0");
  std::string i = constant(b, 0), n = constant(b, steps);
  std::string cond = testing::less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    std::string next = unary(body, "tanh", add(body, matmul(body, h, "W"), "x"));
    body.assign(next, h);
    testing::step_counter(body, i, n, cond);
  });
  *loss = b.apply("reduce_sum", {{"X", {mul(b, h, h)}}});
  return p;
}

TEST(Backward, WhileLoopRnn) {
  std::string loss;
  Program p = rnn_program(4, &loss);
  check_program_grad(p, loss,
                     {{"W", random_tensor({3, 3}, kF64, 5)},
                      {"x", random_tensor({1, 3}, kF64, 6)},
                      {"h0", random_tensor({1, 3}, kF64, 7)}});
}

TEST(Backward, WhileLoopZeroSteps) {
  std::string loss;
  Program p = rnn_program(0, &loss);
  check_program_grad(p, loss,
                     {{"W", random_tensor({3, 3}, kF64, 5)},
                      {"x", random_tensor({1, 3}, kF64, 6)},
                      {"h0", random_tensor({1, 3}, kF64, 7)}});
}

TEST(Backward, WhileLoopOverTensorArrays) {
  // xs = [x0, x1, x2]; for t: h = tanh(h @ W + xs[t]); ys[t] = h; loss = sum(ys[1]) + sum(h*h)
  Program p;
  BlockBuilder b(&p);
  b.persistable("W", kF64, {2, 2});
  std::string xs = b.unique_name("xs");
  for (int t = 0; t < 3; ++t) {
    std::string xt = b.persistable("x" + std::to_string(t), kF64, {1, 2});
    b.op("write_to_array", {{"X", {xt}}, {"I", {constant(b, t)}}}, {{"Out", {xs}}});
  }
  std::string h = b.apply(
      "fill_constant", {},
      {{"shape", std::vector<int64_t>{1, 2}}, {"value", 0.5}, {"dtype", std::string("float64")}});
  std::string ys = b.unique_name("ys");
  b.block().add_var(VarDesc(ys, kF64, {1, 2}, VarKind::kTensorArray));
  std::string i = constant(b, 0), n = constant(b, 3);
  std::string cond = testing::less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    std::string xt = body.apply("read_from_array", {{"X", {xs}}, {"I", {i}}});
    std::string next = unary(body, "tanh", add(body, matmul(body, h, "W"), xt));
    body.op("write_to_array", {{"X", {next}}, {"I", {i}}}, {{"Out", {ys}}});
    body.assign(next, h);
    testing::step_counter(body, i, n, cond);
  });
  std::string y1 = b.apply("read_from_array", {{"X", {ys}}, {"I", {constant(b, 1)}}});
  std::string loss = b.apply("reduce_sum", {{"X", {add(b, y1, mul(b, h, h))}}});
  check_program_grad(p, loss,
                     {{"W", random_tensor({2, 2}, kF64, 8)},
                      {"x0", random_tensor({1, 2}, kF64, 9)},
                      {"x1", random_tensor({1, 2}, kF64, 10)},
                      {"x2", random_tensor({1, 2}, kF64, 11)}});
}

// z = z0; for i < n: z = tanh(x @ W)   (the loop writes z without reading it); loss =
// sum(z * z): with no step z keeps z0's value, whose gradient then flows to z0.
TEST(Backward, WhileLoopWritesAVariableItDoesNotRead) {
  for (int steps : {2, 0}) {
    Program p;
    BlockBuilder b(&p);
    b.persistable("W", kF64, {2, 2});
    b.persistable("x", kF64, {1, 2});
    b.persistable("z0", kF64, {1, 2});
    std::string z = unary(b, "assign", "z0");
    std::string i = constant(b, 0), n = constant(b, steps);
    std::string cond = testing::less_than(b, i, n);
    b.while_loop(cond, [&](BlockBuilder& body) {
      body.assign(unary(body, "tanh", matmul(body, "x", "W")), z);
      testing::step_counter(body, i, n, cond);
    });
    std::string loss = b.apply("reduce_sum", {{"X", {mul(b, z, z)}}});
    check_program_grad(p, loss,
                       {{"W", random_tensor({2, 2}, kF64, 30)},
                        {"x", random_tensor({1, 2}, kF64, 31)},
                        {"z0", random_tensor({1, 2}, kF64, 32)}});
  }
}

TEST(Backward, NestedWhileLoops) {
  Program p;
  BlockBuilder b(&p);
  b.persistable("W", kF64, {2, 2});
  b.persistable("h0", kF64, {1, 2});
  std::string h = unary(b, "assign", "h0");
  std::string i = constant(b, 0), n = constant(b, 2);
  std::string cond = testing::less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& outer) {
    std::string j = constant(outer, 0), m = constant(outer, 3);
    std::string inner_cond = testing::less_than(outer, j, m);
    outer.while_loop(inner_cond, [&](BlockBuilder& inner) {
      inner.assign(unary(inner, "tanh", matmul(inner, h, "W")), h);
      testing::step_counter(inner, j, m, inner_cond);
    });
    outer.assign(mul(outer, h, "h0"), h);
    testing::step_counter(outer, i, n, cond);
  });
  std::string loss = b.apply("reduce_sum", {{"X", {h}}});
  check_program_grad(
      p, loss, {{"W", random_tensor({2, 2}, kF64, 12)}, {"h0", random_tensor({1, 2}, kF64, 13)}});
}

// y = (sum(x) > 0) ? x @ W : tanh(x) * W[0]
Program branch_program(std::string* loss) {
  Program p;
  BlockBuilder b(&p);
  b.persistable("W", kF64, {2, 2});
  b.persistable("x", kF64, {1, 2});
  std::string zero = constant(b, 0.0, "float64");
  std::string pred =
      b.apply("greater_than", {{"X", {b.apply("reduce_sum", {{"X", {"x"}}})}}, {"Y", {zero}}});
  auto outs = b.if_else(
      pred, [&](BlockBuilder& t) { return std::vector<std::string>{matmul(t, "x", "W")}; },
      [&](BlockBuilder& f) {
        return std::vector<std::string>{mul(f, unary(f, "tanh", "x"), "x")};
      });
  *loss = b.apply("reduce_sum", {{"X", {mul(b, outs[0], outs[0])}}});
  return p;
}

TEST(Backward, IfElseBothBranches) {
  std::string loss;
  Program p = branch_program(&loss);
  Tensor w = random_tensor({2, 2}, kF64, 14);
  check_program_grad(p, loss, {{"W", w}, {"x", Tensor::from_vector<double>({1, 2}, {0.7, 0.2})}});
  check_program_grad(p, loss, {{"W", w}, {"x", Tensor::from_vector<double>({1, 2}, {-0.7, 0.2})}});
}

TEST(Backward, IfElseInsideWhile) {
  // for i in 0..3: h = (i < 2) ? tanh(h @ W) : h * h
  Program p;
  BlockBuilder b(&p);
  b.persistable("W", kF64, {2, 2});
  b.persistable("h0", kF64, {1, 2});
  std::string h = unary(b, "assign", "h0");
  std::string i = constant(b, 0), n = constant(b, 4), two = constant(b, 2);
  std::string cond = testing::less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    std::string early = testing::less_than(body, i, two);
    auto outs = body.if_else(
        early,
        [&](BlockBuilder& t) {
          return std::vector<std::string>{unary(t, "tanh", matmul(t, h, "W"))};
        },
        [&](BlockBuilder& f) { return std::vector<std::string>{mul(f, h, h)}; });
    body.assign(outs[0], h);
    testing::step_counter(body, i, n, cond);
  });
  std::string loss = b.apply("reduce_sum", {{"X", {h}}});
  check_program_grad(
      p, loss, {{"W", random_tensor({2, 2}, kF64, 15)}, {"h0", random_tensor({1, 2}, kF64, 16)}});
}

TEST(Backward, LoopVariableReadAfterOverwriteInTheSameStep) {
  // h = tanh(h @ W); h = tanh(h) * x: the second op reads the overwritten h.
  Program p;
  BlockBuilder b(&p);
  b.persistable("W", kF64, {2, 2});
  b.persistable("x", kF64, {1, 2});
  std::string h = b.apply(
      "fill_constant", {},
      {{"shape", std::vector<int64_t>{1, 2}}, {"value", 0.5}, {"dtype", std::string("float64")}});
  std::string i = constant(b, 0), n = constant(b, 3);
  std::string cond = testing::less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    body.assign(unary(body, "tanh", matmul(body, h, "W")), h);
    body.assign(mul(body, unary(body, "tanh", h), "x"), h);
    testing::step_counter(body, i, n, cond);
  });
  std::string loss = b.apply("reduce_sum", {{"X", {mul(b, h, h)}}});
  check_program_grad(
      p, loss, {{"W", random_tensor({2, 2}, kF64, 17)}, {"x", random_tensor({1, 2}, kF64, 18)}});
}

TEST(Backward, OverwrittenVariableInBlockZero) {
  // h = x * w; h = tanh(h) (in place); h = h * w: every value of h feeds a gradient.
  Program p;
  BlockBuilder b(&p);
  b.persistable("w", kF64, {3});
  b.data("x", kF64, {3});
  std::string h = mul(b, "x", "w");
  b.op("tanh", {{"X", {h}}}, {{"Out", {h}}});
  b.op("elementwise_mul", {{"X", {h}}, {"Y", {"w"}}}, {{"Out", {h}}});
  std::string loss = b.apply("reduce_sum", {{"X", {mul(b, h, h)}}});
  check_program_grad(p, loss, {{"w", random_tensor({3}, kF64, 19)}},
                     {{"x", random_tensor({3}, kF64, 20)}});
  // The fetched value is still the last one.
  Program q = p;
  append_backward(q, loss);
  Scope scope;
  scope.var("w")->set(Tensor::from_vector<double>({3}, {1, 2, 3}));
  auto out = Executor().run(q, &scope, {{"x", Tensor::from_vector<double>({3}, {1, 1, 1})}}, {h});
  EXPECT_DOUBLE_EQ(out[0].to_vector<double>()[1], std::tanh(2.0) * 2.0);
}

TEST(Backward, UnknownTargetIsAnError) {
  Program p;
  EXPECT_THROW(append_backward(p, "nope"), Error);
}

}  // namespace
}  // namespace skiff
