// Training programs with control flow nested in control flow, compiled: kept loops and
// branches inside kept bodies keep their frames in the outer step's frame, and the grad
// blocks replay them from there. N steps of the compiled step give the interpreter's losses
// and parameters — identical in float64, within 1e-6 in float32 — for an if/else inside a
// while (the branch taken changes from step to step, picked through a counting loop that is
// not kept), a while inside a while (the inner trip count grows with the outer step), a
// while inside an if branch (each branch), and a while inside an if inside a while.
#include <algorithm>

#include "tests/codegen/training_check.h"
#include "tests/testing/programs.h"

namespace skiff::testing {
namespace {

using Strings = std::vector<std::string>;

// The trainable [3, 3] matrix `name`, and x [2, 3] fed.
std::string matrix(BlockBuilder& b, const std::string& name, DType dtype, Program* startup) {
  return b.parameter(name, dtype, {3, 3}, startup, Initializer::constant(0));
}

// for i in range(4):                   # a while loop, n a tensor
//   c = 0; while c < i: c += 1         # not on the gradient path: not kept
//   h = tanh(h W) if c < 2 else (h U) * h
// loss = mean(h); SGD on W and U.
TrainingModel if_inside_while(DType dtype) {
  TrainingModel t;
  Program startup;
  BlockBuilder b(&t.model.program);
  b.data("x", dtype, {2, 3});
  const std::string w = matrix(b, "W", dtype, &startup), u = matrix(b, "U", dtype, &startup);
  const std::string h = unary(b, "assign", "x");
  const std::string i = constant(b, 0), n = constant(b, 4), two = constant(b, 2);
  const std::string cond = less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    const std::string c = constant(body, 0);
    const std::string counting = less_than(body, c, i);
    body.while_loop(counting, [&](BlockBuilder& count) { step_counter(count, c, i, counting); });
    const Strings outs = body.if_else(
        less_than(body, c, two),
        [&](BlockBuilder& yes) { return Strings{unary(yes, "tanh", matmul(yes, h, w))}; },
        [&](BlockBuilder& no) { return Strings{mul(no, matmul(no, h, u), h)}; });
    body.assign(outs[0], h);
    step_counter(body, i, n, cond);
  });
  finish_training(&t, &startup, b.apply("reduce_mean", {{"X", {h}}}, {{"reduce_all", true}}),
                  OptimizerConfig("sgd", 0.2), dtype);
  return t;
}

// for i in range(3):
//   for j in range(i + 1): h = tanh(h W)    # 1, 2, then 3 inner steps
//   h = h * v
// loss = mean(h); SGD on W and v.
TrainingModel while_inside_while(DType dtype) {
  TrainingModel t;
  Program startup;
  BlockBuilder b(&t.model.program);
  b.data("x", dtype, {2, 3});
  const std::string w = matrix(b, "W", dtype, &startup);
  const std::string v = b.parameter("v", dtype, {3}, &startup, Initializer::constant(0));
  const std::string h = unary(b, "assign", "x");
  const std::string i = constant(b, 0), n = constant(b, 3), one = constant(b, 1);
  const std::string cond = less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& outer) {
    const std::string j = constant(outer, 0), m = add(outer, i, one);
    const std::string inner_cond = less_than(outer, j, m);
    outer.while_loop(inner_cond, [&](BlockBuilder& inner) {
      inner.assign(unary(inner, "tanh", matmul(inner, h, w)), h);
      step_counter(inner, j, m, inner_cond);
    });
    outer.assign(mul(outer, h, v), h);
    step_counter(outer, i, n, cond);
  });
  finish_training(&t, &startup, b.apply("reduce_mean", {{"X", {h}}}, {{"reduce_all", true}}),
                  OptimizerConfig("sgd", 0.2), dtype);
  return t;
}

// h = x V; if sum(h) > 0: g = h; for 3 steps: g = tanh(g W); out = g  else: out = 2 h
// loss = mean(out); SGD on V and W. `pred` gets the name of the condition.
TrainingModel while_inside_if(DType dtype, std::string* pred_name) {
  TrainingModel t;
  Program startup;
  BlockBuilder b(&t.model.program);
  b.data("x", dtype, {2, 3});
  const std::string v = matrix(b, "V", dtype, &startup), w = matrix(b, "W", dtype, &startup);
  const std::string h = matmul(b, "x", v);
  const std::string total = b.apply("reduce_sum", {{"X", {h}}}, {{"reduce_all", true}});
  const std::string pred =
      b.apply("greater_than", {{"X", {total}}, {"Y", {constant(b, 0, dtype_name(dtype))}}});
  *pred_name = pred;
  const Strings outs = b.if_else(
      pred,
      [&](BlockBuilder& yes) {
        const std::string g = unary(yes, "assign", h);
        const std::string i = constant(yes, 0), n = constant(yes, 3);
        const std::string cond = less_than(yes, i, n);
        yes.while_loop(cond, [&](BlockBuilder& body) {
          body.assign(unary(body, "tanh", matmul(body, g, w)), g);
          step_counter(body, i, n, cond);
        });
        return Strings{g};
      },
      [&](BlockBuilder& no) {
        return Strings{no.apply("scale", {{"X", {h}}}, {{"scale", 2.0}})};
      });
  finish_training(&t, &startup, b.apply("reduce_mean", {{"X", {outs[0]}}}, {{"reduce_all", true}}),
                  OptimizerConfig("sgd", 0.2), dtype);
  return t;
}

// Three levels: for i in range(3):
//                 if i < 2: g = h; for j in range(i + 1): g = tanh(g W + h); h = g
//                 else: h = (h U) * h
// loss = mean(h); SGD on W and U.
TrainingModel while_inside_if_inside_while(DType dtype) {
  TrainingModel t;
  Program startup;
  BlockBuilder b(&t.model.program);
  b.data("x", dtype, {2, 3});
  const std::string w = matrix(b, "W", dtype, &startup), u = matrix(b, "U", dtype, &startup);
  const std::string h = unary(b, "assign", "x");
  const std::string i = constant(b, 0), n = constant(b, 3), one = constant(b, 1),
                    two = constant(b, 2);
  const std::string cond = less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& outer) {
    const Strings outs = outer.if_else(
        less_than(outer, i, two),
        [&](BlockBuilder& yes) {
          const std::string g = unary(yes, "assign", h);
          const std::string j = constant(yes, 0), m = add(yes, i, one);
          const std::string inner_cond = less_than(yes, j, m);
          yes.while_loop(inner_cond, [&](BlockBuilder& inner) {
            inner.assign(unary(inner, "tanh", add(inner, matmul(inner, g, w), h)), g);
            step_counter(inner, j, m, inner_cond);
          });
          return Strings{g};
        },
        [&](BlockBuilder& no) { return Strings{mul(no, matmul(no, h, u), h)}; });
    outer.assign(outs[0], h);
    step_counter(outer, i, n, cond);
  });
  finish_training(&t, &startup, b.apply("reduce_mean", {{"X", {h}}}, {{"reduce_all", true}}),
                  OptimizerConfig("sgd", 0.2), dtype);
  return t;
}

std::map<std::string, Tensor> x_feed(DType dtype, double offset = 0.2) {
  return {{"x", wave({2, 3}, dtype, 0.5, 0.4, offset)}};
}

// The number of ops of `type` in the program, and the deepest block nesting below block 0.
int count_ops(const Program& p, const std::string& type) {
  int n = 0;
  for (const Block& block : p.blocks())
    for (const OpDesc& op : block.ops) n += op.type == type;
  return n;
}
int nesting_depth(const Program& p) {
  int deepest = 0;
  for (int b = 0; b < p.num_blocks(); ++b) {
    int d = 0;
    for (int a = b; a > 0; a = p.block(a).parent_idx) ++d;
    deepest = std::max(deepest, d);
  }
  return deepest;
}

TEST(NestedTrainingTest, IfElseInsideWhileFloat64IsIdentical) {
  const TrainingModel t = if_inside_while(DType::kF64);
  // Both branches are kept for their gradients, and the counting loop is not.
  EXPECT_EQ(count_ops(t.model.program, "conditional_block_grad"), 2);
  EXPECT_EQ(count_ops(t.model.program, "while_grad"), 1);
  EXPECT_EQ(count_ops(t.model.program, "while"), 2);
  expect_same_training(t, x_feed(DType::kF64), 0.0);
}

TEST(NestedTrainingTest, IfElseInsideWhileFloat32WithinTolerance) {
  expect_same_training(if_inside_while(DType::kF32), x_feed(DType::kF32), 1e-6);
}

TEST(NestedTrainingTest, WhileInsideWhileFloat64IsIdentical) {
  const TrainingModel t = while_inside_while(DType::kF64);
  EXPECT_EQ(count_ops(t.model.program, "while_grad"), 2);
  expect_same_training(t, x_feed(DType::kF64), 0.0);
}

TEST(NestedTrainingTest, WhileInsideWhileFloat32WithinTolerance) {
  expect_same_training(while_inside_while(DType::kF32), x_feed(DType::kF32), 1e-6);
}

// The branch the first step of while_inside_if takes on x_feed(dtype, offset).
bool takes_loop_branch(const TrainingModel& t, const std::string& pred, DType dtype,
                       double offset) {
  return interpret(t.model, x_feed(dtype, offset), {pred}).at(pred).item<bool>();
}

TEST(NestedTrainingTest, WhileInsideIfEachBranchFloat64IsIdentical) {
  std::string pred;
  const TrainingModel t = while_inside_if(DType::kF64, &pred);
  EXPECT_EQ(count_ops(t.model.program, "while_grad"), 1);
  // The branch with the loop, then the other one.
  ASSERT_TRUE(takes_loop_branch(t, pred, DType::kF64, 1.0));
  ASSERT_FALSE(takes_loop_branch(t, pred, DType::kF64, -1.0));
  for (double offset : {1.0, -1.0}) expect_same_training(t, x_feed(DType::kF64, offset), 0.0);
}

TEST(NestedTrainingTest, WhileInsideIfEachBranchFloat32WithinTolerance) {
  std::string pred;
  const TrainingModel t = while_inside_if(DType::kF32, &pred);
  ASSERT_TRUE(takes_loop_branch(t, pred, DType::kF32, 1.0));
  ASSERT_FALSE(takes_loop_branch(t, pred, DType::kF32, -1.0));
  for (double offset : {1.0, -1.0}) expect_same_training(t, x_feed(DType::kF32, offset), 1e-6);
}

TEST(NestedTrainingTest, ThreeLevelsFloat64IsIdentical) {
  const TrainingModel t = while_inside_if_inside_while(DType::kF64);
  EXPECT_GE(nesting_depth(t.model.program), 3);
  EXPECT_EQ(count_ops(t.model.program, "while_grad"), 2);
  expect_same_training(t, x_feed(DType::kF64), 0.0);
}

TEST(NestedTrainingTest, ThreeLevelsFloat32WithinTolerance) {
  expect_same_training(while_inside_if_inside_while(DType::kF32), x_feed(DType::kF32), 1e-6);
}

}  // namespace
}  // namespace skiff::testing
