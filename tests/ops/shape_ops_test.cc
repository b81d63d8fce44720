// reshape and transpose: values in every claimed dtype (transpose against an index
// reference, including size-1 dims and the tiled and threaded sizes), shape inference
// with 0 / -1 in the spec and unknown dims, gradients by finite differences, errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "skiff/kernels/cpu/reshape.h"
#include "skiff/kernels/cpu/transpose.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;

using testing::OpTest;
using testing::random_tensor;

constexpr DType kDTypes[] = {DType::kF32, DType::kF64, DType::kI32,
                             DType::kI64, DType::kI8,  DType::kBF16};

OpTest reshape_op(const Tensor& x, const std::vector<int64_t>& shape) {
  OpTest t("reshape");
  t.input("X", x).attr("shape", shape);
  return t;
}

OpTest transpose_op(const Tensor& x, const std::vector<int64_t>& axis) {
  OpTest t("transpose");
  t.input("X", x).attr("axis", axis);
  return t;
}

// ---- reshape ----

TEST(ReshapeOp, KeepsElementOrderInEveryDtype) {
  struct Case {
    std::vector<int64_t> spec;
    Shape want;
  };
  const Case cases[] = {{{0, -1}, {2, 12}},       {{-1}, {24}},
                        {{4, 0, 2}, {4, 3, 2}},   {{2, 3, 4}, {2, 3, 4}},
                        {{1, 24, 1}, {1, 24, 1}}, {{0, 0, -1, 2}, {2, 3, 2, 2}}};
  for (DType dtype : kDTypes) {
    for (const Case& c : cases) {
      SCOPED_TRACE(str_cat(dtype_name(dtype), " -> ", c.want));
      Tensor x = random_tensor({2, 3, 4}, dtype, 1, -9, 9);
      Tensor want = x.clone();
      want.reshape(c.want);
      reshape_op(x, c.spec).check_output("Out", want, 0, 0);
    }
  }
}

TEST(ReshapeOp, ShapeInferenceWithUnknownDims) {
  EXPECT_EQ(kernels::reshape_shape({-1, 3, 4}, {0, 12}), Shape({-1, 12}));
  EXPECT_EQ(kernels::reshape_shape({-1, 3, 4}, {0, -1}), Shape({-1, 12}));
  EXPECT_EQ(kernels::reshape_shape({-1, 3, 4}, {-1, 4}), Shape({-1, 4}));
  EXPECT_EQ(kernels::reshape_shape({-1, 3, 4}, {6, -1}), Shape({6, -1}));
  EXPECT_EQ(kernels::reshape_shape({1, 1}, {}), Shape({}));
  EXPECT_EQ(kernels::reshape_shape({0, 5}, {-1, 5}), Shape({0, 5}));
}

TEST(ReshapeOp, Errors) {
  Tensor x = random_tensor({2, 3, 4}, DType::kF32, 2);
  expect_error(reshape_op(x, {5, -1}), {"[2, 3, 4]", "[5, -1]"});
  expect_error(reshape_op(x, {5, 5}), {"[2, 3, 4]", "[5, 5]"});
  expect_error(reshape_op(x, {-1, -1}), {"more than one -1"});
  expect_error(reshape_op(x, {0, 0, 0, 0}), {"rank 3"});
  expect_error(reshape_op(x, {-2, 12}), {"-2"});
}

TEST(ReshapeOp, GradientMatchesFiniteDifferences) {
  reshape_op(random_tensor({2, 3, 2}, DType::kF64, 3), {3, -1}).check_grad({"X"});
}

// ---- transpose ----

// out[i] = x[perm[i]] by index arithmetic, as float64.
Tensor reference_transpose(const Tensor& x, const std::vector<int>& perm) {
  const Tensor a = testing::to_f64(x);
  const Shape& s = x.shape();
  const Shape out_shape = kernels::transposed_shape(s, perm);
  const Shape in_strides = x.strides();
  Tensor out = Tensor::empty(out_shape, DType::kF64);
  std::vector<int64_t> idx(out_shape.rank(), 0);
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t rest = i, src = 0;
    for (int d = out_shape.rank() - 1; d >= 0; --d) {
      idx[d] = rest % out_shape[d];
      rest /= out_shape[d];
    }
    for (int d = 0; d < out_shape.rank(); ++d) src += idx[d] * in_strides[perm[d]];
    out.data<double>()[i] = a.data<double>()[src];
  }
  return out;
}

TEST(TransposeOp, MatchesReferenceInEveryDtype) {
  struct Case {
    Shape x;
    std::vector<int64_t> axis;
  };
  const Case cases[] = {{{2, 3}, {1, 0}},
                        {{2, 3, 4}, {1, 0, 2}},
                        {{2, 3, 4}, {2, 0, 1}},
                        {{2, 3, 4}, {0, 2, 1}},
                        {{2, 3, 4}, {-1, 0, 1}},
                        {{2, 3, 4}, {0, 1, 2}},
                        {{1, 5, 1, 3}, {3, 2, 1, 0}},
                        {{4, 1, 3}, {1, 2, 0}},
                        {{}, {}},
                        {{7}, {0}},
                        {{300, 200}, {1, 0}},
                        {{6, 70, 90}, {0, 2, 1}},
                        {{20, 30, 40, 5}, {2, 0, 3, 1}}};
  for (DType dtype : kDTypes) {
    for (const Case& c : cases) {
      SCOPED_TRACE(str_cat(dtype_name(dtype), " ", c.x, " axis size ", c.axis.size()));
      Tensor x = random_tensor(c.x, dtype, 4, -9, 9);
      const auto perm = kernels::transpose_permutation(c.axis, c.x.rank());
      transpose_op(x, c.axis).check_output(
          "Out", testing::from_f64(reference_transpose(x, perm), dtype), 0, 0);
    }
  }
}

TEST(TransposeOp, ShapeInferenceKeepsUnknownDims) {
  const auto perm = kernels::transpose_permutation({1, 0}, 2);
  EXPECT_EQ(kernels::transposed_shape({-1, 16}, perm), Shape({16, -1}));
}

TEST(TransposeOp, GradientsMatchFiniteDifferences) {
  transpose_op(random_tensor({2, 3, 4}, DType::kF64, 5), {2, 0, 1}).check_grad({"X"});
  transpose_op(random_tensor({3, 2}, DType::kF64, 6), {1, 0}).check_grad({"X"});
}

TEST(TransposeOp, Errors) {
  Tensor x = random_tensor({2, 3, 4}, DType::kF32, 7);
  EXPECT_THROW(transpose_op(x, {0, 1}).run(), Error);
  expect_error(transpose_op(x, {0, 1}), {"[0, 1]", "rank-3"});
  expect_error(transpose_op(x, {0, 1, 1}), {"[0, 1, 1]", "repeats"});
  expect_error(transpose_op(x, {0, 1, 3}), {"[0, 1, 3]", "out of range"});
}

}  // namespace
}  // namespace skiff
