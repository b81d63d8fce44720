// unique and unique_consecutive: flattened and along an axis (slices compared
// lexicographically, outer dims gathered), every optional output, int32 and int64 index
// dtypes, every value dtype, NaNs, empty inputs, declared shapes and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/ops/shape_reference.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::declared_shape;
using testing::expect_error;
using testing::from_f64;
using testing::OpTest;

OpTest unique_op(const std::string& type, const Tensor& x, std::vector<int64_t> axis,
                 const std::string& dtype = "int64") {
  OpTest t(type);
  t.input("X", x).attr("axis", axis).attr("dtype", dtype);
  t.output("Out");
  if (type == "unique") t.output("Indices");
  t.output("Index").output("Counts");
  return t;
}

template <typename T>
Tensor vec(Shape shape, std::vector<T> values) {
  return Tensor::from_vector<T>(shape, values);
}

TEST(UniqueOp, FlattenedInEveryDtype) {
  for (DType dtype : {DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    SCOPED_TRACE(dtype_name(dtype));
    const Tensor x = from_f64(vec<double>({3, 3}, {2, 3, 3, 1, 5, 3, 2, 3, 3}), dtype);
    OpTest t = unique_op("unique", x, {});
    t.check_output("Out", from_f64(vec<double>({4}, {1, 2, 3, 5}), dtype), 0, 0);
    t.check_output("Indices", vec<int64_t>({4}, {3, 0, 1, 4}), 0, 0);
    t.check_output("Index", vec<int64_t>({9}, {1, 2, 2, 0, 3, 2, 1, 2, 2}), 0, 0);
    t.check_output("Counts", vec<int64_t>({4}, {1, 2, 5, 1}), 0, 0);
  }
}

TEST(UniqueOp, SlicesAlongAnAxis) {
  const Tensor x = vec<int64_t>({3, 3}, {2, 3, 3, 1, 5, 3, 2, 3, 3});
  OpTest rows = unique_op("unique", x, {0}, "int32");
  rows.check_output("Out", vec<int64_t>({2, 3}, {1, 5, 3, 2, 3, 3}), 0, 0);
  rows.check_output("Indices", vec<int32_t>({2}, {1, 0}), 0, 0);
  rows.check_output("Index", vec<int32_t>({3}, {1, 0, 1}), 0, 0);
  rows.check_output("Counts", vec<int32_t>({2}, {1, 2}), 0, 0);
  // Columns: [2, 1, 2], [3, 5, 3], [3, 3, 3] -> sorted [2, 1, 2] < [3, 3, 3] < [3, 5, 3].
  OpTest cols = unique_op("unique", x, {-1});
  cols.check_output("Out", vec<int64_t>({3, 3}, {2, 3, 3, 1, 3, 5, 2, 3, 3}), 0, 0);
  cols.check_output("Indices", vec<int64_t>({3}, {0, 2, 1}), 0, 0);
  cols.check_output("Index", vec<int64_t>({3}, {0, 2, 1}), 0, 0);
  cols.check_output("Counts", vec<int64_t>({3}, {1, 1, 1}), 0, 0);
  // A middle axis with outer and inner dims: slices [2, 2] of a [2, 3, 2] tensor.
  const Tensor y = vec<float>({2, 3, 2}, {1, 2, 0, 0, 1, 2, 3, 4, 0, 0, 3, 4});
  OpTest mid = unique_op("unique", y, {1});
  mid.check_output("Out", vec<float>({2, 2, 2}, {0, 0, 1, 2, 0, 0, 3, 4}), 0, 0);
  mid.check_output("Index", vec<int64_t>({3}, {1, 0, 1}), 0, 0);
  mid.check_output("Counts", vec<int64_t>({2}, {1, 2}), 0, 0);
}

TEST(UniqueOp, NansAreEachDistinctAndLast) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  OpTest t = unique_op("unique", vec<double>({5}, {2, nan, 1, nan, 2}), {});
  const Tensor out = t.run().at("Out")[0];
  ASSERT_EQ(out.shape(), Shape({4}));
  EXPECT_EQ(out.data<double>()[0], 1);
  EXPECT_EQ(out.data<double>()[1], 2);
  EXPECT_TRUE(std::isnan(out.data<double>()[2]) && std::isnan(out.data<double>()[3]));
  t.check_output("Counts", vec<int64_t>({4}, {1, 2, 1, 1}), 0, 0);
}

TEST(UniqueOp, EmptyAndScalarInputs) {
  OpTest empty = unique_op("unique", vec<float>({0}, {}), {});
  empty.check_output("Out", vec<float>({0}, {}), 0, 0);
  empty.check_output("Counts", vec<int64_t>({0}, {}), 0, 0);
  OpTest scalar = unique_op("unique", Tensor::scalar<int32_t>(5), {});
  scalar.check_output("Out", vec<int32_t>({1}, {5}), 0, 0);
  scalar.check_output("Index", vec<int64_t>({1}, {0}), 0, 0);
}

TEST(UniqueConsecutiveOp, MergesRunsInOrder) {
  const Tensor x = vec<int32_t>({3, 3}, {1, 1, 2, 1, 1, 2, 3, 3, 3});
  OpTest flat = unique_op("unique_consecutive", x, {});
  flat.check_output("Out", vec<int32_t>({5}, {1, 2, 1, 2, 3}), 0, 0);
  flat.check_output("Index", vec<int64_t>({9}, {0, 0, 1, 2, 2, 3, 4, 4, 4}), 0, 0);
  flat.check_output("Counts", vec<int64_t>({5}, {2, 1, 2, 1, 3}), 0, 0);
  OpTest rows = unique_op("unique_consecutive", x, {0});
  rows.check_output("Out", vec<int32_t>({2, 3}, {1, 1, 2, 3, 3, 3}), 0, 0);
  rows.check_output("Index", vec<int64_t>({3}, {0, 0, 1}), 0, 0);
  rows.check_output("Counts", vec<int64_t>({2}, {2, 1}), 0, 0);
  OpTest cols = unique_op("unique_consecutive", testing::to_f64(x), {1}, "int32");
  cols.check_output("Out", vec<double>({3, 2}, {1, 2, 1, 2, 3, 3}), 0, 0);
  cols.check_output("Index", vec<int32_t>({3}, {0, 0, 1}), 0, 0);
  cols.check_output("Counts", vec<int32_t>({2}, {2, 1}), 0, 0);
}

TEST(UniqueOps, WithoutOptionalOutputs) {
  OpTest t("unique");
  t.input("X", vec<float>({4}, {3, 1, 3, 0}));
  t.check_output("Out", vec<float>({3}, {0, 1, 3}), 0, 0);
}

TEST(UniqueOps, DeclaredShapes) {
  for (const char* type : {"unique", "unique_consecutive"}) {
    SCOPED_TRACE(type);
    const std::vector<testing::DeclaredInput> x = {{"X", DType::kF32, {4, 5}}};
    EXPECT_EQ(declared_shape(type, x, {{"axis", std::vector<int64_t>{}}}), Shape({-1}));
    EXPECT_EQ(declared_shape(type, x, {{"axis", std::vector<int64_t>{1}}}), Shape({4, -1}));
    EXPECT_EQ(declared_shape(type, x, {{"axis", std::vector<int64_t>{}}}, "Index"), Shape({20}));
    EXPECT_EQ(declared_shape(type, x, {{"axis", std::vector<int64_t>{-2}}}, "Index"), Shape({4}));
    EXPECT_EQ(declared_shape(type, x, {}, "Counts"), Shape({-1}));
  }
}

TEST(UniqueOps, Errors) {
  const Tensor x = vec<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_error(unique_op("unique", x, {2}), {"unique", "axis 2", "[2, 3]"});
  expect_error(unique_op("unique", x, {0, 1}), {"unique", "one axis", "[0, 1]"});
  expect_error(unique_op("unique_consecutive", x, {}, "float32"),
               {"unique_consecutive", "int32 or int64", "float32"});
  expect_error(unique_op("unique", testing::random_tensor({2}, DType::kBool, 1), {}),
               {"unique", "bool"});
}

}  // namespace
}  // namespace skiff
