// assign, cast, increment and sum: values per dtype, in-place use, tensor arrays,
// gradients against finite differences, and user errors.
#include <gtest/gtest.h>

#include <cmath>

#include "skiff/api/builder.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"
#include "tests/testing/program_grad_check.h"

namespace skiff {
namespace {

using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr DType kAllTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};
constexpr DType kNumericTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64};

std::string int64_constant(BlockBuilder& b, int64_t v) {
  return b.apply("fill_constant", {},
                 {{"shape", std::vector<int64_t>{1}},
                  {"value", static_cast<double>(v)},
                  {"dtype", std::string("int64")}});
}

// ---- assign ----

TEST(AssignOp, CopiesEveryDtype) {
  for (DType dtype : kAllTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    Tensor x = random_tensor({3, 4}, dtype, 1, -5, 5);
    OpTest t("assign");
    t.input("X", x);
    auto out = t.run().at("Out").at(0);
    EXPECT_FALSE(out.shares_storage(x));
    t.check_output("Out", x, 0, 0);
  }
}

TEST(AssignOp, CopiesSmallIntegers) {
  for (DType dtype : {DType::kI8, DType::kU8, DType::kI16}) {
    SCOPED_TRACE(dtype_name(dtype));
    Tensor x = random_tensor({3, 4}, dtype, 1, 0, 100);
    OpTest t("assign");
    t.input("X", x);
    t.check_output("Out", x, 0, 0);
  }
}

TEST(AssignOp, Gradient) {
  OpTest t("assign");
  t.input("X", random_tensor({3, 4}, DType::kF64, 2));
  t.check_grad({"X"});
}

TEST(AssignOp, CopiesTensorArrays) {
  Program p;
  BlockBuilder b(&p);
  b.block().add_var(VarDesc("arr", DType::kF64, Shape{2}, VarKind::kTensorArray));
  std::string x = b.data("x", DType::kF64, {2});
  b.op("write_to_array", {{"X", {x}}, {"I", {int64_constant(b, 1)}}}, {{"Out", {"arr"}}});
  b.op("assign", {{"X", {"arr"}}}, {{"Out", {"copy"}}});
  EXPECT_EQ(p.global_block().find_local_var("copy")->kind, VarKind::kTensorArray);
  Scope scope;
  feed(p, &scope, x, Tensor::from_vector<double>({2}, {1.5, -2}));
  Executor exe;
  auto prepared = exe.prepare(p, {"copy", "arr"});
  exe.run(*prepared, &scope);
  const TensorArray* copy = scope.find_var("copy")->array();
  ASSERT_TRUE(copy && copy->size() == 2);
  EXPECT_FALSE((*copy)[0].initialized());
  EXPECT_EQ((*copy)[1].to_vector<double>(), std::vector<double>({1.5, -2}));
  EXPECT_FALSE((*copy)[1].shares_storage((*scope.find_var("arr")->array())[1]));
}

// ---- cast ----

TEST(CastOp, EveryPairOfDtypes) {
  const std::vector<double> values = {0, 1, 3, -2, 0, 5};
  for (DType from : kAllTypes) {
    for (DType to : kAllTypes) {
      SCOPED_TRACE(str_cat(dtype_name(from), " -> ", dtype_name(to)));
      Tensor x = from_f64(Tensor::from_vector<double>({2, 3}, values), from);
      // Exact integers survive every conversion; to bool means != 0.
      std::vector<double> want = to_f64(x).to_vector<double>();
      if (to == DType::kBool)
        for (double& v : want) v = v != 0;
      OpTest t("cast");
      t.input("X", x).attr("out_dtype", std::string(dtype_name(to)));
      t.check_output("Out", from_f64(Tensor::from_vector<double>({2, 3}, want), to), 0, 0);
    }
  }
}

TEST(CastOp, FloatToIntTruncatesTowardZero) {
  OpTest t("cast");
  t.input("X", Tensor::from_vector<float>({4}, {2.75f, -2.75f, 0.5f, -0.0f}))
      .attr("out_dtype", std::string("int32"));
  t.check_output("Out", Tensor::from_vector<int32_t>({4}, {2, -2, 0, 0}), 0, 0);
  OpTest narrow("cast");
  narrow.input("X", Tensor::from_vector<double>({2}, {0.1, 1e300}))
      .attr("out_dtype", std::string("float32"));
  narrow.check_output("Out", Tensor::from_vector<float>({2}, {0.1f, INFINITY}), 0, 0);
}

TEST(CastOp, SmallIntegersFromAndToEveryDtype) {
  const std::vector<double> values = {0, 1, 3, 2, 0, 5};
  const DType others[] = {DType::kF32,  DType::kF64, DType::kI32, DType::kI64, DType::kBool,
                          DType::kBF16, DType::kI8,  DType::kU8,  DType::kI16};
  for (DType small : {DType::kI8, DType::kU8, DType::kI16}) {
    for (DType other : others) {
      for (auto [from, to] : {std::pair{small, other}, std::pair{other, small}}) {
        SCOPED_TRACE(str_cat(dtype_name(from), " -> ", dtype_name(to)));
        Tensor x = from_f64(Tensor::from_vector<double>({2, 3}, values), from);
        std::vector<double> want = to_f64(x).to_vector<double>();
        if (to == DType::kBool)
          for (double& v : want) v = v != 0;
        OpTest t("cast");
        t.input("X", x).attr("out_dtype", std::string(dtype_name(to)));
        t.check_output("Out", from_f64(Tensor::from_vector<double>({2, 3}, want), to), 0, 0);
      }
    }
  }
}

TEST(CastOp, FloatToSmallIntegersTruncatesAndSaturates) {
  const Tensor x =
      Tensor::from_vector<float>({7}, {-200.7f, -1.5f, 0.4f, 1.5f, 300.2f, NAN, -0.9f});
  auto cast_to = [&](const char* dtype) {
    OpTest t("cast");
    t.input("X", x).attr("out_dtype", std::string(dtype));
    return t.run().at("Out").at(0);
  };
  EXPECT_EQ(cast_to("int8").to_vector<int8_t>(), (std::vector<int8_t>{-128, -1, 0, 1, 127, 0, 0}));
  EXPECT_EQ(cast_to("uint8").to_vector<uint8_t>(), (std::vector<uint8_t>{0, 0, 0, 1, 255, 0, 0}));
  EXPECT_EQ(cast_to("int16").to_vector<int16_t>(),
            (std::vector<int16_t>{-200, -1, 0, 1, 300, 0, 0}));
  OpTest wrap("cast");  // integers to narrower integers wrap, as in C
  wrap.input("X", Tensor::from_vector<int32_t>({2}, {300, -129}))
      .attr("out_dtype", std::string("int8"));
  wrap.check_output("Out", Tensor::from_vector<int8_t>({2}, {44, 127}), 0, 0);
}

TEST(CastOp, GradientSameDtype) {
  OpTest t("cast");
  t.input("X", random_tensor({2, 3}, DType::kF64, 3)).attr("out_dtype", std::string("float64"));
  t.check_grad({"X"});
}

TEST(CastOp, GradientThroughFloat32AndBack) {
  // loss = float64(float32(w)) + v: cast_grad runs f64 -> f32 and f32 -> f64.
  Program p;
  BlockBuilder b(&p);
  std::string w = b.persistable("w", DType::kF64, {1});
  std::string v = b.data("v", DType::kF32, {1});
  std::string down = b.apply("cast", {{"X", {w}}}, {{"out_dtype", std::string("float32")}});
  std::string up = b.apply("cast", {{"X", {down}}}, {{"out_dtype", std::string("float64")}});
  std::string v64 = b.apply("cast", {{"X", {v}}}, {{"out_dtype", std::string("float64")}});
  std::string loss = b.apply("sum", {{"X", {up, v64}}});
  // The float32 step rounds w: a wide eps keeps finite differences accurate.
  testing::check_program_grad(p, loss, {{"w", Tensor::from_vector<double>({1}, {0.3})}},
                              {{"v", Tensor::from_vector<float>({1}, {2.0f})}}, 1e-2, 1e-4, 1e-4);
}

TEST(CastOp, Errors) {
  OpTest bad("cast");
  bad.input("X", random_tensor({2}, DType::kF32, 1)).attr("out_dtype", std::string("float8"));
  EXPECT_THROW(bad.run(), Error);
  OpTest missing("cast");
  missing.input("X", random_tensor({2}, DType::kF32, 1));
  EXPECT_THROW(missing.run(), Error);
}

// ---- increment ----

TEST(IncrementOp, EveryNumericDtype) {
  for (DType dtype : kNumericTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    OpTest t("increment");
    t.input("X", from_f64(Tensor::from_vector<double>({3}, {1, -4, 7}), dtype)).attr("step", 2.0);
    t.check_output("Out", from_f64(Tensor::from_vector<double>({3}, {3, -2, 9}), dtype), 0, 0);
  }
  OpTest def("increment");
  def.input("X", Tensor::from_vector<double>({1}, {0.5}));
  def.check_output("Out", Tensor::from_vector<double>({1}, {1.5}), 0, 0);
}

TEST(IncrementOp, InPlaceLoopCounter) {
  Program p;
  BlockBuilder b(&p);
  std::string i = int64_constant(b, 5);
  for (int k = 0; k < 3; ++k) b.op("increment", {{"X", {i}}}, {{"Out", {i}}});
  b.op("increment", {{"X", {i}}}, {{"Out", {i}}}, {{"step", -10.0}});
  Scope scope;
  auto out = Executor().run(p, &scope, {}, {i});
  EXPECT_EQ(out[0].to_vector<int64_t>(), std::vector<int64_t>({-2}));
}

TEST(IncrementOp, InPlaceDoesNotWriteThroughAFetchedValue) {
  Program p;
  BlockBuilder b(&p);
  std::string i = b.data("i", DType::kI32, {1});
  b.op("increment", {{"X", {i}}}, {{"Out", {i}}});
  Scope scope;
  Tensor fed = Tensor::from_vector<int32_t>({1}, {4});
  auto out = Executor().run(p, &scope, {{i, fed}}, {i});
  EXPECT_EQ(out[0].item<int32_t>(), 5);
  EXPECT_EQ(fed.item<int32_t>(), 4);
}

TEST(IncrementOp, Errors) {
  OpTest fractional("increment");
  fractional.input("X", Tensor::from_vector<int64_t>({1}, {1})).attr("step", 0.5);
  EXPECT_THROW(fractional.run(), Error);
  OpTest boolean("increment");
  boolean.input("X", Tensor::from_vector<bool>({1}, {true}));
  EXPECT_THROW(boolean.run(), Error);
}

// ---- sum ----

TEST(SumOp, EveryNumericDtype) {
  for (DType dtype : kNumericTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    OpTest t("sum");
    t.input("X", from_f64(Tensor::from_vector<double>({2, 2}, {1, 2, 3, 4}), dtype))
        .input("X", from_f64(Tensor::from_vector<double>({2, 2}, {10, 20, 30, 40}), dtype))
        .input("X", from_f64(Tensor::from_vector<double>({2, 2}, {-1, 0, 1, 2}), dtype));
    t.check_output("Out", from_f64(Tensor::from_vector<double>({2, 2}, {10, 22, 34, 46}), dtype), 0,
                   0);
  }
}

TEST(SumOp, Bfloat16SumsInFloat32) {
  // 256 + 1 + 1 = 258 exactly (a bfloat16 value); added in bfloat16 one by one, 256 + 1
  // would round back to 256.
  OpTest t("sum");
  for (double v : {256.0, 1.0, 1.0})
    t.input("X", from_f64(Tensor::from_vector<double>({1}, {v}), DType::kBF16));
  t.check_output("Out", from_f64(Tensor::from_vector<double>({1}, {258}), DType::kBF16), 0, 0);
}

TEST(SumOp, Gradient) {
  OpTest t("sum");
  t.input("X", random_tensor({3, 4}, DType::kF64, 1))
      .input("X", random_tensor({3, 4}, DType::kF64, 2))
      .input("X", random_tensor({3, 4}, DType::kF64, 3));
  t.check_grad({"X"});
}

TEST(SumOp, SkipsInputsWithoutValueAndAccumulatesInPlace) {
  Program p;
  BlockBuilder b(&p);
  std::string a = b.data("a", DType::kF32, {3});
  std::string c = b.data("c", DType::kF32, {3});
  b.data("never_set", DType::kF32, {3});
  b.op("sum", {{"X", {a, "never_set", c}}}, {{"Out", {"s"}}});
  b.op("sum", {{"X", {a, "s"}}}, {{"Out", {"s"}}});  // s += a, Out names an input
  Scope scope;
  auto out = Executor().run(p, &scope,
                            {{a, Tensor::from_vector<float>({3}, {1, 2, 3})},
                             {c, Tensor::from_vector<float>({3}, {0.5f, 0.5f, 0.5f})}},
                            {"s"});
  EXPECT_EQ(out[0].to_vector<float>(), std::vector<float>({2.5f, 4.5f, 6.5f}));
}

TEST(SumOp, TensorArraysEntryByEntry) {
  Program p;
  BlockBuilder b(&p);
  for (const char* n : {"a", "c"})
    b.block().add_var(VarDesc(n, DType::kF64, Shape{2}, VarKind::kTensorArray));
  std::string x = b.data("x", DType::kF64, {2});
  std::string y = b.data("y", DType::kF64, {2});
  std::string i0 = int64_constant(b, 0), i1 = int64_constant(b, 1), i2 = int64_constant(b, 2);
  b.op("write_to_array", {{"X", {x}}, {"I", {i0}}}, {{"Out", {"a"}}});
  b.op("write_to_array", {{"X", {y}}, {"I", {i1}}}, {{"Out", {"a"}}});
  b.op("write_to_array", {{"X", {y}}, {"I", {i0}}}, {{"Out", {"c"}}});
  b.op("write_to_array", {{"X", {x}}, {"I", {i2}}}, {{"Out", {"c"}}});
  b.op("sum", {{"X", {"a", "c"}}}, {{"Out", {"s"}}});
  EXPECT_EQ(p.global_block().find_local_var("s")->kind, VarKind::kTensorArray);
  Scope scope;
  feed(p, &scope, x, Tensor::from_vector<double>({2}, {1, 2}));
  feed(p, &scope, y, Tensor::from_vector<double>({2}, {10, 20}));
  Executor exe;
  auto prepared = exe.prepare(p, {"s"});
  exe.run(*prepared, &scope);
  const TensorArray* s = scope.find_var("s")->array();
  ASSERT_TRUE(s && s->size() == 3);
  EXPECT_EQ((*s)[0].to_vector<double>(), std::vector<double>({11, 22}));  // x + y
  EXPECT_EQ((*s)[1].to_vector<double>(), std::vector<double>({10, 20}));  // y only
  EXPECT_EQ((*s)[2].to_vector<double>(), std::vector<double>({1, 2}));    // x only
}

TEST(SumOp, Errors) {
  OpTest shapes("sum");
  shapes.input("X", random_tensor({2, 3}, DType::kF32, 1))
      .input("X", random_tensor({3, 2}, DType::kF32, 2));
  EXPECT_THROW(shapes.run(), Error);
  OpTest dtypes("sum");
  dtypes.input("X", random_tensor({2}, DType::kF32, 1))
      .input("X", random_tensor({2}, DType::kF64, 2));
  EXPECT_THROW(dtypes.run(), Error);
}

}  // namespace
}  // namespace skiff
