// Programs shared by the ir tests: one hand-built program using every attribute
// type, variable kind and dtype (for the file format), and small runnable programs
// built with BlockBuilder from the registered ops (a counting loop, and an RNN-like
// loop with its backward appended).
#pragma once

#include <string>

#include "skiff/api/builder.h"
#include "skiff/autodiff/backward.h"
#include "tests/testing/programs.h"

namespace skiff::testing {

// Not meant to run or verify: exercises the encoding of everything a file can hold.
inline Program every_feature_program() {
  Program p;
  Block& g = p.global_block();
  g.add_var(VarDesc("x", DType::kF32, Shape{-1, 4}));
  VarDesc w("w", DType::kF64, Shape{4, 4});
  w.persistable = true;
  g.add_var(w);
  VarDesc label("label", DType::kI64, Shape{-1});
  label.stop_gradient = true;
  g.add_var(label);
  g.add_var(VarDesc("count", DType::kI32, Shape{}));
  g.add_var(VarDesc("flag", DType::kBool, Shape{1}));
  g.add_var(VarDesc("items", DType::kF32, Shape{-1, 4}, VarKind::kTensorArray));
  g.add_var(VarDesc("rows", DType::kF32, Shape{100, 8}, VarKind::kSelectedRows));
  g.add_var(VarDesc("scopes", DType::kF32, Shape{}, VarKind::kStepScopes));
  const int body = p.add_block(0).idx;
  const int branch = p.add_block(body).idx;
  p.block(body).add_var(VarDesc("h", DType::kF32, Shape{2, 3, 4, 5, 6, 7, 8, 9}));

  OpDesc& op = p.global_block().append_op("every_attr");
  op.set_input("X", {"x", "", "w"}).set_input("Empty", {});
  op.set_output("Out", {"items"});
  op.set_attr("i", int64_t{-42})
      .set_attr("f", -0.125)
      .set_attr("s", std::string("text with \"quotes\" and \xc3\xa9"))
      .set_attr("b", true)
      .set_attr("b_false", false)
      .set_attr("ints", std::vector<int64_t>{1, -2, 1LL << 40})
      .set_attr("floats", std::vector<double>{0.5, -1e300})
      .set_attr("strings", std::vector<std::string>{"a", "", "c"})
      .set_attr("empty_ints", std::vector<int64_t>{})
      .set_attr("block", BlockRef{body})
      .set_attr("blocks", BlockRefs{{body, branch}})
      .set_attr(kSourceAttr, std::string("model.py:7"));
  p.block(body).append_op("inner").set_input("H", {"h"}).set_attr("sub", BlockRef{branch});
  p.block(branch).append_op("leaf");
  return p;
}

// x = tanh(x) three times in a while loop; fetch "x" (f32[2, 3]) and "i" (int64 [1]).
inline Program counting_loop_program() {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {2, 3});
  const std::string i = "i";
  b.op("fill_constant", {}, {{"Out", {i}}},
       {{"shape", std::vector<int64_t>{1}}, {"value", 0.0}, {"dtype", std::string("int64")}});
  std::string n = constant(b, 3);
  std::string cond = less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    body.assign(unary(body, "tanh", "x"), "x");
    step_counter(body, i, n, cond);
  });
  return p;
}

// h = tanh(h * w + x) for 3 steps (in place), loss = h * w, with its backward
// appended (so the program holds a while_grad op and its grad block).
inline Program loop_with_backward_program() {
  Program p;
  BlockBuilder b(&p);
  b.persistable("w", DType::kF64, {1});
  b.persistable("x", DType::kF64, {1});
  b.persistable("h0", DType::kF64, {1});
  std::string h = unary(b, "assign", "h0");
  std::string i = constant(b, 0), n = constant(b, 3);
  std::string cond = less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    body.op("tanh", {{"X", {add(body, mul(body, h, "w"), "x")}}}, {{"Out", {h}}});
    step_counter(body, i, n, cond);
  });
  append_backward(p, mul(b, h, "w"));
  return p;
}

}  // namespace skiff::testing
