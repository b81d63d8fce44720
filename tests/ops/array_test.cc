// select_input and tensor arrays (write_to_array, read_from_array, array_length)
// with their gradient ops: values per dtype, growth and in-place writes, empty
// arrays, gradients (direct and through append_backward), and user errors.
#include <gtest/gtest.h>

#include "skiff/api/builder.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"
#include "tests/testing/program_grad_check.h"

namespace skiff {
namespace {

using testing::error_of;

using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;

constexpr DType kAllTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};

std::string index(BlockBuilder& b, int64_t i) {
  return b.apply("fill_constant", {},
                 {{"shape", std::vector<int64_t>{1}},
                  {"value", static_cast<double>(i)},
                  {"dtype", std::string("int64")}});
}

void declare_array(BlockBuilder& b, const std::string& name, DType dtype, const Shape& shape) {
  b.block().add_var(VarDesc(name, dtype, shape, VarKind::kTensorArray));
}

// Runs block 0 of `p` in `scope`, keeping every variable alive for inspection.
void run_keeping_all(const Program& p, Scope* scope,
                     const std::map<std::string, Tensor>& feeds = {}) {
  std::vector<std::string> keep;
  for (const auto& [name, v] : p.global_block().vars) keep.push_back(name);
  for (const auto& [name, t] : feeds) feed(p, scope, name, t);
  Executor exe;
  auto prepared = exe.prepare(p, keep);
  exe.run(*prepared, scope);
}

// The message of the skiff::Error that fn throws ("" if none).

// ---- write_to_array / read_from_array / array_length ----

TEST(TensorArrayOps, WriteGrowsReadCopiesLengthCounts) {
  for (DType dtype : kAllTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    Program p;
    BlockBuilder b(&p);
    declare_array(b, "arr", dtype, {2});
    std::string x0 = b.data("x0", dtype, {2}), x2 = b.data("x2", dtype, {2});
    b.op("write_to_array", {{"X", {x0}}, {"I", {index(b, 0)}}}, {{"Out", {"arr"}}});
    b.op("write_to_array", {{"X", {x2}}, {"I", {index(b, 2)}}}, {{"Out", {"arr"}}});
    std::string r2 = b.apply("read_from_array", {{"X", {"arr"}}, {"I", {index(b, 2)}}});
    std::string r0 = b.apply("read_from_array", {{"X", {"arr"}}, {"I", {index(b, 0)}}});
    std::string len = b.apply("array_length", {{"X", {"arr"}}});
    EXPECT_EQ(p.global_block().find_local_var(r0)->dtype, dtype);
    EXPECT_EQ(p.global_block().find_local_var(len)->dtype, DType::kI64);

    Tensor v0 = random_tensor({2}, dtype, 1, -5, 5), v2 = random_tensor({2}, dtype, 2, -5, 5);
    Scope scope;
    run_keeping_all(p, &scope, {{x0, v0}, {x2, v2}});
    std::string why;
    EXPECT_TRUE(testing::all_close(fetch(scope, r0), v0, 0, 0, &why)) << why;
    EXPECT_TRUE(testing::all_close(fetch(scope, r2), v2, 0, 0, &why)) << why;
    EXPECT_FALSE(fetch(scope, r2).shares_storage((*scope.find_var("arr")->array())[2]));
    EXPECT_EQ(fetch(scope, len).shape(), Shape({1}));
    EXPECT_EQ(fetch(scope, len).item<int64_t>(), 3);
    EXPECT_FALSE((*scope.find_var("arr")->array())[1].initialized());
  }
}

TEST(TensorArrayOps, OverwriteKeepsOtherEntries) {
  Program p;
  BlockBuilder b(&p);
  declare_array(b, "arr", DType::kF32, {1});
  std::string a = b.data("a", DType::kF32, {1}), c = b.data("c", DType::kF32, {1});
  b.op("write_to_array", {{"X", {a}}, {"I", {index(b, 0)}}}, {{"Out", {"arr"}}});
  b.op("write_to_array", {{"X", {a}}, {"I", {index(b, 1)}}}, {{"Out", {"arr"}}});
  b.op("write_to_array", {{"X", {c}}, {"I", {index(b, 0)}}}, {{"Out", {"arr"}}});
  Scope scope;
  run_keeping_all(
      p, &scope,
      {{a, Tensor::from_vector<float>({1}, {1})}, {c, Tensor::from_vector<float>({1}, {2})}});
  const TensorArray& arr = *scope.find_var("arr")->array();
  ASSERT_EQ(arr.size(), 2u);
  EXPECT_EQ(arr[0].item<float>(), 2);
  EXPECT_EQ(arr[1].item<float>(), 1);
}

TEST(TensorArrayOps, EmptyArray) {
  Program p;
  BlockBuilder b(&p);
  declare_array(b, "arr", DType::kF32, {2});
  std::string len = b.apply("array_length", {{"X", {"arr"}}});
  Scope scope;
  EXPECT_EQ(Executor().run(p, &scope, {}, {len})[0].item<int64_t>(), 0);

  b.apply("read_from_array", {{"X", {"arr"}}, {"I", {index(b, 0)}}});
  Scope scope2;
  std::string msg = error_of([&] { Executor().run(p, &scope2); });
  EXPECT_NE(msg.find("index 0 is out of range for a tensor array of length 0"), std::string::npos)
      << msg;
}

TEST(TensorArrayOps, Errors) {
  auto program_reading = [](int64_t write_at, int64_t read_at) {
    auto p = std::make_unique<Program>();
    BlockBuilder b(p.get());
    declare_array(b, "arr", DType::kF32, {1});
    std::string x = b.data("x", DType::kF32, {1});
    b.op("write_to_array", {{"X", {x}}, {"I", {index(b, write_at)}}}, {{"Out", {"arr"}}});
    b.apply("read_from_array", {{"X", {"arr"}}, {"I", {index(b, read_at)}}});
    return p;
  };
  auto run = [](const Program& p) {
    Scope scope;
    Executor().run(p, &scope, {{"x", Tensor::from_vector<float>({1}, {1})}});
  };
  std::string out_of_range = error_of([&] { run(*program_reading(2, 5)); });
  EXPECT_NE(out_of_range.find("index 5 is out of range for a tensor array of length 3"),
            std::string::npos)
      << out_of_range;
  std::string unwritten = error_of([&] { run(*program_reading(2, 1)); });
  EXPECT_NE(unwritten.find("entry 1"), std::string::npos) << unwritten;
  EXPECT_THROW(run(*program_reading(-1, 0)), Error);

  // A dense tensor is not an array, at build time.
  Program dense;
  BlockBuilder b(&dense);
  std::string t = b.data("t", DType::kF32, {2});
  EXPECT_THROW(b.apply("read_from_array", {{"X", {t}}, {"I", {index(b, 0)}}}), Error);
  EXPECT_THROW(b.apply("array_length", {{"X", {t}}}), Error);
  // A float index.
  Program fidx;
  BlockBuilder fb(&fidx);
  declare_array(fb, "arr", DType::kF32, {1});
  std::string x = fb.data("x", DType::kF32, {1});
  std::string i = fb.data("i", DType::kF32, {1});
  fb.op("write_to_array", {{"X", {x}}, {"I", {i}}}, {{"Out", {"arr"}}});
  Scope scope;
  EXPECT_THROW(Executor().run(fidx, &scope,
                              {{x, Tensor::from_vector<float>({1}, {1})},
                               {i, Tensor::from_vector<float>({1}, {0})}}),
               Error);
}

TEST(TensorArrayOps, GradientOps) {
  // read_from_array_grad: an array as long as X with only entry I set.
  Program p;
  BlockBuilder b(&p);
  declare_array(b, "xs", DType::kF64, {2});
  std::string i1 = index(b, 1);
  std::string dout = b.data("dout", DType::kF64, {2});
  b.op("read_from_array_grad", {{"X", {"xs"}}, {"I", {i1}}, {"Out@GRAD", {dout}}},
       {{"X@GRAD", {"xs@GRAD"}}});
  EXPECT_EQ(p.global_block().find_local_var("xs@GRAD")->kind, VarKind::kTensorArray);
  Scope scope;
  scope.var("xs")->mutable_array()->resize(3);
  run_keeping_all(p, &scope, {{dout, Tensor::from_vector<double>({2}, {1, 2})}});
  const TensorArray& g = *scope.find_var("xs@GRAD")->array();
  ASSERT_EQ(g.size(), 3u);
  EXPECT_FALSE(g[0].initialized());
  EXPECT_EQ(g[1].to_vector<double>(), std::vector<double>({1, 2}));
  EXPECT_FALSE(g[2].initialized());
}

TEST(TensorArrayOps, WriteGradTakesEntryAndClearsIt) {
  Program p;
  BlockBuilder b(&p);
  declare_array(b, "ys@GRAD", DType::kF64, {2});
  std::string x = b.data("x", DType::kF64, {2});
  std::string i1 = index(b, 1), i3 = index(b, 3);
  auto grad_op = [&](const std::string& i, const std::string& x_grad) {
    b.op("write_to_array_grad", {{"X", {x}}, {"I", {i}}, {"Out@GRAD", {"ys@GRAD"}}},
         {{"X@GRAD", {x_grad}}, {"Array@GRAD", {"ys@GRAD"}}});
  };
  grad_op(i1, "g1");
  grad_op(i1, "g1_again");  // entry 1 was cleared: zeros
  grad_op(i3, "g3");        // past the end: zeros
  Scope scope;
  TensorArray* arr = scope.var("ys@GRAD")->mutable_array();
  arr->push_back(Tensor::from_vector<double>({2}, {1, 2}));
  arr->push_back(Tensor::from_vector<double>({2}, {3, 4}));
  run_keeping_all(p, &scope, {{x, Tensor::from_vector<double>({2}, {9, 9})}});
  EXPECT_EQ(fetch(scope, "g1").to_vector<double>(), std::vector<double>({3, 4}));
  EXPECT_EQ(fetch(scope, "g1_again").to_vector<double>(), std::vector<double>({0, 0}));
  EXPECT_EQ(fetch(scope, "g3").to_vector<double>(), std::vector<double>({0, 0}));
  const TensorArray& after = *scope.find_var("ys@GRAD")->array();
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[0].to_vector<double>(), std::vector<double>({1, 2}));
  EXPECT_FALSE(after[1].initialized());
}

TEST(TensorArrayOps, GradientThroughAppendBackward) {
  // loss = a + 2 b + c, with a, b, c stored into an array and read back (b twice,
  // a written twice: only the second write's value is read).
  Program p;
  BlockBuilder b(&p);
  declare_array(b, "arr", DType::kF64, {1});
  std::string a = b.persistable("a", DType::kF64, {1});
  std::string bb = b.persistable("b", DType::kF64, {1});
  std::string c = b.persistable("c", DType::kF64, {1});
  std::string i0 = index(b, 0), i1 = index(b, 1), i2 = index(b, 2);
  b.op("write_to_array", {{"X", {c}}, {"I", {i0}}}, {{"Out", {"arr"}}});
  b.op("write_to_array", {{"X", {bb}}, {"I", {i1}}}, {{"Out", {"arr"}}});
  b.op("write_to_array", {{"X", {a}}, {"I", {i2}}}, {{"Out", {"arr"}}});
  std::string r0 = b.apply("read_from_array", {{"X", {"arr"}}, {"I", {i0}}});
  std::string r1 = b.apply("read_from_array", {{"X", {"arr"}}, {"I", {i1}}});
  std::string r1b = b.apply("read_from_array", {{"X", {"arr"}}, {"I", {i1}}});
  std::string r2 = b.apply("read_from_array", {{"X", {"arr"}}, {"I", {i2}}});
  std::string loss = b.apply("sum", {{"X", {r0, r1, r1b, r2}}});
  testing::check_program_grad(p, loss,
                              {{a, Tensor::from_vector<double>({1}, {0.5})},
                               {bb, Tensor::from_vector<double>({1}, {-1})},
                               {c, Tensor::from_vector<double>({1}, {2})}});
}

// ---- select_input ----

TEST(SelectInputOp, PicksByMaskEveryDtype) {
  const std::pair<Tensor, int> masks[] = {{Tensor::from_vector<bool>({1}, {false}), 0},
                                          {Tensor::from_vector<bool>({1}, {true}), 1},
                                          {Tensor::from_vector<int32_t>({1}, {1}), 1},
                                          {Tensor::scalar<int64_t>(0), 0}};
  for (DType dtype : kAllTypes) {
    for (const auto& [mask, pick] : masks) {
      SCOPED_TRACE(str_cat(dtype_name(dtype), " mask ", mask.type_str(), " picks ", pick));
      Tensor x0 = random_tensor({2, 3}, dtype, 1, -5, 5),
             x1 = random_tensor({2, 3}, dtype, 2, -5, 5);
      OpTest t("select_input");
      t.input("X", x0).input("X", x1).input("Mask", mask);
      t.check_output("Out", pick ? x1 : x0, 0, 0);
    }
  }
}

TEST(SelectInputOp, Errors) {
  Tensor x = random_tensor({2}, DType::kF32, 1);
  OpTest out_of_range("select_input");
  out_of_range.input("X", x).input("X", x).input("Mask", Tensor::from_vector<int64_t>({1}, {2}));
  EXPECT_NE(error_of([&] { out_of_range.run(); }).find("Mask is 2 but X has 2 inputs"),
            std::string::npos);
  OpTest negative("select_input");
  negative.input("X", x).input("X", x).input("Mask", Tensor::from_vector<int32_t>({1}, {-1}));
  EXPECT_THROW(negative.run(), Error);
  OpTest float_mask("select_input");
  float_mask.input("X", x).input("X", x).input("Mask", Tensor::from_vector<float>({1}, {1}));
  EXPECT_THROW(float_mask.run(), Error);
  OpTest dtypes("select_input");
  dtypes.input("X", x)
      .input("X", random_tensor({2}, DType::kF64, 1))
      .input("Mask", Tensor::from_vector<bool>({1}, {true}));
  EXPECT_THROW(dtypes.run(), Error);
}

TEST(SelectInputOp, GradWritesSelectedAndClearsOthers) {
  Program p;
  BlockBuilder b(&p);
  std::string mask = b.data("mask", DType::kBool, {1});
  std::string dout = b.data("dout", DType::kF32, {2});
  b.op("select_input_grad", {{"Mask", {mask}}, {"Out@GRAD", {dout}}}, {{"X@GRAD", {"g0", "g1"}}});
  Scope scope;
  scope.var("g0")->set(Tensor::from_vector<float>({2}, {7, 7}));  // stale: must go
  run_keeping_all(p, &scope,
                  {{mask, Tensor::from_vector<bool>({1}, {true})},
                   {dout, Tensor::from_vector<float>({2}, {1, 2})}});
  EXPECT_TRUE(scope.find_var("g0")->empty());
  EXPECT_EQ(fetch(scope, "g1").to_vector<float>(), std::vector<float>({1, 2}));
}

TEST(SelectInputOp, IfElseValueAndGradientBothWays) {
  // y = pred ? x + x : x through BlockBuilder::if_else (conditional_block + select_input);
  // dy/dx = 2 or 1 through select_input_grad.
  for (bool pred_value : {true, false}) {
    SCOPED_TRACE(pred_value);
    Program p;
    BlockBuilder b(&p);
    std::string x = b.persistable("x", DType::kF64, {1});
    std::string pred = b.data("pred", DType::kBool, {1});
    std::vector<std::string> y = b.if_else(
        pred,
        [&](BlockBuilder& t) {
          return std::vector<std::string>{t.apply("sum", {{"X", {x, x}}})};
        },
        [&](BlockBuilder& f) {
          return std::vector<std::string>{f.apply("assign", {{"X", {x}}})};
        });
    Tensor x0 = Tensor::from_vector<double>({1}, {1.5});
    Tensor mask = Tensor::from_vector<bool>({1}, {pred_value});
    Scope scope;
    scope.var(x)->set(x0.clone());
    auto out = Executor().run(p, &scope, {{pred, mask}}, {y[0]});
    EXPECT_EQ(out[0].item<double>(), pred_value ? 3.0 : 1.5);
    testing::check_program_grad(p, y[0], {{x, x0}}, {{pred, mask}});
  }
}

}  // namespace
}  // namespace skiff
