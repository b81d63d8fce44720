// quantize_linear, dequantize_linear and fake_quantize_dequantize against values worked
// out by hand (per tensor and per channel, zero points, both roundings, saturation), the
// straight-through gradient op, and the errors of a bad scale or grid. (Finite differences
// of a step function say nothing; tests/python/quantization checks the backward of
// programs and eager code against PyTorch's fake-quant ops.)
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/testing/error_of.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::error_of;
using testing::OpTest;
using testing::random_tensor;

// x / 0.5 = {-2, -0.5, 0.5, 1.5, 2.5, 200, -200}
const std::vector<float> kX = {-1.0f, -0.25f, 0.25f, 0.75f, 1.25f, 100.f, -100.f};

Tensor scalar_scale(float s) { return Tensor::from_vector<float>({1}, {s}); }

TEST(QuantizeLinear, RoundsTiesToEvenAddsTheZeroPointAndSaturates) {
  OpTest t("quantize_linear");
  t.input("X", Tensor::from_vector<float>({7}, kX))
      .input("Scale", scalar_scale(0.5f))
      .input("ZeroPoint", Tensor::from_vector<int32_t>({1}, {3}))
      .output("Y");
  t.check_output("Y", Tensor::from_vector<int8_t>({7}, {1, 3, 3, 5, 5, 127, -128}), 0, 0);
  t.attr("round_type", int64_t{1});  // ties away from zero
  t.check_output("Y", Tensor::from_vector<int8_t>({7}, {1, 2, 4, 5, 6, 127, -128}), 0, 0);
}

TEST(QuantizeLinear, Uint8AroundItsZeroPoint) {
  OpTest t("quantize_linear");
  t.input("X", Tensor::from_vector<float>({7}, kX))
      .input("Scale", scalar_scale(0.5f))
      .input("ZeroPoint", Tensor::from_vector<uint8_t>({1}, {128}))
      .attr("out_dtype", std::string("uint8"))
      .output("Y");
  t.check_output("Y", Tensor::from_vector<uint8_t>({7}, {126, 128, 128, 130, 130, 255, 0}), 0, 0);
}

TEST(QuantizeLinear, PerChannelAlongQuantAxis) {
  // X [2, 3], one scale per column (axis 1).
  OpTest t("quantize_linear");
  t.input("X", Tensor::from_vector<float>({2, 3}, {1, 2, 4, -3, -6, 12}))
      .input("Scale", Tensor::from_vector<float>({3}, {1, 2, 4}))
      .attr("quant_axis", int64_t{1})
      .output("Y");
  t.check_output("Y", Tensor::from_vector<int8_t>({2, 3}, {1, 1, 1, -3, -3, 3}), 0, 0);
}

TEST(DequantizeLinear, UndoesQuantizeOnTheGrid) {
  OpTest t("dequantize_linear");
  t.input("X", Tensor::from_vector<int8_t>({2, 3}, {1, 1, 1, -3, -3, 127}))
      .input("Scale", Tensor::from_vector<float>({3}, {1, 2, 4}))
      .input("ZeroPoint", Tensor::from_vector<int8_t>({3}, {0, 1, -1}))
      .attr("quant_axis", int64_t{1})
      .output("Y");
  t.check_output("Y", Tensor::from_vector<float>({2, 3}, {1, 0, 8, -3, -8, 512}), 0, 0);
}

TEST(FakeQuantize, EqualsQuantizeThenDequantize) {
  const Tensor x = random_tensor({4, 5}, DType::kF32, 7, -3, 3);
  const Tensor scale = Tensor::from_vector<float>({4}, {0.01f, 0.02f, 0.05f, 0.1f});
  const Tensor zero = Tensor::from_vector<int32_t>({4}, {0, 5, -3, 10});
  OpTest q("quantize_linear");
  q.input("X", x).input("Scale", scale).input("ZeroPoint", zero).output("Y");
  const Tensor ints = q.run().at("Y").at(0);
  OpTest d("dequantize_linear");
  d.input("X", ints).input("Scale", scale).input("ZeroPoint", zero).output("Y");
  const Tensor want = d.run().at("Y").at(0);
  OpTest f("fake_quantize_dequantize");
  f.input("X", x).input("Scale", scale).input("ZeroPoint", zero);
  f.check_output("Out", want, 1e-6, 0);
}

TEST(FakeQuantize, ClampsToTheGivenRange) {
  OpTest t("fake_quantize_dequantize");
  t.input("X", Tensor::from_vector<double>({7}, {-1.0, -0.25, 0.25, 0.75, 1.25, 100, -100}))
      .input("Scale", Tensor::from_vector<double>({1}, {0.5}))
      .attr("quant_min", int64_t{-2})
      .attr("quant_max", int64_t{1});
  t.check_output("Out", Tensor::from_vector<double>({7}, {-1, 0, 0, 0.5, 0.5, 0.5, -1}), 0, 0);
}

TEST(FakeQuantize, GradientIsStraightThroughInsideTheRange) {
  // Integers {-2, -0(0), 0, 2, 2, 200, -200} with quant range [-2, 1]: inside for the first
  // three only.
  OpTest t("fake_quantize_dequantize_grad");
  t.input("X", Tensor::from_vector<float>({7}, kX))
      .input("Scale", scalar_scale(0.5f))
      .input("Out@GRAD", Tensor::from_vector<float>({7}, {1, 2, 3, 4, 5, 6, 7}))
      .attr("quant_min", int64_t{-2})
      .attr("quant_max", int64_t{1})
      .output("X@GRAD");
  t.check_output("X@GRAD", Tensor::from_vector<float>({7}, {1, 2, 3, 0, 0, 0, 0}), 0, 0);
}

TEST(Quantize, BadScalesAndGridsAreNamed) {
  auto quantize = [](const Tensor& scale, int64_t axis = 0) {
    return error_of([&] {
      OpTest t("quantize_linear");
      t.input("X", Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6}))
          .input("Scale", scale)
          .attr("quant_axis", axis)
          .output("Y");
      t.run();
    });
  };
  std::string what = quantize(scalar_scale(0.f));
  EXPECT_NE(what.find("scale 0 is not a positive finite number"), std::string::npos) << what;
  what = quantize(scalar_scale(NAN));
  EXPECT_NE(what.find("is not a positive finite number"), std::string::npos) << what;
  what = quantize(Tensor::from_vector<float>({3}, {1, -1, 1}), 1);
  EXPECT_NE(what.find("scale -1 of channel 1"), std::string::npos) << what;
  what = quantize(Tensor::from_vector<float>({2}, {1, 1}), 1);
  EXPECT_NE(what.find("has one value per channel but X"), std::string::npos) << what;
  what = error_of([] {
    OpTest t("dequantize_linear");
    t.input("X", Tensor::from_vector<float>({1}, {1})).input("Scale", scalar_scale(1)).output("Y");
    t.run();
  });
  EXPECT_NE(what.find("dequantize_linear: X ('"), std::string::npos) << what;
  EXPECT_NE(what.find("must hold integers, got float32"), std::string::npos) << what;
  what = error_of([] {
    OpTest t("fake_quantize_dequantize");
    t.input("X", Tensor::from_vector<float>({1}, {1}))
        .input("Scale", scalar_scale(1))
        .attr("quant_min", int64_t{5})
        .attr("quant_max", int64_t{5});
    t.run();
  });
  EXPECT_NE(what.find("quant_min 5 is not below quant_max 5"), std::string::npos) << what;
}

}  // namespace
}  // namespace skiff
