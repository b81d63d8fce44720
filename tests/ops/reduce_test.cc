// reduce_sum and reduce_mean: values against a float64 reference for every dim list and
// keep_dim in each claimed dtype (small shapes and the threaded sizes), rank-0 results,
// gradients by finite differences, shape inference with unknown dims, and errors.
#include "skiff/kernels/cpu/reduce.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

// Sum (or mean) of x over `axes`, keeping the reduced dims as 1, in float64.
Tensor reference_reduce(const Tensor& x, uint32_t axes, bool mean) {
  const Tensor a = to_f64(x);
  const Shape& s = x.shape();
  const Shape kept = kernels::reduced_shape(s, axes, true);
  Tensor out = Tensor::zeros(kept, DType::kF64);
  std::vector<int64_t> idx(s.rank(), 0);
  for (int64_t i = 0; i < a.numel(); ++i) {
    int64_t rest = i, o = 0;
    for (int d = s.rank() - 1; d >= 0; --d) {
      idx[d] = rest % s[d];
      rest /= s[d];
    }
    for (int d = 0; d < s.rank(); ++d) o = o * kept[d] + (((axes >> d) & 1u) ? 0 : idx[d]);
    out.data<double>()[o] += a.data<double>()[i];
  }
  if (mean) {
    int64_t count = 1;
    for (int d = 0; d < s.rank(); ++d)
      if ((axes >> d) & 1u) count *= s[d];
    for (int64_t i = 0; i < out.numel(); ++i) out.data<double>()[i] /= static_cast<double>(count);
  }
  return out;
}

struct Case {
  Shape x;
  std::vector<int64_t> dim;
  bool reduce_all = false;
};

OpTest reduce_op(const char* type, const Tensor& x, const Case& c, bool keep_dim) {
  OpTest t(type);
  t.input("X", x).attr("dim", c.dim).attr("keep_dim", keep_dim).attr("reduce_all", c.reduce_all);
  return t;
}

const Case kCases[] = {
    {{2, 3, 4}, {}},
    {{2, 3, 4}, {0}},
    {{2, 3, 4}, {1}},
    {{2, 3, 4}, {2}},
    {{2, 3, 4}, {-1}},
    {{2, 3, 4}, {0, 2}},
    {{2, 3, 4}, {2, -3}},
    {{2, 3, 4}, {1, 2}},
    {{2, 3, 4}, {1}, true},
    {{5}, {0}},
    {{1, 16}, {1}},
    {{2, 1, 3, 1}, {1, 2}},
    {{}, {}},
    {{4, 0, 3}, {1}},
    {{300, 300}, {}},
    {{300, 300}, {0}},
    {{300, 300}, {1}},
    {{3, 40000}, {1}},
    {{40000, 3}, {0}},
    {{20, 30, 200}, {0, 2}},
};

TEST(ReduceOps, SumMatchesReferenceInEveryDtype) {
  for (DType dtype : {DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    for (const Case& c : kCases) {
      for (bool keep_dim : {false, true}) {
        SCOPED_TRACE(str_cat(dtype_name(dtype), " ", c.x, " dim size ", c.dim.size(), " keep_dim ",
                             keep_dim));
        const double lo = dtype == DType::kF32 || dtype == DType::kF64 ? -1 : -50;
        Tensor x = random_tensor(c.x, dtype, 1, lo, -lo);
        const uint32_t axes = kernels::reduce_axes(c.x.rank(), c.dim, c.reduce_all);
        Tensor want = reference_reduce(x, axes, false);
        want.reshape(kernels::reduced_shape(c.x, axes, keep_dim));
        reduce_op("reduce_sum", x, c, keep_dim)
            .check_output("Out", from_f64(want, dtype), 1e-4, 1e-5);
      }
    }
  }
}

TEST(ReduceOps, MeanMatchesReference) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    for (const Case& c : kCases) {
      for (bool keep_dim : {false, true}) {
        SCOPED_TRACE(str_cat(dtype_name(dtype), " ", c.x, " keep_dim ", keep_dim));
        Tensor x = random_tensor(c.x, dtype, 2);
        const uint32_t axes = kernels::reduce_axes(c.x.rank(), c.dim, c.reduce_all);
        Tensor want = reference_reduce(x, axes, true);
        want.reshape(kernels::reduced_shape(c.x, axes, keep_dim));
        reduce_op("reduce_mean", x, c, keep_dim)
            .check_output("Out", from_f64(want, dtype), 1e-6, 1e-5);
      }
    }
  }
}

TEST(ReduceOps, FullReductionIsRankZero) {
  Tensor x = Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4});
  auto out = reduce_op("reduce_sum", x, {{2, 2}, {}}, false).run();
  EXPECT_EQ(out["Out"][0].shape(), Shape({}));
  EXPECT_EQ(out["Out"][0].item<float>(), 10.0f);
  out = reduce_op("reduce_mean", x, {{2, 2}, {0, 1}}, true).run();
  EXPECT_EQ(out["Out"][0].shape(), Shape({1, 1}));
  EXPECT_EQ(out["Out"][0].item<float>(), 2.5f);
}

TEST(ReduceOps, LongFloatSumsKeepPrecision) {
  // 4M copies of 0.1f: one float accumulator would end far off (its rounding step grows).
  const int64_t n = int64_t{1} << 22;
  Tensor x = Tensor::empty({n}, DType::kF32);
  for (int64_t i = 0; i < n; ++i) x.data<float>()[i] = 0.1f;
  auto out = reduce_op("reduce_sum", x, {{n}, {}}, false).run();
  const double want = static_cast<double>(0.1f) * static_cast<double>(n);
  EXPECT_NEAR(out["Out"][0].item<double>(), want, want * 1e-7);
}

TEST(ReduceOps, GradientsMatchFiniteDifferences) {
  const Case cases[] = {{{2, 3, 4}, {}},    {{2, 3, 4}, {1}},    {{2, 3, 4}, {0, 2}},
                        {{2, 3, 4}, {-1}},  {{3, 4}, {0}, true}, {{5}, {0}},
                        {{2, 1, 3}, {0, 1}}};
  for (const char* type : {"reduce_sum", "reduce_mean"}) {
    for (const Case& c : cases) {
      for (bool keep_dim : {false, true}) {
        SCOPED_TRACE(str_cat(type, " ", c.x, " keep_dim ", keep_dim));
        reduce_op(type, random_tensor(c.x, DType::kF64, 3), c, keep_dim).check_grad({"X"});
      }
    }
  }
}

TEST(ReduceOps, GradKernelsInFloat32) {
  Tensor g = Tensor::from_vector<float>({2}, {1, 2});
  Tensor dx;
  kernels::reduce_mean_grad(g, {2, 3}, kernels::reduce_axes(2, {1}, false), &dx);
  EXPECT_EQ(dx.shape(), Shape({2, 3}));
  const std::vector<float> want = {1.f / 3, 1.f / 3, 1.f / 3, 2.f / 3, 2.f / 3, 2.f / 3};
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(dx.data<float>()[i], want[i]);
  kernels::reduce_sum_grad(g, {2, 3}, kernels::reduce_axes(2, {-1}, false), &dx);
  EXPECT_FLOAT_EQ(dx.data<float>()[4], 2.f);
}

TEST(ReduceOps, ShapeInferenceWithUnknownDims) {
  EXPECT_EQ(kernels::reduced_shape({-1, 4}, kernels::reduce_axes(2, {1}, false), false),
            Shape({-1}));
  EXPECT_EQ(kernels::reduced_shape({-1, 4}, kernels::reduce_axes(2, {0}, false), true),
            Shape({1, 4}));
  EXPECT_EQ(kernels::reduced_shape({-1, 4}, kernels::reduce_axes(2, {}, false), false), Shape({}));
}

TEST(ReduceOps, Errors) {
  Tensor x = random_tensor({2, 3}, DType::kF32, 4);
  try {
    reduce_op("reduce_sum", x, {{2, 3}, {2}}, false).run();
    ADD_FAILURE() << "expected an error for dim 2";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dim 2 is out of range for a rank-2"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(reduce_op("reduce_sum", x, {{2, 3}, {-3}}, false).run(), Error);
  EXPECT_THROW(reduce_op("reduce_sum", x, {{2, 3}, {1, -1}}, false).run(), Error);
  EXPECT_THROW(
      reduce_op("reduce_mean", random_tensor({2, 3}, DType::kI32, 5), {{2, 3}, {}}, false).run(),
      Error);
}

}  // namespace
}  // namespace skiff
