// run_program: a registered program called like an op from eager code gives the same
// outputs and gradients as calling its ops eagerly one by one, loops included.
#include <gtest/gtest.h>

#include "skiff/eager/backward.h"
#include "skiff/eager/op_call.h"
#include "skiff/runtime/run_program.h"
#include "tests/testing/op_test.h"
#include "tests/testing/programs.h"

namespace skiff {
namespace {

using eager::EagerOp;
using eager::TensorPtr;
using testing::add;
using testing::constant;
using testing::less_than;
using testing::matmul;
using testing::unary;

TensorPtr leaf(Tensor value, bool wants_grad = true) {
  TensorPtr t = eager::make_tensor(std::move(value));
  t->stop_gradient = !wants_grad;
  return t;
}

AttrMap call_attrs(int64_t id, std::vector<int64_t> wants) {
  AttrMap a;
  a.set("function", id);
  a.set("wants_grad", std::move(wants));
  return a;
}

// y = tanh(x @ w) + x @ w, s = sum(y) (two outputs), n = an int64 output.
Program two_output_program(std::string* y, std::string* s, std::string* n) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF64, {-1, 3});
  b.persistable("w", DType::kF64, {3, 3});
  std::string xw = matmul(b, "x", "w");
  *y = add(b, unary(b, "tanh", xw), xw);
  *s = b.apply("reduce_sum", {{"X", {*y}}}, {{"reduce_all", true}});
  *n = constant(b, 7);
  return p;
}

// The same function eagerly: returns y and s.
std::pair<TensorPtr, TensorPtr> eager_reference(const TensorPtr& x, const TensorPtr& w) {
  EagerOp mm("matmul", {}), th("tanh", {}), ad("elementwise_add", {});
  AttrMap all;
  all.set("reduce_all", true);
  EagerOp sum("reduce_sum", all);
  TensorPtr xw = mm.call({{x}, {w}})[0][0];
  TensorPtr y = ad.call({{th.call({{xw}})[0][0]}, {xw}})[0][0];
  return {y, sum.call({{y}})[0][0]};
}

TEST(RunProgram, OutputsAndGradientsMatchEagerOps) {
  std::string y, s, n;
  Program p = two_output_program(&y, &s, &n);
  int64_t id = register_program_function(p, {"x", "w"}, {y, s, n});
  Tensor x0 = testing::random_tensor({2, 3}, DType::kF64, 1);
  Tensor w0 = testing::random_tensor({3, 3}, DType::kF64, 2);
  Tensor gy = testing::random_tensor({2, 3}, DType::kF64, 3);

  TensorPtr x = leaf(x0), w = leaf(w0);
  EagerOp call("run_program", call_attrs(id, {1, 1}), {3, 1});
  auto out = call.call({{x, w}});
  ASSERT_EQ(out[0].size(), 3u);
  EXPECT_EQ(out[0][2]->dense().item<int64_t>(), 7);
  // backward of <y, gy> + 2 * s
  TensorPtr two = eager::make_tensor(Tensor::from_vector<double>({}, {2.0}));
  eager::run_backward({out[0][0], out[0][1]}, {eager::make_tensor(gy), two}, false);

  TensorPtr xr = leaf(x0), wr = leaf(w0);
  auto [yr, sr] = eager_reference(xr, wr);
  eager::run_backward({yr, sr}, {eager::make_tensor(gy), two}, false);

  EXPECT_TRUE(testing::all_close(out[0][0]->dense(), yr->dense(), 1e-12, 1e-12, nullptr));
  EXPECT_TRUE(testing::all_close(out[0][1]->dense(), sr->dense(), 1e-12, 1e-12, nullptr));
  ASSERT_TRUE(x->grad && w->grad);
  EXPECT_TRUE(testing::all_close(x->grad->dense(), xr->grad->dense(), 1e-12, 1e-12, nullptr));
  EXPECT_TRUE(testing::all_close(w->grad->dense(), wr->grad->dense(), 1e-12, 1e-12, nullptr));
  release_program_function(id);
}

TEST(RunProgram, OnlyWantedGradientsAndInferenceCalls) {
  std::string y, s, n;
  Program p = two_output_program(&y, &s, &n);
  int64_t id = register_program_function(p, {"x", "w"}, {s});
  Tensor x0 = testing::random_tensor({4, 3}, DType::kF64, 4);
  Tensor w0 = testing::random_tensor({3, 3}, DType::kF64, 5);
  TensorPtr x = leaf(x0, false), w = leaf(w0);
  EagerOp train("run_program", call_attrs(id, {0, 1}), {1, 1});
  TensorPtr out = train.call({{x, w}})[0][0];
  eager::run_backward({out}, {}, false);
  EXPECT_FALSE(x->grad);
  ASSERT_TRUE(w->grad);

  TensorPtr xr = leaf(x0, false), wr = leaf(w0);
  eager::run_backward({eager_reference(xr, wr).second}, {}, false);
  EXPECT_TRUE(testing::all_close(w->grad->dense(), wr->grad->dense(), 1e-12, 1e-12, nullptr));

  // Without wanted gradients the program runs as traced, twice in one kept scope.
  EagerOp infer("run_program", call_attrs(id, {}), {1, 0});
  for (int k = 0; k < 2; ++k) {
    eager::NoGradGuard no_grad;
    TensorPtr again = infer.call({{x, w}})[0][0];
    EXPECT_TRUE(testing::all_close(again->dense(), out->dense(), 1e-12, 1e-12, nullptr));
  }
  release_program_function(id);
}

TEST(RunProgram, LoopGradientsMatchUnrolledEagerLoop) {
  // h = x; repeat 4 times: h = tanh(h @ w)
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF64, {2, 3});
  b.persistable("w", DType::kF64, {3, 3});
  std::string h = unary(b, "assign", "x");
  std::string i = constant(b, 0), n = constant(b, 4);
  std::string cond = less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    body.assign(unary(body, "tanh", matmul(body, h, "w")), h);
    testing::step_counter(body, i, n, cond);
  });
  int64_t id = register_program_function(p, {"x", "w"}, {h});
  Tensor x0 = testing::random_tensor({2, 3}, DType::kF64, 6);
  Tensor w0 = testing::random_tensor({3, 3}, DType::kF64, 7);
  TensorPtr x = leaf(x0), w = leaf(w0);
  EagerOp call("run_program", call_attrs(id, {1, 1}), {1, 1});
  TensorPtr out = call.call({{x, w}})[0][0];
  eager::run_backward({out}, {}, false);

  TensorPtr xr = leaf(x0), wr = leaf(w0), hr = xr;
  EagerOp mm("matmul", {}), th("tanh", {});
  for (int k = 0; k < 4; ++k) hr = th.call({{mm.call({{hr}, {wr}})[0][0]}})[0][0];
  eager::run_backward({hr}, {}, false);
  EXPECT_TRUE(testing::all_close(out->dense(), hr->dense(), 1e-12, 1e-12, nullptr));
  EXPECT_TRUE(testing::all_close(x->grad->dense(), xr->grad->dense(), 1e-12, 1e-12, nullptr));
  EXPECT_TRUE(testing::all_close(w->grad->dense(), wr->grad->dense(), 1e-12, 1e-12, nullptr));
  release_program_function(id);
}

TEST(RunProgram, ErrorsNameTheProblem) {
  std::string y, s, n;
  Program p = two_output_program(&y, &s, &n);
  EXPECT_NE(testing::error_of([&] {
              register_program_function(p, {"x", "nope"}, {y});
            }).find("'nope' is not declared"),
            std::string::npos);
  int64_t id = register_program_function(p, {"x", "w"}, {y});
  release_program_function(id);
  EXPECT_NE(testing::error_of([&] {
              EagerOp call("run_program", call_attrs(id, {}), {1, 0});
              call.call({{leaf(Tensor::from_vector<double>({1, 3}, {1, 2, 3})),
                          leaf(testing::random_tensor({3, 3}, DType::kF64, 1))}});
            }).find("no registered function"),
            std::string::npos);
  // A wrong input shape is caught by the feed check.
  int64_t id2 = register_program_function(p, {"x", "w"}, {y});
  EXPECT_NE(testing::error_of([&] {
              EagerOp call("run_program", call_attrs(id2, {}), {1, 0});
              call.call({{leaf(testing::random_tensor({2, 4}, DType::kF64, 1)),
                          leaf(testing::random_tensor({3, 3}, DType::kF64, 2))}});
            }).find("feed 'x'"),
            std::string::npos);
  release_program_function(id2);
}

}  // namespace
}  // namespace skiff
