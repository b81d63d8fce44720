// shape and tensor_array_to_tensor: values per dtype, unknown dims in shape inference,
// gradients through append_backward (finite differences), and user errors.
#include <gtest/gtest.h>

#include "skiff/api/builder.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"
#include "tests/testing/program_grad_check.h"

namespace skiff {
namespace {

using testing::error_of;
using testing::random_tensor;

std::string index(BlockBuilder& b, int64_t i) {
  return b.apply("fill_constant", {},
                 {{"shape", std::vector<int64_t>{1}},
                  {"value", static_cast<double>(i)},
                  {"dtype", std::string("int64")}});
}

// arr = [xs...] (written in order); returns the array's name.
std::string array_of(BlockBuilder& b, const std::vector<std::string>& xs, DType dtype,
                     const Shape& shape) {
  b.block().add_var(VarDesc("arr", dtype, shape, VarKind::kTensorArray));
  for (size_t i = 0; i < xs.size(); ++i)
    b.op("write_to_array", {{"X", {xs[i]}}, {"I", {index(b, static_cast<int64_t>(i))}}},
         {{"Out", {"arr"}}});
  return "arr";
}

TEST(ShapeOp, GivesRunTimeDims) {
  Program p;
  BlockBuilder b(&p);
  std::string x = b.data("x", DType::kF32, {-1, 3});
  std::string s = b.apply("shape", {{"X", {x}}});
  const VarDesc* d = p.global_block().find_local_var(s);
  EXPECT_EQ(d->dtype, DType::kI64);
  EXPECT_EQ(d->shape, Shape({2}));
  Scope scope;
  auto out = Executor().run(p, &scope, {{x, random_tensor({5, 3}, DType::kF32, 1)}}, {s});
  EXPECT_EQ(out[0].to_vector<int64_t>(), (std::vector<int64_t>{5, 3}));
}

TEST(TensorArrayToTensor, StacksAndConcatenatesEveryDtype) {
  for (DType dtype : {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool}) {
    SCOPED_TRACE(dtype_name(dtype));
    for (bool stack : {true, false}) {
      Program p;
      BlockBuilder b(&p);
      std::string x0 = b.data("x0", dtype, {2, 3}), x1 = b.data("x1", dtype, {2, 3});
      std::string arr = array_of(b, {x0, x1}, dtype, {2, 3});
      std::string out = b.apply("tensor_array_to_tensor", {{"X", {arr}}},
                                {{"axis", int64_t{1}}, {"use_stack", stack}});
      EXPECT_EQ(p.global_block().find_local_var(out)->shape,
                stack ? Shape({2, -1, 3}) : Shape({2, -1}));
      Tensor v0 = random_tensor({2, 3}, dtype, 1, -5, 5),
             v1 = random_tensor({2, 3}, dtype, 2, -5, 5);
      Scope scope;
      Tensor got = Executor().run(p, &scope, {{x0, v0}, {x1, v1}}, {out})[0];
      EXPECT_EQ(got.shape(), stack ? Shape({2, 2, 3}) : Shape({2, 6}));
      std::vector<double> a = testing::to_f64(v0).to_vector<double>(),
                          c = testing::to_f64(v1).to_vector<double>(),
                          g = testing::to_f64(got).to_vector<double>();
      for (int r = 0; r < 2; ++r)
        for (int k = 0; k < 3; ++k) {
          EXPECT_EQ(g[r * 6 + k], a[r * 3 + k]);      // entry 0 first along axis 1
          EXPECT_EQ(g[r * 6 + 3 + k], c[r * 3 + k]);  // then entry 1
        }
    }
  }
}

TEST(TensorArrayToTensor, GradientsMatchFiniteDifferences) {
  for (bool stack : {true, false}) {
    SCOPED_TRACE(stack ? "stack" : "concat");
    Program p;
    BlockBuilder b(&p);
    std::string a = b.persistable("a", DType::kF64, {2, 3});
    std::string c = b.persistable("c", DType::kF64, {2, 3});
    std::string w = b.persistable("w", DType::kF64, stack ? Shape{2, 2, 3} : Shape{4, 3});
    std::string arr = array_of(b, {a, c}, DType::kF64, {2, 3});
    std::string out = b.apply("tensor_array_to_tensor", {{"X", {arr}}},
                              {{"axis", int64_t{0}}, {"use_stack", stack}});
    std::string prod = b.apply("elementwise_mul", {{"X", {out}}, {"Y", {w}}});
    std::string loss = b.apply("reduce_sum", {{"X", {prod}}}, {{"reduce_all", true}});
    testing::check_program_grad(
        p, loss,
        {{a, random_tensor({2, 3}, DType::kF64, 3)},
         {c, random_tensor({2, 3}, DType::kF64, 4)},
         {w, random_tensor(stack ? Shape{2, 2, 3} : Shape{4, 3}, DType::kF64, 5)}});
  }
}

TEST(TensorArrayToTensor, Errors) {
  Program p;
  BlockBuilder b(&p);
  std::string x = b.data("x", DType::kF32, {2});
  EXPECT_NE(error_of([&] {
              b.apply("tensor_array_to_tensor", {{"X", {x}}});
            }).find("must be a tensor array"),
            std::string::npos);
  Program q;
  BlockBuilder bq(&q);
  q.global_block().add_var(VarDesc("arr", DType::kF32, {2}, VarKind::kTensorArray));
  std::string out = bq.apply("tensor_array_to_tensor", {{"X", {"arr"}}});
  Scope scope;
  EXPECT_NE(error_of([&] { Executor().run(q, &scope, {}, {out}); }).find("array is empty"),
            std::string::npos);
}

}  // namespace
}  // namespace skiff
