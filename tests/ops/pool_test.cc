// pool2d: max and average values against a float64 reference for fixed, padded, ceil-mode,
// adaptive and global windows in f32 and f64 (small planes on the direct loops, large
// float32 ones on oneDNN), hand-computed values, argmax masks, gradients by finite
// differences with and without Mask, float32 gradients against float64, int8 max pooling,
// shapes, errors.
#include "skiff/kernels/cpu/pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/kernels/cpu/cast.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::all_close;
using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;
using Ints = std::vector<int64_t>;

struct PoolCase {
  std::string type;
  Shape x;
  Ints ksize, strides, paddings;  // paddings: top, bottom, left, right
  bool global = false, adaptive = false, exclusive = true, ceil_mode = false;
};

std::string describe(const PoolCase& c) {
  return str_cat(c.type, " x", c.x, " k", Shape(c.ksize), " s", Shape(c.strides), " p",
                 Shape(c.paddings), c.global ? " global" : "", c.adaptive ? " adaptive" : "",
                 c.exclusive ? "" : " inclusive", c.ceil_mode ? " ceil" : "");
}

OpTest pool_op(const PoolCase& c, const Tensor& x, bool with_mask = false) {
  OpTest t("pool2d");
  t.input("X", x).output("Out");
  if (with_mask) t.output("Mask");
  t.attr("pooling_type", c.type).attr("ksize", c.ksize).attr("strides", c.strides);
  t.attr("paddings", c.paddings).attr("global_pooling", c.global).attr("adaptive", c.adaptive);
  t.attr("exclusive", c.exclusive).attr("ceil_mode", c.ceil_mode);
  return t;
}

// Output extent of one dim, written out the long way: the windows that fit in the
// padded input, and in ceil mode one more partial window when they leave cells uncovered
// (unless it would start past the input).
int64_t reference_extent(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, bool ceil) {
  int64_t n = 0;
  for (int64_t start = -pb; start < in; start += s) {
    if (start + k <= in + pe) {
      ++n;
      continue;
    }
    if (ceil && start - s + k < in + pe) ++n;
    break;
  }
  return n;
}

// The input window [b, e) of output index i along one dim.
void reference_window(const PoolCase& c, int d, int64_t in, int64_t out, int64_t i, int64_t* b,
                      int64_t* e) {
  if (c.global) {
    *b = 0;
    *e = in;
  } else if (c.adaptive) {
    *b = static_cast<int64_t>(std::floor(static_cast<double>(i * in) / out));
    *e = static_cast<int64_t>(std::ceil(static_cast<double>((i + 1) * in) / out));
  } else {
    const int64_t start = i * c.strides[d] - c.paddings[2 * d];
    *b = std::max<int64_t>(start, 0);
    *e = std::min(start + c.ksize[d], in);
  }
}

// Out (float64) and the argmax plane index of every output.
Tensor reference_pool(const PoolCase& c, const Tensor& x, std::vector<int32_t>* argmax = nullptr) {
  const Tensor a = to_f64(x);
  const int64_t planes = c.x[0] * c.x[1], h = c.x[2], w = c.x[3];
  int64_t oh = 1, ow = 1;
  if (c.adaptive) {
    oh = c.ksize[0];
    ow = c.ksize[1];
  } else if (!c.global) {
    oh = reference_extent(h, c.ksize[0], c.strides[0], c.paddings[0], c.paddings[1], c.ceil_mode);
    ow = reference_extent(w, c.ksize[1], c.strides[1], c.paddings[2], c.paddings[3], c.ceil_mode);
  }
  Tensor out = Tensor::empty({c.x[0], c.x[1], oh, ow}, DType::kF64);
  for (int64_t p = 0; p < planes; ++p) {
    const double* src = a.data<double>() + p * h * w;
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        int64_t h0, h1, w0, w1;
        reference_window(c, 0, h, oh, i, &h0, &h1);
        reference_window(c, 1, w, ow, j, &w0, &w1);
        double best = -std::numeric_limits<double>::infinity(), sum = 0;
        int64_t arg = -1;
        for (int64_t r = h0; r < h1; ++r) {
          for (int64_t q = w0; q < w1; ++q) {
            sum += src[r * w + q];
            if (src[r * w + q] > best) {
              best = src[r * w + q];
              arg = r * w + q;
            }
          }
        }
        const bool whole = c.global || c.adaptive || c.exclusive;
        double cells = static_cast<double>((h1 - h0) * (w1 - w0));
        if (!whole) {  // the window clipped to the padded input
          const int64_t top = i * c.strides[0] - c.paddings[0];
          const int64_t left = j * c.strides[1] - c.paddings[2];
          cells = static_cast<double>((std::min(top + c.ksize[0], h + c.paddings[1]) - top) *
                                      (std::min(left + c.ksize[1], w + c.paddings[3]) - left));
        }
        out.data<double>()[(p * oh + i) * ow + j] = c.type == "max" ? best : sum / cells;
        if (argmax) argmax->push_back(static_cast<int32_t>(arg));
      }
    }
  }
  return out;
}

const PoolCase kCases[] = {
    {"max", {2, 3, 8, 8}, {2, 2}, {2, 2}, {0, 0, 0, 0}},
    {"avg", {2, 3, 8, 8}, {2, 2}, {2, 2}, {0, 0, 0, 0}},
    {"max", {1, 2, 7, 9}, {2, 2}, {2, 2}, {0, 0, 0, 0}},  // odd sizes: last row/col unused
    {"max", {2, 2, 7, 7}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
    {"avg", {2, 2, 7, 7}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
    {"avg", {2, 2, 7, 7}, {3, 3}, {2, 2}, {1, 1, 1, 1}, false, false, false},
    {"max", {1, 3, 6, 5}, {3, 2}, {1, 2}, {0, 2, 1, 0}},
    {"avg", {1, 3, 6, 5}, {3, 2}, {1, 2}, {0, 2, 1, 0}, false, false, false},
    {"max", {2, 2, 7, 8}, {2, 3}, {2, 2}, {0, 0, 0, 0}, false, false, true, true},
    {"avg", {2, 2, 7, 8}, {2, 3}, {2, 2}, {0, 0, 0, 0}, false, false, true, true},
    {"avg", {2, 2, 6, 6}, {3, 3}, {2, 2}, {1, 1, 1, 1}, false, false, false, true},
    {"max", {2, 3, 5, 6}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true},
    {"avg", {2, 3, 5, 6}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true, false, false},
    {"max", {2, 2, 7, 10}, {3, 4}, {1, 1}, {0, 0, 0, 0}, false, true},
    {"avg", {2, 2, 7, 10}, {3, 4}, {1, 1}, {0, 0, 0, 0}, false, true},
    {"avg", {1, 2, 8, 6}, {4, 3}, {1, 1}, {0, 0, 0, 0}, false, true},  // equal bins
    {"max", {1, 1, 2, 3}, {4, 5}, {1, 1}, {0, 0, 0, 0}, false, true},  // more bins than cells
    // Large enough for oneDNN in float32 (and the vectorised 2x2 loops).
    {"max", {2, 8, 33, 32}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
    {"avg", {2, 8, 33, 32}, {3, 3}, {2, 2}, {1, 1, 1, 1}, false, false, false},
    {"avg", {2, 8, 32, 31}, {3, 2}, {2, 1}, {1, 0, 0, 1}, false, false, true, true},
    {"avg", {2, 8, 34, 34}, {3, 3}, {2, 2}, {0, 0, 0, 0}, false, false, false, true},
    {"avg", {2, 8, 34, 34}, {3, 3}, {2, 2}, {0, 0, 0, 0}, false, false, true, true},
    {"max", {2, 8, 34, 34}, {3, 3}, {2, 2}, {0, 0, 0, 0}, false, false, true, true},
    {"max", {1, 2, 6, 70}, {2, 2}, {2, 2}, {0, 0, 0, 0}},  // rows of 35 outputs
    {"avg", {1, 2, 6, 71}, {2, 2}, {2, 2}, {0, 0, 0, 0}},
    {"max", {4, 16, 28, 28}, {2, 2}, {2, 2}, {0, 0, 0, 0}},
    {"avg", {4, 16, 28, 28}, {2, 2}, {2, 2}, {0, 0, 0, 0}},
};

TEST(Pool2dOp, ForwardMatchesReference) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    for (const PoolCase& c : kCases) {
      SCOPED_TRACE(str_cat(dtype_name(dtype), " ", describe(c)));
      Tensor x = random_tensor(c.x, dtype, 1, -2, 2);
      pool_op(c, x).check_output("Out", from_f64(reference_pool(c, x), dtype), 1e-6, 1e-5);
    }
  }
}

// int8 (quantized values) takes max pooling: the float result of the same values, cast.
TEST(Pool2dOp, Int8MaxPoolingMatchesFloat) {
  for (const PoolCase& c : kCases) {
    if (c.type != "max") continue;
    SCOPED_TRACE(describe(c));
    const Tensor x = random_tensor(c.x, DType::kI8, 3, -128, 128);
    Tensor want;
    kernels::cast(reference_pool(c, x), DType::kI8, &want);
    pool_op(c, x).check_output("Out", want, 0, 0);
  }
  PoolCase avg{"avg", {1, 1, 4, 4}, {2, 2}, {2, 2}, {0, 0}};
  expect_error(pool_op(avg, random_tensor(avg.x, DType::kI8, 1, -128, 128)),
               {"int8, for max pooling", "int8"});
}

// bfloat16 through float32: the float64 reference of the widened values, rounded (max
// pooling exactly); gradients as float32's of the widened values, rounded.
TEST(Pool2dOp, Bfloat16ThroughFloat32) {
  for (const PoolCase& c : kCases) {
    SCOPED_TRACE(describe(c));
    const Tensor x = random_tensor(c.x, DType::kBF16, 5, -2, 2);
    const double tol = c.type == "max" ? 0 : 8e-3;
    pool_op(c, x).check_output("Out", from_f64(reference_pool(c, x), DType::kBF16), tol, tol);
  }
  const PoolCase c{"avg", {2, 3, 6, 6}, {3, 3}, {2, 2}, {1, 1, 1, 1}};
  const Tensor x = random_tensor(c.x, DType::kBF16, 6, -2, 2);
  Tensor out, dx, want;
  const kernels::Pool2dOptions o =
      kernels::pool2d_options(c.type, c.ksize, c.strides, c.paddings, false, false, true, false);
  kernels::pool2d(x, o, &out, nullptr);
  const Tensor dy = random_tensor(out.shape(), DType::kBF16, 7);
  kernels::pool2d_grad(x, dy, nullptr, o, &dx);
  Tensor x32, dy32;
  kernels::cast(x, DType::kF32, &x32);
  kernels::cast(dy, DType::kF32, &dy32);
  kernels::pool2d_grad(x32, dy32, nullptr, o, &want);
  kernels::cast(want, DType::kBF16, &want);
  EXPECT_EQ(dx.dtype(), DType::kBF16);
  EXPECT_EQ(to_f64(dx).to_vector<double>(), to_f64(want).to_vector<double>());
}

TEST(Pool2dOp, HandComputedValues) {
  // 1 2 3 4 / 5 6 7 8 / 9 10 11 12 / 13 14 15 16, 3x3 windows at stride 2, padding 1.
  std::vector<double> v(16);
  for (int i = 0; i < 16; ++i) v[i] = i + 1;
  Tensor x = Tensor::from_vector<double>({1, 1, 4, 4}, v);
  PoolCase c{"max", {1, 1, 4, 4}, {3, 3}, {2, 2}, {1, 1, 1, 1}};
  pool_op(c, x).check_output("Out", Tensor::from_vector<double>({1, 1, 2, 2}, {6, 8, 14, 16}));
  c.type = "avg";  // exclusive: (1+2+5+6)/4, (2+3+4+6+7+8)/6, (5+6+9+10+13+14)/6, ...
  pool_op(c, x).check_output("Out", Tensor::from_vector<double>({1, 1, 2, 2}, {3.5, 5, 9.5, 11}));
  c.exclusive = false;  // divided by 9
  pool_op(c, x).check_output(
      "Out", Tensor::from_vector<double>({1, 1, 2, 2}, {14 / 9., 30 / 9., 57 / 9., 99 / 9.}));
}

TEST(Pool2dOp, MaskHoldsTheFirstArgmax) {
  const PoolCase cases[] = {kCases[0],  kCases[2],  kCases[3],  kCases[6], kCases[8],
                            kCases[11], kCases[13], kCases[23], kCases[25]};
  for (DType dtype : {DType::kF32, DType::kF64}) {
    for (const PoolCase& c : cases) {
      SCOPED_TRACE(str_cat(dtype_name(dtype), " ", describe(c)));
      // Values from a small set: windows hold ties, the first maximum must win.
      Tensor x = from_f64(to_f64(random_tensor(c.x, DType::kI64, 3, 0, 4)), dtype);
      std::vector<int32_t> argmax;
      Tensor want = reference_pool(c, x, &argmax);
      auto outs = pool_op(c, x, /*with_mask=*/true).run();
      std::string why;
      EXPECT_TRUE(all_close(outs["Out"][0], from_f64(want, dtype), 0, 0, &why)) << why;
      EXPECT_EQ(outs["Mask"][0].dtype(), DType::kI32);
      EXPECT_EQ(outs["Mask"][0].to_vector<int32_t>(), argmax);
    }
  }
}

TEST(Pool2dOp, GradientsMatchFiniteDifferences) {
  const PoolCase cases[] = {kCases[0],  kCases[1],  kCases[2],  kCases[3],  kCases[5],
                            kCases[6],  kCases[8],  kCases[9],  kCases[10], kCases[11],
                            kCases[12], kCases[13], kCases[14], kCases[16]};
  for (const PoolCase& c : cases) {
    for (bool with_mask : {false, true}) {
      if (with_mask && c.type != "max") continue;
      SCOPED_TRACE(str_cat(describe(c), with_mask ? " with Mask" : ""));
      // Distinct values (a shuffled ramp) so that no max window holds a tie.
      Tensor x = random_tensor(c.x, DType::kF64, 5);
      std::vector<double> ramp(x.numel());
      for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = 0.01 * static_cast<double>(i);
      std::vector<int64_t> order(ramp.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
      std::sort(order.begin(), order.end(),
                [&](int64_t a, int64_t b) { return x.data<double>()[a] < x.data<double>()[b]; });
      for (size_t i = 0; i < order.size(); ++i) x.data<double>()[order[i]] = ramp[i];
      pool_op(c, x, with_mask).check_grad({"X"});
    }
  }
}

// The float32 gradient kernels (direct and oneDNN) against the float64 ones, which the
// finite-difference test covers.
TEST(Pool2dOp, Float32GradientsMatchFloat64) {
  for (const PoolCase& c : kCases) {
    for (bool with_mask : {false, true}) {
      if (with_mask && c.type != "max") continue;
      SCOPED_TRACE(str_cat(describe(c), with_mask ? " with Mask" : ""));
      const kernels::Pool2dOptions o = kernels::pool2d_options(
          c.type, c.ksize, c.strides, c.paddings, c.global, c.adaptive, c.exclusive, c.ceil_mode);
      Tensor x64 = random_tensor(c.x, DType::kF64, 7);
      Tensor x32 = from_f64(x64, DType::kF32);
      x64 = to_f64(x32);  // the same values in both precisions
      Tensor out, mask, dx32, dx64;
      kernels::pool2d(x32, o, &out, with_mask ? &mask : nullptr);
      Tensor dy = random_tensor(out.shape(), DType::kF32, 8);
      kernels::pool2d_grad(x32, dy, with_mask ? &mask : nullptr, o, &dx32);
      kernels::pool2d_grad(x64, to_f64(dy), nullptr, o, &dx64);
      std::string why;
      EXPECT_TRUE(all_close(dx32, from_f64(dx64, DType::kF32), 1e-6, 1e-5, &why)) << why;
    }
  }
}

TEST(Pool2dOp, OutputIsItsInput) {
  // Out written over X (another shape): the result must not read a half-written X.
  Tensor x = random_tensor({1, 2, 6, 6}, DType::kF64, 9);
  PoolCase c{"max", {1, 2, 6, 6}, {3, 3}, {1, 1}, {1, 1, 1, 1}};
  const Tensor want = reference_pool(c, x);
  const kernels::Pool2dOptions o =
      kernels::pool2d_options("max", c.ksize, c.strides, c.paddings, false, false, true, false);
  Tensor t = x.clone();
  kernels::pool2d(t, o, &t, nullptr);
  std::string why;
  EXPECT_TRUE(all_close(t, want, 0, 0, &why)) << why;
}

TEST(Pool2dOp, ShapeInferenceKeepsUnknownDims) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {-1, 3, 9, -1});
  b.op("pool2d", {{"X", {"x"}}}, {{"Out", {"y"}}, {"Mask", {"m"}}},
       {{"ksize", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"ceil_mode", true}});
  EXPECT_EQ(p.global_block().find_local_var("y")->shape, Shape({-1, 3, 5, -1}));
  EXPECT_EQ(p.global_block().find_local_var("m")->dtype, DType::kI32);
  b.op("pool2d", {{"X", {"x"}}}, {{"Out", {"g"}}}, {{"ksize", Ints{2, 2}}, {"adaptive", true}});
  EXPECT_EQ(p.global_block().find_local_var("g")->shape, Shape({-1, 3, 2, 2}));
}

TEST(Pool2dOp, RejectsBadInputsAndAttrs) {
  PoolCase c{"max", {1, 1, 4, 4}, {2, 2}, {2, 2}, {0, 0}};
  Tensor x = random_tensor(c.x, DType::kF32, 1);
  auto with = [&](auto&& edit) {
    PoolCase d = c;
    edit(d);
    return d;
  };
  expect_error(pool_op(with([](PoolCase& d) { d.type = "min"; }), x), {"pooling_type", "min"});
  expect_error(pool_op(with([](PoolCase& d) { d.ksize = {2}; }), x), {"ksize", "[2]"});
  expect_error(pool_op(with([](PoolCase& d) { d.strides = {0, 1}; }), x), {"strides"});
  expect_error(pool_op(with([](PoolCase& d) { d.paddings = {0, 0, 0}; }), x), {"paddings"});
  expect_error(pool_op(with([](PoolCase& d) { d.paddings = {-1, 0}; }), x), {"paddings"});
  expect_error(pool_op(with([](PoolCase& d) {
                         d.paddings = {2, 0};
                       }),
                       x),
               {"paddings", "smaller than the window"});
  expect_error(pool_op(with([](PoolCase& d) {
                         d.ksize = {5, 2};
                       }),
                       x),
               {"window 5", "larger than the padded input"});
  expect_error(pool_op(c, random_tensor({4, 4}, DType::kF32, 1)), {"[N, C, H, W]", "[4, 4]"});
  expect_error(pool_op(c, random_tensor({1, 1, 4, 4}, DType::kI32, 1)), {"float32", "int32"});
  expect_error(pool_op(with([](PoolCase& d) { d.type = "avg"; }), x, /*with_mask=*/true),
               {"Mask", "max pooling"});
}

TEST(Pool2dOp, GradRejectsMismatchedOutGrad) {
  const kernels::Pool2dOptions o =
      kernels::pool2d_options("max", {2, 2}, {2, 2}, {0, 0}, false, false, true, false);
  Tensor dx;
  const std::string msg = testing::error_of([&] {
    kernels::pool2d_grad(random_tensor({1, 1, 4, 4}, DType::kF32, 1),
                         random_tensor({1, 1, 3, 2}, DType::kF32, 1), nullptr, o, &dx);
  });
  EXPECT_NE(msg.find("should be [1, 1, 2, 2]"), std::string::npos) << msg;
}

}  // namespace
}  // namespace skiff
