// batch_norm and layer_norm: values against float64 references in f32 and f64 (training,
// is_test and use_global_stats), running statistics updated in place over two steps,
// gradients by finite differences for every differentiable input, no gradient for the
// running statistics, float32 gradients against float64, shapes and errors.
#include "skiff/kernels/cpu/norm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/autodiff/backward.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::all_close;
using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr DType kFloatTypes[] = {DType::kF32, DType::kF64};
constexpr double kEps = 1e-5;

// ---- batch_norm ----

struct BatchNormInputs {
  Tensor x, scale, bias, mean, variance;
};

BatchNormInputs batch_norm_inputs(const Shape& x, DType dtype, uint64_t seed) {
  const Shape c{x[1]};
  return {random_tensor(x, dtype, seed, -3, 5), random_tensor(c, dtype, seed + 1, 0.5, 2),
          random_tensor(c, dtype, seed + 2, -1, 1), random_tensor(c, dtype, seed + 3, -1, 1),
          random_tensor(c, dtype, seed + 4, 0.5, 2)};
}

OpTest batch_norm_op(const BatchNormInputs& in, bool is_test = false, bool global = false) {
  OpTest t("batch_norm");
  t.input("X", in.x).input("Scale", in.scale).input("Bias", in.bias);
  t.input("Mean", in.mean).input("Variance", in.variance);
  t.output("Y").output("MeanOut").output("VarianceOut").output("SavedMean").output("SavedVariance");
  t.attr("is_test", is_test).attr("use_global_stats", global).attr("epsilon", kEps);
  t.attr("momentum", 0.9);
  return t;
}

// Per-channel float64 mean and biased variance over N and the spatial dims.
void reference_moments(const Tensor& x, std::vector<double>* mean, std::vector<double>* var) {
  const Tensor a = to_f64(x);
  const int64_t n = x.dim(0), c = x.dim(1), s = x.numel() / std::max<int64_t>(n * c, 1);
  mean->assign(c, 0);
  var->assign(c, 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t k = 0; k < s; ++k) (*mean)[j] += a.data<double>()[(i * c + j) * s + k];
  for (int64_t j = 0; j < c; ++j) (*mean)[j] /= static_cast<double>(n * s);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < c; ++j) {
      for (int64_t k = 0; k < s; ++k) {
        const double d = a.data<double>()[(i * c + j) * s + k] - (*mean)[j];
        (*var)[j] += d * d;
      }
    }
  }
  for (int64_t j = 0; j < c; ++j) (*var)[j] /= static_cast<double>(n * s);
}

Tensor reference_batch_norm(const BatchNormInputs& in, const std::vector<double>& mean,
                            const std::vector<double>& var) {
  const Tensor a = to_f64(in.x), g = to_f64(in.scale), b = to_f64(in.bias);
  const int64_t n = in.x.dim(0), c = in.x.dim(1), s = in.x.numel() / (n * c);
  Tensor y = Tensor::empty(in.x.shape(), DType::kF64);
  for (int64_t i = 0; i < n * c * s; ++i) {
    const int64_t j = (i / s) % c;
    y.data<double>()[i] =
        (a.data<double>()[i] - mean[j]) / std::sqrt(var[j] + kEps) * g.data<double>()[j] +
        b.data<double>()[j];
  }
  return y;
}

Tensor channels(const std::vector<double>& v, DType dtype) {
  return from_f64(Tensor::from_vector<double>({static_cast<int64_t>(v.size())}, v), dtype);
}

const Shape kBatchShapes[] = {{6, 4}, {3, 5, 4, 4}, {2, 3, 7}, {2, 2, 3, 2, 2}, {8, 16, 32, 32}};

TEST(BatchNormOp, TrainingMatchesReference) {
  for (DType dtype : kFloatTypes) {
    for (const Shape& shape : kBatchShapes) {
      SCOPED_TRACE(str_cat(dtype_name(dtype), " ", shape));
      BatchNormInputs in = batch_norm_inputs(shape, dtype, 1);
      std::vector<double> m, v, run_m, run_v, inv;
      reference_moments(in.x, &m, &v);
      const Tensor old_m = to_f64(in.mean), old_v = to_f64(in.variance);
      for (size_t j = 0; j < m.size(); ++j) {
        run_m.push_back(old_m.data<double>()[j] * 0.9 + m[j] * 0.1);
        run_v.push_back(old_v.data<double>()[j] * 0.9 + v[j] * 0.1);
        inv.push_back(1 / std::sqrt(v[j] + kEps));
      }
      OpTest t = batch_norm_op(in);
      t.check_output("Y", from_f64(reference_batch_norm(in, m, v), dtype), 1e-5, 1e-5);
      t.check_output("MeanOut", channels(run_m, dtype), 1e-6, 1e-5);
      t.check_output("VarianceOut", channels(run_v, dtype), 1e-6, 1e-5);
      t.check_output("SavedMean", channels(m, dtype), 1e-6, 1e-5);
      t.check_output("SavedVariance", channels(inv, dtype), 1e-6, 1e-5);
    }
  }
}

TEST(BatchNormOp, RunningStatisticsNormalizeAtInference) {
  for (DType dtype : kFloatTypes) {
    for (bool is_test : {true, false}) {
      SCOPED_TRACE(str_cat(dtype_name(dtype), is_test ? " is_test" : " use_global_stats"));
      BatchNormInputs in = batch_norm_inputs({4, 3, 5, 5}, dtype, 2);
      const Tensor m = to_f64(in.mean), v = to_f64(in.variance);
      const std::vector<double> mv = m.to_vector<double>(), vv = v.to_vector<double>();
      OpTest t = batch_norm_op(in, is_test, !is_test);
      t.check_output("Y", from_f64(reference_batch_norm(in, mv, vv), dtype), 1e-5, 1e-5);
      t.check_output("MeanOut", in.mean, 0, 0);
      t.check_output("VarianceOut", in.variance, 0, 0);
    }
  }
}

// A program whose batch_norm updates persistable Mean / Variance in place.
struct BatchNormProgram {
  Program program;
  BatchNormProgram(DType dtype, const Shape& x) {
    BlockBuilder b(&program);
    const Shape c{x[1]};
    b.data("x", dtype, x);
    for (const char* p : {"scale", "bias", "mean", "var"}) b.persistable(p, dtype, c);
    b.op("batch_norm",
         {{"X", {"x"}},
          {"Scale", {"scale"}},
          {"Bias", {"bias"}},
          {"Mean", {"mean"}},
          {"Variance", {"var"}}},
         {{"Y", {"y"}},
          {"MeanOut", {"mean"}},
          {"VarianceOut", {"var"}},
          {"SavedMean", {"saved_mean"}},
          {"SavedVariance", {"saved_inv_std"}}});
  }
};

TEST(BatchNormOp, RunningStatisticsUpdateInPlaceOverTwoSteps) {
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    const Shape shape{4, 3, 2, 2};
    BatchNormProgram p(dtype, shape);
    BatchNormInputs in = batch_norm_inputs(shape, dtype, 3);
    Scope scope;
    Executor exe;
    const Tensor first = random_tensor(shape, dtype, 10, -2, 2);
    const Tensor second = random_tensor(shape, dtype, 11, 0, 4);
    exe.run(p.program, &scope,
            {{"x", first},
             {"scale", in.scale},
             {"bias", in.bias},
             {"mean", in.mean},
             {"var", in.variance}});
    exe.run(p.program, &scope, {{"x", second}});
    std::vector<double> m1, v1, m2, v2;
    reference_moments(first, &m1, &v1);
    reference_moments(second, &m2, &v2);
    std::vector<double> want_m, want_v;
    for (size_t j = 0; j < m1.size(); ++j) {
      want_m.push_back((to_f64(in.mean).data<double>()[j] * 0.9 + m1[j] * 0.1) * 0.9 + m2[j] * 0.1);
      want_v.push_back((to_f64(in.variance).data<double>()[j] * 0.9 + v1[j] * 0.1) * 0.9 +
                       v2[j] * 0.1);
    }
    std::string why;
    EXPECT_TRUE(all_close(fetch(scope, "mean"), channels(want_m, dtype), 1e-6, 1e-5, &why)) << why;
    EXPECT_TRUE(all_close(fetch(scope, "var"), channels(want_v, dtype), 1e-6, 1e-5, &why)) << why;
  }
}

TEST(BatchNormOp, GradientsMatchFiniteDifferences) {
  for (const Shape& shape : {Shape{5, 3}, Shape{3, 2, 3, 2}, Shape{2, 3, 4}}) {
    for (bool is_test : {false, true}) {
      SCOPED_TRACE(str_cat(shape, is_test ? " is_test" : " training"));
      batch_norm_op(batch_norm_inputs(shape, DType::kF64, 4), is_test)
          .check_grad({"X", "Scale", "Bias"}, "Y");
    }
  }
  batch_norm_op(batch_norm_inputs({3, 2, 2, 2}, DType::kF64, 5), false, /*global=*/true)
      .check_grad({"X", "Scale", "Bias"}, "Y");
}

// The grad op writes no gradient for Mean / Variance; with the running statistics
// declared stop_gradient (as layers declare them), backward leaves them alone.
TEST(BatchNormOp, RunningStatisticsGetNoGradient) {
  BatchNormProgram p(DType::kF64, {4, 3, 2, 2});
  BlockBuilder b(&p.program);
  b.block().find_local_var("mean")->stop_gradient = true;
  b.block().find_local_var("var")->stop_gradient = true;
  std::string loss = b.apply("reduce_sum", {{"X", {"y"}}}, {{"reduce_all", true}});
  auto grads = append_backward(p.program, loss);  // every trainable persistable variable
  std::vector<std::string> params;
  for (const auto& [param, grad] : grads) params.push_back(param);
  EXPECT_EQ(params, (std::vector<std::string>{"bias", "scale"}));
  bool saw_grad_op = false;
  for (const OpDesc& op : p.program.global_block().ops) {
    if (op.type == "batch_norm_grad") {
      saw_grad_op = true;
      EXPECT_EQ(op.outputs.size(), 3u);
    }
    for (const std::string& n : op.output_names()) {
      const bool grad = n.find("@GRAD") != std::string::npos;
      EXPECT_FALSE(grad && (n.rfind("mean", 0) == 0 || n.rfind("var", 0) == 0)) << n;
    }
  }
  EXPECT_TRUE(saw_grad_op);
}

TEST(BatchNormOp, Float32GradientsMatchFloat64) {
  for (const Shape& shape : kBatchShapes) {
    for (bool running : {false, true}) {
      SCOPED_TRACE(str_cat(shape, running ? " running stats" : ""));
      BatchNormInputs in32 = batch_norm_inputs(shape, DType::kF32, 6);
      kernels::BatchNormOptions o;
      o.use_running_stats = running;
      Tensor y, mo, vo, sm, si;
      kernels::batch_norm(in32.x, in32.scale, in32.bias, in32.mean, in32.variance, o, &y, &mo, &vo,
                          &sm, &si);
      Tensor dy = random_tensor(shape, DType::kF32, 7);
      Tensor dx32, ds32, db32, dx64, ds64, db64;
      kernels::batch_norm_grad(in32.x, in32.scale, sm, si, dy, running, &dx32, &ds32, &db32);
      kernels::batch_norm_grad(to_f64(in32.x), to_f64(in32.scale), to_f64(sm), to_f64(si),
                               to_f64(dy), running, &dx64, &ds64, &db64);
      std::string why;
      EXPECT_TRUE(all_close(dx32, from_f64(dx64, DType::kF32), 1e-5, 1e-4, &why)) << why;
      EXPECT_TRUE(all_close(ds32, from_f64(ds64, DType::kF32), 1e-4, 1e-4, &why)) << why;
      EXPECT_TRUE(all_close(db32, from_f64(db64, DType::kF32), 1e-4, 1e-4, &why)) << why;
    }
  }
}

TEST(BatchNormOp, RejectsBadShapes) {
  BatchNormInputs in = batch_norm_inputs({2, 3, 4, 4}, DType::kF32, 8);
  BatchNormInputs bad = in;
  bad.scale = random_tensor({4}, DType::kF32, 1);
  expect_error(batch_norm_op(bad), {"Scale [4]", "[C] = [3]", "[2, 3, 4, 4]"});
  bad = in;
  bad.variance = random_tensor({3, 1}, DType::kF32, 1);
  expect_error(batch_norm_op(bad), {"Variance [3, 1]"});
  bad = in;
  bad.x = random_tensor({6}, DType::kF32, 1);
  expect_error(batch_norm_op(bad), {"[N, C]", "[6]"});
  bad = in;
  bad.bias = random_tensor({3}, DType::kF64, 1);
  expect_error(batch_norm_op(bad), {"Bias", "float32"});
}

// ---- layer_norm ----

OpTest layer_norm_op(const Tensor& x, const Tensor* scale, const Tensor* bias, int64_t axis) {
  OpTest t("layer_norm");
  t.input("X", x);
  if (scale) t.input("Scale", *scale);
  if (bias) t.input("Bias", *bias);
  t.output("Y").output("Mean").output("Variance");
  t.attr("begin_norm_axis", axis).attr("epsilon", kEps);
  return t;
}

struct LayerNormReference {
  Tensor y, mean, var;
};

LayerNormReference reference_layer_norm(const Tensor& x, const Tensor* scale, const Tensor* bias,
                                        int64_t axis) {
  int64_t rows = 1;
  for (int d = 0; d < axis; ++d) rows *= x.dim(d);
  const int64_t cols = x.numel() / rows;
  const Tensor a = to_f64(x);
  LayerNormReference r{Tensor::empty(x.shape(), DType::kF64), Tensor::empty({rows}, DType::kF64),
                       Tensor::empty({rows}, DType::kF64)};
  for (int64_t i = 0; i < rows; ++i) {
    const double* row = a.data<double>() + i * cols;
    double m = 0, v = 0;
    for (int64_t k = 0; k < cols; ++k) m += row[k] / static_cast<double>(cols);
    for (int64_t k = 0; k < cols; ++k) v += (row[k] - m) * (row[k] - m) / static_cast<double>(cols);
    r.mean.data<double>()[i] = m;
    r.var.data<double>()[i] = v;
    for (int64_t k = 0; k < cols; ++k) {
      double y = (row[k] - m) / std::sqrt(v + kEps);
      if (scale) y *= to_f64(*scale).data<double>()[k];
      if (bias) y += to_f64(*bias).data<double>()[k];
      r.y.data<double>()[i * cols + k] = y;
    }
  }
  return r;
}

struct LayerNormCase {
  Shape x;
  int64_t axis;
};

const LayerNormCase kLayerCases[] = {{{4, 6}, 1},      {{2, 3, 5}, 2},  {{2, 3, 5}, 1},
                                     {{3, 4}, 0},      {{64, 1000}, 1}, {{8, 32, 128}, 2},
                                     {{2, 2, 3, 3}, 1}};

// The number of rows X is seen as.
int64_t layer_norm_rows(const LayerNormCase& c) {
  int64_t rows = 1;
  for (int d = 0; d < c.axis; ++d) rows *= c.x[d];
  return rows;
}

TEST(LayerNormOp, ForwardMatchesReference) {
  for (DType dtype : kFloatTypes) {
    for (const LayerNormCase& c : kLayerCases) {
      for (int params = 0; params < 4; ++params) {  // bit 0: Scale, bit 1: Bias
        SCOPED_TRACE(str_cat(dtype_name(dtype), " ", c.x, " axis ", c.axis, " params ", params));
        Tensor x = random_tensor(c.x, dtype, 1, -2, 3);
        Shape right{x.numel() / layer_norm_rows(c)};
        Tensor scale = random_tensor(right, dtype, 2, 0.5, 2);
        Tensor bias = random_tensor(right, dtype, 3);
        const Tensor* s = params & 1 ? &scale : nullptr;
        const Tensor* b = params & 2 ? &bias : nullptr;
        LayerNormReference want = reference_layer_norm(x, s, b, c.axis);
        OpTest t = layer_norm_op(x, s, b, c.axis);
        t.check_output("Y", from_f64(want.y, dtype), 1e-5, 1e-5);
        t.check_output("Mean", from_f64(want.mean, dtype), 1e-6, 1e-5);
        t.check_output("Variance", from_f64(want.var, dtype), 1e-6, 1e-5);
      }
    }
  }
}

TEST(LayerNormOp, GradientsMatchFiniteDifferences) {
  for (const LayerNormCase& c : {LayerNormCase{{3, 5}, 1}, LayerNormCase{{2, 3, 4}, 1},
                                 LayerNormCase{{2, 3, 4}, 2}, LayerNormCase{{2, 3}, 0}}) {
    SCOPED_TRACE(str_cat(c.x, " axis ", c.axis));
    Tensor x = random_tensor(c.x, DType::kF64, 4, -2, 2);
    Shape right{x.numel() / layer_norm_rows(c)};
    Tensor scale = random_tensor(right, DType::kF64, 5, 0.5, 2);
    Tensor bias = random_tensor(right, DType::kF64, 6);
    layer_norm_op(x, &scale, &bias, c.axis).check_grad({"X", "Scale", "Bias"}, "Y");
    layer_norm_op(x, nullptr, nullptr, c.axis).check_grad({"X"}, "Y");
    layer_norm_op(x, &scale, nullptr, c.axis).check_grad({"X", "Scale"}, "Y");
  }
}

TEST(LayerNormOp, Float32GradientsMatchFloat64) {
  for (const LayerNormCase& c : kLayerCases) {
    SCOPED_TRACE(str_cat(c.x, " axis ", c.axis));
    Tensor x = random_tensor(c.x, DType::kF32, 7, -2, 2);
    Shape right{x.numel() / layer_norm_rows(c)};
    Tensor scale = random_tensor(right, DType::kF32, 8, 0.5, 2);
    Tensor bias = random_tensor(right, DType::kF32, 9);
    Tensor y, m, v;
    kernels::layer_norm(x, &scale, &bias, c.axis, kEps, &y, &m, &v);
    Tensor dy = random_tensor(c.x, DType::kF32, 10);
    Tensor dx32, ds32, db32, dx64, ds64, db64;
    kernels::layer_norm_grad(x, &scale, m, v, dy, c.axis, kEps, &dx32, &ds32, &db32);
    const Tensor scale64 = to_f64(scale);
    kernels::layer_norm_grad(to_f64(x), &scale64, to_f64(m), to_f64(v), to_f64(dy), c.axis, kEps,
                             &dx64, &ds64, &db64);
    std::string why;
    EXPECT_TRUE(all_close(dx32, from_f64(dx64, DType::kF32), 1e-5, 1e-4, &why)) << why;
    EXPECT_TRUE(all_close(ds32, from_f64(ds64, DType::kF32), 1e-4, 1e-4, &why)) << why;
    EXPECT_TRUE(all_close(db32, from_f64(db64, DType::kF32), 1e-4, 1e-4, &why)) << why;
  }
}

TEST(LayerNormOp, ShapeInferenceKeepsUnknownDims) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {-1, 7, 16});
  b.persistable("g", DType::kF32, {16});
  b.op("layer_norm", {{"X", {"x"}}, {"Scale", {"g"}}}, {{"Y", {"y"}}, {"Mean", {"m"}}},
       {{"begin_norm_axis", int64_t{2}}});
  EXPECT_EQ(p.global_block().find_local_var("y")->shape, Shape({-1, 7, 16}));
  EXPECT_EQ(p.global_block().find_local_var("m")->shape, Shape({-1}));
}

TEST(LayerNormOp, RejectsBadAxisAndParams) {
  Tensor x = random_tensor({2, 3, 4}, DType::kF32, 1);
  Tensor wrong = random_tensor({4}, DType::kF32, 2);
  expect_error(layer_norm_op(x, nullptr, nullptr, 3), {"begin_norm_axis 3", "[2, 3, 4]"});
  expect_error(layer_norm_op(x, nullptr, nullptr, -1), {"begin_norm_axis -1"});
  expect_error(layer_norm_op(x, &wrong, nullptr, 1), {"Scale [4]", "should be [12]"});
  Tensor f64 = random_tensor({12}, DType::kF64, 2);
  expect_error(layer_norm_op(x, nullptr, &f64, 1), {"Bias", "float32"});
}

}  // namespace
}  // namespace skiff
