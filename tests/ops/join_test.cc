// concat, split and stack: values in every dtype against index references (including
// sizes that take the threaded path), shapes declared over -1 dims, gradients by finite
// differences (split's unused outputs get zero gradients), and errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/shape_reference.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::by_index;
using testing::declared_shape;
using testing::expect_error;
using testing::from_f64;
using testing::Index;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;
using Ints = std::vector<int64_t>;

constexpr DType kAllDTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};

OpTest multi_input_op(const std::string& type, const std::vector<Tensor>& xs, int64_t axis) {
  OpTest t(type);
  for (const Tensor& x : xs) t.input("X", x);
  t.attr("axis", axis);
  return t;
}

// xs joined along `axis` (non-negative), element by element.
Tensor concat_reference(const std::vector<Tensor>& xs, int axis) {
  Shape out = xs[0].shape();
  out[axis] = 0;
  for (const Tensor& x : xs) out[axis] += x.dim(axis);
  std::vector<Tensor> parts;
  parts.reserve(xs.size());
  for (const Tensor& x : xs) parts.push_back(to_f64(x));
  Tensor r = Tensor::empty(out, DType::kF64);
  Index idx(out.rank());
  for (int64_t k = 0; k < r.numel(); ++k) {
    int64_t rest = k;
    for (int d = out.rank() - 1; d >= 0; --d) {
      idx[d] = rest % out[d];
      rest /= out[d];
    }
    size_t part = 0;
    while (idx[axis] >= xs[part].dim(axis)) idx[axis] -= xs[part++].dim(axis);
    r.data<double>()[k] = parts[part].data<double>()[testing::flat_offset(xs[part].shape(), idx)];
  }
  return from_f64(r, xs[0].dtype());
}

// ---- concat ----

TEST(ConcatOp, MatchesReferenceInEveryDtype) {
  struct Case {
    std::vector<Shape> xs;
    int64_t axis;
  };
  const Case cases[] = {
      {{{2, 3}, {2, 1}, {2, 4}}, 1}, {{{2, 3}, {2, 1}, {2, 4}}, -1}, {{{1, 3}, {4, 3}}, 0},
      {{{2, 3, 4}, {2, 2, 4}}, 1},   {{{2, 3, 1}, {2, 3, 2}}, 2},    {{{5}}, 0},
      {{{2, 0}, {2, 3}}, 1},         {{{300, 200}, {300, 100}}, 1},  {{{40000}, {30000}, {1}}, 0}};
  for (const Case& c : cases) {
    for (DType dtype : kAllDTypes) {
      SCOPED_TRACE(str_cat(c.xs[0], " + ... axis ", c.axis, " ", dtype_name(dtype)));
      std::vector<Tensor> xs;
      for (size_t i = 0; i < c.xs.size(); ++i)
        xs.push_back(random_tensor(c.xs[i], dtype, i, -9, 9));
      const int axis = static_cast<int>(c.axis < 0 ? c.axis + c.xs[0].rank() : c.axis);
      multi_input_op("concat", xs, c.axis).check_output("Out", concat_reference(xs, axis), 0, 0);
    }
  }
}

TEST(ConcatOp, ShapesDeclaredOverUnknownDims) {
  auto declared = [](const std::vector<Shape>& xs, int64_t axis) {
    std::vector<testing::DeclaredInput> ins;
    ins.reserve(xs.size());
    for (const Shape& s : xs) ins.push_back({"X", DType::kF32, s});
    return declared_shape("concat", ins, {{"axis", axis}});
  };
  EXPECT_EQ(declared({{-1, 3}, {-1, 4}}, 1), Shape({-1, 7}));
  EXPECT_EQ(declared({{-1, 3}, {2, 3}}, 0), Shape({-1, 3}));
  EXPECT_EQ(declared({{2, -1}, {2, 3}}, 0), Shape({4, 3}));
}

TEST(ConcatOp, GradientMatchesFiniteDifferences) {
  multi_input_op("concat",
                 {random_tensor({2, 3}, DType::kF64, 1), random_tensor({2, 1}, DType::kF64, 2),
                  random_tensor({2, 2}, DType::kF64, 3)},
                 -1)
      .check_grad({"X"});
  multi_input_op(
      "concat",
      {random_tensor({1, 2, 2}, DType::kF64, 4), random_tensor({2, 2, 2}, DType::kF64, 5)}, 0)
      .check_grad({"X"});
}

TEST(ConcatOp, Errors) {
  Tensor a = random_tensor({2, 3}, DType::kF32, 1);
  expect_error(multi_input_op("concat", {a, random_tensor({3, 3}, DType::kF32, 2)}, 1),
               {"concat", "[3, 3]", "[2, 3]", "axis 1"});
  expect_error(multi_input_op("concat", {a, random_tensor({2, 3, 1}, DType::kF32, 3)}, 0),
               {"[2, 3, 1]", "ranks"});
  expect_error(multi_input_op("concat", {a, random_tensor({2, 3}, DType::kF64, 4)}, 0),
               {"float64", "float32"});
  expect_error(multi_input_op("concat", {a, a}, 2), {"axis 2", "[2, 3]"});
}

// ---- split ----

OpTest split_op(const Tensor& x, int outputs, const AttrList& attrs) {
  OpTest t("split");
  t.input("X", x).output("Out", outputs);
  for (const auto& [name, value] : attrs) t.attr(name, value);
  return t;
}

// The part of x along `axis` from `begin`, `size` entries long.
Tensor part_of(const Tensor& x, int axis, int64_t begin, int64_t size) {
  Shape s = x.shape();
  s[axis] = size;
  return by_index(x, s, [&](const Index& i) {
    Index j = i;
    j[axis] += begin;
    return testing::flat_offset(x.shape(), j);
  });
}

TEST(SplitOp, MatchesReferenceInEveryDtype) {
  struct Case {
    Shape x;
    AttrList attrs;
    int axis;
    Ints sizes;
  };
  const Case cases[] = {
      {{2, 6}, {{"num", int64_t{3}}, {"axis", int64_t{1}}}, 1, {2, 2, 2}},
      {{2, 3, 5}, {{"sections", Ints{1, -1, 2}}, {"axis", int64_t{-1}}}, 2, {1, 2, 2}},
      {{4, 3}, {{"sections", Ints{3, 1}}}, 0, {3, 1}},
      {{4, 3}, {{"sections", Ints{0, 3}}, {"axis", int64_t{1}}}, 1, {0, 3}},
      {{300, 300}, {{"num", int64_t{2}}, {"axis", int64_t{1}}}, 1, {150, 150}},
  };
  for (const Case& c : cases) {
    for (DType dtype : kAllDTypes) {
      SCOPED_TRACE(str_cat(c.x, " axis ", c.axis, " ", dtype_name(dtype)));
      Tensor x = random_tensor(c.x, dtype, 6, -9, 9);
      OpTest t = split_op(x, static_cast<int>(c.sizes.size()), c.attrs);
      int64_t begin = 0;
      for (size_t i = 0; i < c.sizes.size(); ++i) {
        t.check_output("Out", part_of(x, c.axis, begin, c.sizes[i]), 0, 0, static_cast<int>(i));
        begin += c.sizes[i];
      }
    }
  }
}

TEST(SplitOp, ShapesDeclaredOverUnknownDims) {
  auto declared = [](const Shape& x, int outs, int i, const AttrList& attrs) {
    return declared_shape("split", {{"X", DType::kF32, x}}, attrs, "Out", outs, i);
  };
  const AttrList halves = {{"num", int64_t{2}}, {"axis", int64_t{1}}};
  EXPECT_EQ(declared({-1, 6}, 2, 1, halves), Shape({-1, 3}));
  EXPECT_EQ(declared({4, -1}, 2, 0, halves), Shape({4, -1}));
  const AttrList rest = {{"sections", Ints{1, -1}}, {"axis", int64_t{1}}};
  EXPECT_EQ(declared({4, -1}, 2, 0, rest), Shape({4, 1}));
  EXPECT_EQ(declared({4, -1}, 2, 1, rest), Shape({4, -1}));
  EXPECT_EQ(declared({-1, 5}, 2, 1, rest), Shape({-1, 4}));
}

TEST(SplitOp, GradientsMatchFiniteDifferences) {
  // Out[0] only: the other parts' gradients are zero-filled.
  split_op(random_tensor({2, 5}, DType::kF64, 7), 3,
           {{"sections", Ints{2, 1, 2}}, {"axis", int64_t{1}}})
      .check_grad({"X"});
  split_op(random_tensor({4, 3}, DType::kF64, 8), 2, {{"num", int64_t{2}}}).check_grad({"X"});
}

TEST(SplitOp, Errors) {
  Tensor x = random_tensor({2, 5}, DType::kF32, 9);
  expect_error(split_op(x, 2, {{"num", int64_t{2}}, {"axis", int64_t{1}}}),
               {"split", "[2, 5]", "2 equal parts"});
  expect_error(split_op(x, 2, {{"sections", Ints{2, 2}}, {"axis", int64_t{1}}}),
               {"[2, 2]", "add up to 4", "[2, 5]"});
  expect_error(split_op(x, 2, {{"sections", Ints{-1, -1}}, {"axis", int64_t{1}}}),
               {"more than one -1"});
  expect_error(split_op(x, 3, {{"num", int64_t{2}}}), {"2 parts", "Out has 3"});
  expect_error(split_op(x, 1, {}), {"num > 0", "sections"});
}

// ---- stack ----

Tensor stack_reference(const std::vector<Tensor>& xs, int axis) {
  std::vector<Tensor> parts;
  for (const Tensor& x : xs) {
    std::vector<int64_t> dims = x.shape().vec();
    dims.insert(dims.begin() + axis, 1);
    parts.push_back(testing::reshaped(x, Shape(dims)));
  }
  return concat_reference(parts, axis);
}

TEST(StackOp, MatchesReferenceInEveryDtype) {
  for (int64_t axis : {0, 1, 2, -1, -3}) {
    for (DType dtype : kAllDTypes) {
      SCOPED_TRACE(str_cat("axis ", axis, " ", dtype_name(dtype)));
      std::vector<Tensor> xs;
      xs.reserve(3);
      for (int i = 0; i < 3; ++i) xs.push_back(random_tensor({2, 4}, dtype, 10 + i, -9, 9));
      OpTest t = multi_input_op("stack", xs, axis);
      t.output("Y");
      t.check_output("Y", stack_reference(xs, static_cast<int>(axis < 0 ? axis + 3 : axis)), 0, 0);
    }
  }
  OpTest scalars = multi_input_op("stack", {Tensor::scalar(1.0f), Tensor::scalar(2.0f)}, 0);
  scalars.output("Y").check_output("Y", Tensor::from_vector<float>({2}, {1, 2}), 0, 0);
}

TEST(StackOp, ShapesDeclaredOverUnknownDims) {
  EXPECT_EQ(declared_shape("stack", {{"X", DType::kF32, {-1, 3}}, {"X", DType::kF32, {2, 3}}},
                           {{"axis", int64_t{1}}}, "Y"),
            Shape({2, 2, 3}));
  EXPECT_EQ(declared_shape("stack", {{"X", DType::kF32, {-1, 3}}}, {{"axis", int64_t{-1}}}, "Y"),
            Shape({-1, 3, 1}));
}

TEST(StackOp, GradientMatchesFiniteDifferences) {
  OpTest t = multi_input_op(
      "stack", {random_tensor({2, 3}, DType::kF64, 14), random_tensor({2, 3}, DType::kF64, 15)}, 1);
  t.output("Y").check_grad({"X"}, "Y");
}

TEST(StackOp, Errors) {
  OpTest t = multi_input_op(
      "stack", {random_tensor({2, 3}, DType::kF32, 16), random_tensor({3, 2}, DType::kF32, 17)}, 0);
  t.output("Y");
  expect_error(t, {"stack", "[3, 2]", "[2, 3]"});
  OpTest far = multi_input_op("stack", {random_tensor({2, 3}, DType::kF32, 18)}, 3);
  far.output("Y");
  expect_error(far, {"axis 3", "[2, 3]"});
}

}  // namespace
}  // namespace skiff
