// where_index: coordinates of nonzero elements in row-major order for bool and
// numeric inputs, empty and rank-0 cases, and its declared shape.
#include <gtest/gtest.h>

#include <vector>

#include "tests/ops/shape_reference.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::declared_shape;
using testing::from_f64;
using testing::OpTest;

Tensor values(const Shape& shape, const std::vector<double>& v, DType dtype) {
  return from_f64(Tensor::from_vector<double>(shape, v), dtype);
}

OpTest where_index(const Tensor& c) {
  OpTest t("where_index");
  t.input("Condition", c);
  return t;
}

TEST(WhereIndexOp, CoordinatesInRowMajorOrder) {
  for (DType dt : {DType::kBool, DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor c = values({2, 3}, {0, 1, 0, 1, 1, 0}, dt);
    where_index(c).check_output("Out", Tensor::from_vector<int64_t>({3, 2}, {0, 1, 1, 0, 1, 1}), 0,
                                0);
  }
  where_index(values({4}, {0, 0, 0, 0}, DType::kBool))
      .check_output("Out", Tensor::from_vector<int64_t>({0, 1}, {}), 0, 0);
  where_index(values({}, {2}, DType::kF32))
      .check_output("Out", Tensor::from_vector<int64_t>({1, 0}, {}), 0, 0);
}

TEST(WhereIndexOp, DeclaredShape) {
  EXPECT_EQ(declared_shape("where_index", {{"Condition", DType::kBool, {-1, 4, 2}}}, {}),
            Shape({-1, 3}));
}

}  // namespace
}  // namespace skiff
