// pool3d: max and average values against a float64 loop written here (fixed, padded,
// ceil-mode, inclusive, global and adaptive windows) in f32 and f64, the argmax Mask,
// gradients by finite differences (with and without Mask), shapes and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "skiff/kernels/cpu/pool3d.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;
using Ints = std::vector<int64_t>;

struct Case {
  Shape x;
  std::string type = "max";
  Ints ksize{2, 2, 2}, strides{2, 2, 2}, paddings{0, 0, 0};
  bool global = false, adaptive = false, exclusive = true, ceil_mode = false;
};

std::string describe(const Case& c) {
  return str_cat(c.type, " x ", c.x, " ksize ", Shape(c.ksize), " strides ", Shape(c.strides),
                 " paddings ", Shape(c.paddings), c.global ? " global" : "",
                 c.adaptive ? " adaptive" : "", c.exclusive ? "" : " inclusive",
                 c.ceil_mode ? " ceil" : "");
}

OpTest pool3d_op(const Case& c, const Tensor& x) {
  OpTest t("pool3d");
  t.input("X", x).output("Out");
  t.attr("pooling_type", c.type)
      .attr("ksize", c.ksize)
      .attr("strides", c.strides)
      .attr("paddings", c.paddings)
      .attr("global_pooling", c.global)
      .attr("adaptive", c.adaptive)
      .attr("exclusive", c.exclusive)
      .attr("ceil_mode", c.ceil_mode);
  return t;
}

// Output extent of one axis, written out from Paddle's rule.
int64_t out_extent(const Case& c, int d, int64_t in, int64_t lo, int64_t hi) {
  if (c.global) return 1;
  if (c.adaptive) return c.ksize[d];
  const int64_t k = c.ksize[d], s = c.strides[d];
  int64_t n = c.ceil_mode ? (in + lo + hi - k + s - 1) / s + 1 : (in + lo + hi - k) / s + 1;
  if (c.ceil_mode && (n - 1) * s >= in + lo) --n;
  return n;
}

// pool3d in float64 from the definition; `argmax` (max only) gets each window's first max.
Tensor reference_pool3d(const Tensor& input, const Case& c, std::vector<int32_t>* argmax) {
  const Tensor x = to_f64(input);
  const Ints p = c.paddings.size() == 3 ? Ints{c.paddings[0], c.paddings[0], c.paddings[1],
                                               c.paddings[1], c.paddings[2], c.paddings[2]}
                                        : c.paddings;
  int64_t in[3], out[3];
  for (int d = 0; d < 3; ++d) {
    in[d] = x.dim(2 + d);
    out[d] = out_extent(c, d, in[d], c.global ? 0 : p[2 * d], c.global ? 0 : p[2 * d + 1]);
  }
  const int64_t volumes = x.dim(0) * x.dim(1);
  Tensor y = Tensor::zeros({x.dim(0), x.dim(1), out[0], out[1], out[2]}, DType::kF64);
  const double* xp = x.data<double>();
  double* yp = y.data<double>();
  if (argmax) argmax->clear();
  int64_t o = 0;
  for (int64_t v = 0; v < volumes; ++v) {
    for (int64_t i0 = 0; i0 < out[0]; ++i0)
      for (int64_t i1 = 0; i1 < out[1]; ++i1)
        for (int64_t i2 = 0; i2 < out[2]; ++i2, ++o) {
          const int64_t idx[3] = {i0, i1, i2};
          int64_t b[3], e[3], padded = 1;
          for (int d = 0; d < 3; ++d) {
            if (c.global) {
              b[d] = 0, e[d] = in[d];
            } else if (c.adaptive) {
              b[d] = idx[d] * in[d] / out[d];
              e[d] = ((idx[d] + 1) * in[d] + out[d] - 1) / out[d];
            } else {
              const int64_t start = idx[d] * c.strides[d] - p[2 * d];
              b[d] = std::max<int64_t>(start, 0);
              e[d] = std::min(start + c.ksize[d], in[d]);
              padded *= std::min(start + c.ksize[d], in[d] + p[2 * d + 1]) - start;
            }
          }
          double best = -1e300, sum = 0;
          int32_t arg = -1;
          for (int64_t a = b[0]; a < e[0]; ++a)
            for (int64_t h = b[1]; h < e[1]; ++h)
              for (int64_t w = b[2]; w < e[2]; ++w) {
                const int64_t at = (a * in[1] + h) * in[2] + w;
                const double val = xp[v * in[0] * in[1] * in[2] + at];
                sum += val;
                if (val > best) best = val, arg = static_cast<int32_t>(at);
              }
          const int64_t cells = (e[0] - b[0]) * (e[1] - b[1]) * (e[2] - b[2]);
          const bool inclusive = !c.exclusive && !c.adaptive && !c.global;
          yp[o] = c.type == "max" ? best : sum / static_cast<double>(inclusive ? padded : cells);
          if (argmax) argmax->push_back(arg);
        }
  }
  return y;
}

std::vector<Case> pool3d_cases() {
  std::vector<Case> cases;
  for (const std::string type : {"max", "avg"}) {
    Case plain{{2, 3, 4, 6, 6}, type};
    Case padded{{1, 2, 5, 5, 7}, type, {3, 3, 2}, {2, 2, 1}, {1, 1, 0}};
    Case six_pads{{1, 2, 5, 6, 4}, type, {2, 3, 2}, {1, 2, 2}, {1, 0, 0, 1, 1, 1}};
    Case ceil{{1, 2, 5, 7, 6}, type, {2, 3, 2}, {2, 2, 2}, {0, 1, 0}};
    ceil.ceil_mode = true;
    Case inclusive = ceil;
    inclusive.exclusive = false;
    Case inclusive_padded = padded;
    inclusive_padded.exclusive = false;
    Case global{{2, 3, 3, 4, 5}, type};
    global.global = true;
    Case adaptive{{1, 2, 5, 7, 6}, type, {2, 3, 4}};
    adaptive.adaptive = true;
    Case even_bins{{1, 2, 4, 6, 6}, type, {2, 3, 2}};
    even_bins.adaptive = true;
    for (const Case& c : {plain, padded, six_pads, ceil, inclusive, inclusive_padded, global,
                          adaptive, even_bins}) {
      cases.push_back(c);
    }
  }
  return cases;
}

TEST(Pool3dOp, MatchesReferenceLoop) {
  for (const Case& c : pool3d_cases()) {
    for (DType dtype : {DType::kF32, DType::kF64}) {
      SCOPED_TRACE(describe(c) + " " + dtype_name(dtype));
      const Tensor x = random_tensor(c.x, dtype, 1);
      std::vector<int32_t> argmax;
      const Tensor want = reference_pool3d(x, c, &argmax);
      OpTest t = pool3d_op(c, x);
      if (dtype == DType::kF32) {
        t.check_output("Out", from_f64(want, dtype), 1e-6, 1e-5);
      } else {
        t.check_output("Out", want, 1e-13, 1e-13);
      }
      if (c.type != "max") continue;
      t.output("Mask");
      const Tensor mask = t.run().at("Mask")[0];
      ASSERT_EQ(mask.dtype(), DType::kI32);
      ASSERT_EQ(mask.numel(), static_cast<int64_t>(argmax.size()));
      for (int64_t i = 0; i < mask.numel(); ++i) EXPECT_EQ(mask.data<int32_t>()[i], argmax[i]);
    }
  }
}

TEST(Pool3dOp, GradientsMatchFiniteDifferences) {
  for (const Case& c : pool3d_cases()) {
    SCOPED_TRACE(describe(c));
    OpTest t = pool3d_op(c, random_tensor(c.x, DType::kF64, 2));
    t.check_grad({"X"});
    if (c.type == "max") {
      t.output("Mask");  // the grad op reads the argmax from Mask
      t.check_grad({"X"});
    }
  }
}

TEST(Pool3dOp, ShapeInferenceWithUnknownDims) {
  const auto o =
      kernels::pool3d_options("max", {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, false, false, true, false);
  EXPECT_EQ(kernels::pool3d_output_shape({-1, 3, 4, -1, 9}, o), Shape({-1, 3, 2, -1, 4}));
  const auto adaptive =
      kernels::pool3d_options("avg", {1, 2, 3}, {1, 1, 1}, {0, 0, 0}, false, true, true, false);
  EXPECT_EQ(kernels::pool3d_output_shape({2, 3, -1, 8, 9}, adaptive), Shape({2, 3, 1, 2, 3}));
}

TEST(Pool3dOp, ErrorsNameTheBadArgument) {
  auto op = [](Shape x, Case c = {}) {
    c.x = x;
    return pool3d_op(c, random_tensor(x, DType::kF32, 3));
  };
  expect_error(op({1, 2, 4, 4}), {"pool3d", "[N, C, D, H, W]", "[1, 2, 4, 4]"});
  Case big{{}, "max", {5, 2, 2}};
  expect_error(op({1, 2, 4, 4, 4}, big), {"pool3d", "window 5", "D"});
  Case bad_pads{{}, "max", {2, 2, 2}, {2, 2, 2}, {2, 0, 0}};
  expect_error(op({1, 2, 4, 4, 4}, bad_pads), {"paddings", "smaller than the window"});
  Case bad_type{{}, "min"};
  expect_error(op({1, 2, 4, 4, 4}, bad_type), {"pooling_type", "min"});
  Case bad_ksize{{}, "max", {2, 2}};
  expect_error(op({1, 2, 4, 4, 4}, bad_ksize), {"ksize", "3 positive"});
  Case avg{{}, "avg"};
  OpTest avg_mask = op({1, 2, 4, 4, 4}, avg);
  avg_mask.output("Mask");
  expect_error(avg_mask, {"Mask", "max pooling"});
}

}  // namespace
}  // namespace skiff
