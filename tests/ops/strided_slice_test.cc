// strided_slice and set_value: values in every dtype against hand-computed results
// (negative steps, clamped and open bounds, decreased axes, empty boxes, broadcast
// values, in place), declared shapes over -1 dims, gradients, and errors.
#include <gtest/gtest.h>

#include <vector>

#include "tests/ops/shape_reference.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::declared_shape;
using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using Ints = std::vector<int64_t>;

constexpr DType kAllDTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};
constexpr int64_t kBig = int64_t{1} << 62;

// 0, 1, 2, ... in `shape` (bool: alternating), as `dtype`.
Tensor iota(const Shape& shape, DType dtype) {
  std::vector<double> v(static_cast<size_t>(shape.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = dtype == DType::kBool ? double(i % 2) : double(i);
  return from_f64(Tensor::from_vector<double>(shape, v), dtype);
}

Tensor values(const Shape& shape, const std::vector<double>& v, DType dtype) {
  return from_f64(Tensor::from_vector<double>(shape, v), dtype);
}

OpTest strided(const Tensor& x, Ints axes, Ints starts, Ints ends, Ints strides, Ints drop = {}) {
  OpTest t("strided_slice");
  t.input("Input", x).attr("axes", axes).attr("starts", starts).attr("ends", ends);
  t.attr("strides", strides).attr("decrease_axis", drop);
  return t;
}

OpTest set_value(const Tensor& x, const Tensor& v, Ints axes, Ints starts, Ints ends, Ints steps,
                 Ints drop = {}) {
  OpTest t("set_value");
  t.input("Input", x).input("ValueTensor", v).attr("axes", axes).attr("starts", starts);
  t.attr("ends", ends).attr("steps", steps).attr("decrease_axes", drop);
  return t;
}

TEST(StridedSliceOp, MatchesPythonSlicesInEveryDtype) {
  for (DType dt : kAllDTypes) {
    SCOPED_TRACE(dtype_name(dt));
    const bool b = dt == DType::kBool;
    const Tensor x = iota({3, 4}, dt);  // [[0 1 2 3] [4 5 6 7] [8 9 10 11]]
    auto expect = [&](const Shape& s, std::vector<double> v) {
      if (b)
        for (double& e : v) e = double(int64_t(e) % 2);
      return values(s, v, dt);
    };
    // x[::-1, ::2]
    strided(x, {0, 1}, {kBig, 0}, {-kBig, kBig}, {-1, 2})
        .check_output("Out", expect({3, 2}, {8, 10, 4, 6, 0, 2}), 0, 0);
    // x[1, -1:0:-2] (decrease axis 0)
    strided(x, {0, 1}, {1, -1}, {2, 0}, {1, -2}, {0})
        .check_output("Out", expect({2}, {7, 5}), 0, 0);
    // x[:, 5:1:-1] (start clamps to the last entry)
    strided(x, {1}, {5}, {1}, {-1}).check_output("Out", expect({3, 2}, {3, 2, 7, 6, 11, 10}), 0, 0);
    // x[2:0] (empty)
    strided(x, {0}, {2}, {0}, {1}).check_output("Out", expect({0, 4}, {}), 0, 0);
  }
}

TEST(StridedSliceOp, LargeTensorUsesTheThreadedCopy) {
  const Tensor x = iota({400, 300}, DType::kF64);
  std::vector<double> want;
  for (int r = 399; r >= 0; r -= 3)
    for (int c = 1; c < 300; c += 2) want.push_back(r * 300 + c);
  strided(x, {0, 1}, {-1, 1}, {-kBig, kBig}, {-3, 2})
      .check_output("Out", values({134, 150}, want, DType::kF64), 0, 0);
}

TEST(StridedSliceOp, ShapesDeclaredOverUnknownDims) {
  auto declared = [](const Shape& x, Ints axes, Ints starts, Ints ends, Ints strides, Ints drop) {
    return declared_shape("strided_slice", {{"Input", DType::kF32, x}},
                          {{"axes", axes},
                           {"starts", starts},
                           {"ends", ends},
                           {"strides", strides},
                           {"decrease_axis", drop}});
  };
  EXPECT_EQ(declared({-1, 6}, {1}, {0}, {kBig}, {2}, {}), Shape({-1, 3}));
  EXPECT_EQ(declared({-1, 6}, {0, 1}, {0, 1}, {1, 2}, {1, 1}, {1}), Shape({-1}));
}

TEST(StridedSliceOp, GradientMatchesFiniteDifferences) {
  const Tensor x = random_tensor({4, 5, 3}, DType::kF64, 4);
  strided(x, {0, 1}, {-1, 0}, {-kBig, kBig}, {-2, 3}).check_grad({"Input"});
  strided(x, {2}, {1}, {2}, {1}, {2}).check_grad({"Input"});
}

TEST(StridedSliceOp, Errors) {
  const Tensor x = random_tensor({4, 5}, DType::kF32, 5);
  expect_error(strided(x, {0}, {0}, {1}, {0}), {"strided_slice", "step of axis 0 is 0"});
  expect_error(strided(x, {0, 0}, {0, 0}, {1, 1}, {1, 1}), {"axis 0 is given twice"});
  expect_error(strided(x, {2}, {0}, {1}, {1}), {"axis 2 is out of range", "[4, 5]"});
  expect_error(strided(x, {0}, {0}, {3}, {1}, {0}), {"decreased axis 0", "selects 3"});
  expect_error(strided(x, {0}, {0, 1}, {1}, {1}), {"one entry each"});
}

TEST(SetValueOp, WritesTheBoxInEveryDtype) {
  for (DType dt : kAllDTypes) {
    SCOPED_TRACE(dtype_name(dt));
    const double a = 1, b = dt == DType::kBool ? 1 : 5;
    const Tensor x = values({2, 3}, {0, 0, 0, 0, 0, 0}, dt);
    // x[:, ::2] = [a, b], broadcast over both rows
    set_value(x, values({2}, {a, b}, dt), {1}, {0}, {kBig}, {2})
        .check_output("Out", values({2, 3}, {a, 0, b, a, 0, b}, dt), 0, 0);
  }
}

TEST(SetValueOp, IntegerIndexAndNegativeStep) {
  const Tensor x = iota({3, 4}, DType::kF32);
  // x[-1, ::-1] = [10, 20, 30, 40]
  set_value(x, values({4}, {10, 20, 30, 40}, DType::kF32), {0, 1}, {-1, kBig}, {kBig, -kBig},
            {1, -1}, {0})
      .check_output("Out", values({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 40, 30, 20, 10}, DType::kF32));
  // x[1:3, 1] = 0-d 9
  set_value(x, Tensor::scalar<float>(9), {0, 1}, {1, 1}, {3, 2}, {1, 1}, {1})
      .check_output("Out", values({3, 4}, {0, 1, 2, 3, 4, 9, 6, 7, 8, 9, 10, 11}, DType::kF32));
  // an empty box leaves x as it is
  set_value(x, Tensor::scalar<float>(9), {0}, {2}, {1}, {1}).check_output("Out", x);
}

TEST(SetValueOp, GradientMatchesFiniteDifferences) {
  const Tensor x = random_tensor({4, 5}, DType::kF64, 6);
  set_value(x, random_tensor({3}, DType::kF64, 7), {0, 1}, {-1, 0}, {-kBig, kBig}, {-2, 2})
      .check_grad({"Input", "ValueTensor"});
  set_value(x, random_tensor({1, 5}, DType::kF64, 8), {0}, {1}, {3}, {1})
      .check_grad({"Input", "ValueTensor"});
  set_value(x, random_tensor({5}, DType::kF64, 9), {0}, {2}, {3}, {1}, {0})
      .check_grad({"Input", "ValueTensor"});
}

TEST(SetValueOp, Errors) {
  const Tensor x = random_tensor({4, 5}, DType::kF32, 10);
  expect_error(set_value(x, random_tensor({3}, DType::kF32, 1), {1}, {0}, {kBig}, {1}),
               {"set_value", "[3]", "cannot be broadcast", "[4, 5]"});
  expect_error(set_value(x, random_tensor({5}, DType::kF64, 1), {0}, {0}, {1}, {1}),
               {"set_value", "float64", "float32"});
}

}  // namespace
}  // namespace skiff
