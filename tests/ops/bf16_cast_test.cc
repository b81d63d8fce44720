// bfloat16 conversions: the bfloat16 value type (round to nearest, ties to even; NaN, inf,
// overflow, denormals), the vectorised array routines against it over many bit patterns,
// float64's single rounding, and the cast / cast_grad / assign ops on bfloat16.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "skiff/kernels/cpu/bf16_convert.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

float float_of_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint16_t round_bits(uint32_t float_bits) { return bfloat16(float_of_bits(float_bits)).bits; }

TEST(Bf16Convert, RoundsToNearestTiesToEven) {
  EXPECT_EQ(round_bits(0x3f800000), 0x3f80);  // 1.0 exactly
  EXPECT_EQ(round_bits(0x3f808000), 0x3f80);  // 1 + 2^-8: halfway, to the even 0x3f80
  EXPECT_EQ(round_bits(0x3f818000), 0x3f82);  // halfway between 0x3f81 and 0x3f82: up
  EXPECT_EQ(round_bits(0x3f808001), 0x3f81);  // just above halfway
  EXPECT_EQ(round_bits(0x3f807fff), 0x3f80);  // just below halfway
  EXPECT_EQ(round_bits(0xbf818000), 0xbf82);  // the sign does not change the rule
  EXPECT_EQ(round_bits(0x80000000), 0x8000);  // -0 stays -0
  EXPECT_EQ(bfloat16(0.1f).bits, 0x3dcd);
  EXPECT_EQ(static_cast<float>(bfloat16(0.1f)), 0.10009765625f);
}

TEST(Bf16Convert, NanInfAndOverflow) {
  EXPECT_EQ(round_bits(0x7f800000), 0x7f80);  // +inf
  EXPECT_EQ(round_bits(0xff800000), 0xff80);  // -inf
  EXPECT_EQ(round_bits(0x7fc00000), 0x7fc0);  // quiet NaN
  // NaNs whose payload sits in the dropped bits stay NaN (plain rounding would give inf
  // or carry into the exponent) and come out quiet, with their sign.
  EXPECT_EQ(round_bits(0x7f800001), 0x7fc0);
  EXPECT_EQ(round_bits(0xff800001), 0xffc0);
  EXPECT_EQ(round_bits(0x7fffffff), 0x7fff);
  EXPECT_EQ(round_bits(0x7f7fffff), 0x7f80);  // FLT_MAX overflows to inf
  EXPECT_EQ(round_bits(0x7f7f7fff), 0x7f7f);  // below the tie: the largest bfloat16
  EXPECT_EQ(round_bits(0x7f7f8000), 0x7f80);  // the tie above the largest (odd): inf
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16::from_bits(0x7fc1))));
}

TEST(Bf16Convert, DenormalsRoundLikeAnyValue) {
  EXPECT_EQ(round_bits(0x00010000), 0x0001);  // the smallest bfloat16 denormal, kept
  EXPECT_EQ(round_bits(0x807f0000), 0x807f);  // a negative denormal, kept
  EXPECT_EQ(round_bits(0x00000001), 0x0000);  // the smallest float denormal: to 0
  EXPECT_EQ(round_bits(0x00008000), 0x0000);  // halfway to 0x0001: to the even 0
  EXPECT_EQ(round_bits(0x00018000), 0x0002);  // halfway between 0x0001 and 0x0002: up
  EXPECT_EQ(round_bits(0x007fffff), 0x0080);  // the largest denormal rounds to a normal
  EXPECT_EQ(round_bits(0x80008001), 0x8001);
}

// Bit patterns that hit every case: the specials above, then random ones of every class.
std::vector<uint32_t> test_patterns() {
  std::vector<uint32_t> bits = {0x3f808000, 0x3f818000, 0x7f800001, 0xff800001, 0x7f7fffff,
                                0x00010000, 0x00008000, 0x00018000, 0x807f0000, 0x007fffff,
                                0x80000000, 0x00000000, 0x7f800000, 0xff800000, 0x7fc00000};
  std::mt19937 gen(7);
  for (int i = 0; i < 4000; ++i) {
    uint32_t u = gen();
    if (i % 5 == 0) u &= 0x807fffff;              // a denormal (or zero)
    if (i % 7 == 0) u |= 0x7f800000;              // inf or NaN
    if (i % 3 == 0) u = (u & ~0xffffu) | 0x8000;  // an exact tie
    bits.push_back(u);
  }
  return bits;
}

TEST(Bf16Convert, ArraysMatchTheScalarRounding) {
  const std::vector<uint32_t> bits = test_patterns();
  // Every length up to 70 from several offsets (the vector path's block and tail), then
  // the whole list; a block with one denormal in it takes the fixed-up path.
  for (size_t n :
       {size_t{1}, size_t{31}, size_t{32}, size_t{33}, size_t{64}, size_t{70}, bits.size()}) {
    for (size_t start : {size_t{0}, size_t{5}}) {
      if (start + n > bits.size()) continue;
      std::vector<float> in(n);
      for (size_t i = 0; i < n; ++i) in[i] = float_of_bits(bits[start + i]);
      std::vector<bfloat16> out(n);
      kernels::float_to_bf16(in.data(), out.data(), static_cast<int64_t>(n));
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i].bits, round_bits(bits[start + i]))
            << "float bits 0x" << std::hex << bits[start + i] << " (n=" << std::dec << n << ")";
      }
    }
  }
}

TEST(Bf16Convert, WideningIsExactForEveryBitPattern) {
  std::vector<bfloat16> all(65536);
  for (uint32_t b = 0; b < 65536; ++b) all[b] = bfloat16::from_bits(static_cast<uint16_t>(b));
  std::vector<float> f(all.size());
  std::vector<double> d(all.size());
  kernels::bf16_to_float(all.data(), f.data(), 65536);
  kernels::bf16_to_double(all.data(), d.data(), 65536);
  std::vector<bfloat16> back(all.size()), back64(all.size());
  kernels::float_to_bf16(f.data(), back.data(), 65536);
  kernels::double_to_bf16(d.data(), back64.data(), 65536);
  for (uint32_t b = 0; b < 65536; ++b) {
    uint32_t fb;
    std::memcpy(&fb, &f[b], sizeof fb);
    ASSERT_EQ(fb, b << 16) << "bits 0x" << std::hex << b;
    ASSERT_TRUE(static_cast<double>(f[b]) == d[b] || (std::isnan(f[b]) && std::isnan(d[b])));
    const bool nan = (b & 0x7fff) > 0x7f80;
    // A NaN comes back quiet (its quiet bit set), every other value unchanged.
    const uint16_t want = nan ? static_cast<uint16_t>(b | 0x40) : static_cast<uint16_t>(b);
    ASSERT_EQ(back[b].bits, want) << "bits 0x" << std::hex << b;
    ASSERT_EQ(back64[b].bits, want) << "bits 0x" << std::hex << b;
  }
}

TEST(Bf16Convert, Float64RoundsOnce) {
  const double tie = 1.0 + std::ldexp(1.0, -8);  // halfway between 0x3f80 and 0x3f81
  const double tiny = std::ldexp(1.0, -40);      // below float32's resolution at 1
  EXPECT_EQ(kernels::bf16_from_double(tie).bits, 0x3f80);
  // Through float32 first these would round to the tie and then to even (0x3f80).
  EXPECT_EQ(kernels::bf16_from_double(tie + tiny).bits, 0x3f81);
  EXPECT_EQ(kernels::bf16_from_double(tie - tiny).bits, 0x3f80);
  EXPECT_EQ(kernels::bf16_from_double(1.0 + 3 * std::ldexp(1.0, -8)).bits, 0x3f82);
  EXPECT_EQ(kernels::bf16_from_double(1e300).bits, 0x7f80);
  EXPECT_EQ(kernels::bf16_from_double(-1e300).bits, 0xff80);
  EXPECT_EQ(kernels::bf16_from_double(1e-300).bits, 0x0000);
  EXPECT_EQ(kernels::bf16_from_double(-1e-300).bits, 0x8000);
  EXPECT_EQ(kernels::bf16_from_double(std::ldexp(1.0, -133)).bits, 0x0001);  // a denormal
  EXPECT_TRUE(std::isnan(
      static_cast<float>(kernels::bf16_from_double(std::numeric_limits<double>::quiet_NaN()))));
  // Against an exact rounding of random doubles: the nearest of the two neighbours.
  std::mt19937_64 gen(3);
  for (int i = 0; i < 20000; ++i) {
    const double x = std::ldexp(static_cast<double>(gen() >> 11) * 0x1.0p-53 + 0.5,
                                static_cast<int>(gen() % 200) - 100);
    const bfloat16 r = kernels::bf16_from_double(x);
    const double got = static_cast<float>(r);
    const uint16_t below_bits = got > x ? r.bits - 1 : r.bits;
    const double below = static_cast<float>(bfloat16::from_bits(below_bits));
    const double above = static_cast<float>(bfloat16::from_bits(below_bits + 1));
    const bool take_below =
        x - below < above - x || (x - below == above - x && (below_bits & 1) == 0);
    ASSERT_EQ(got, take_below ? below : above) << "x = " << x;
  }
}

// ---- the cast op

TEST(Bf16Cast, FloatTypesToAndFromBfloat16) {
  const Tensor x64 = random_tensor({5, 7}, DType::kF64, 1, -300.0, 300.0);
  for (DType from : {DType::kF32, DType::kF64}) {
    const Tensor x = from_f64(x64, from);
    OpTest down("cast");
    down.input("X", x).attr("out_dtype", std::string("bfloat16"));
    const Tensor got = down.run().at("Out")[0];
    ASSERT_EQ(got.dtype(), DType::kBF16);
    const Tensor wide = to_f64(x);
    for (int64_t i = 0; i < x.numel(); ++i) {
      ASSERT_EQ(got.data<bfloat16>()[i].bits,
                kernels::bf16_from_double(wide.data<double>()[i]).bits);
    }
    OpTest up("cast");
    up.input("X", got).attr("out_dtype", std::string(dtype_name(from)));
    up.check_output("Out", from_f64(to_f64(got), from), 0, 0);  // widening is exact
  }
}

TEST(Bf16Cast, IntegersAndBool) {
  const Tensor h =
      from_f64(Tensor::from_vector<double>({6}, {2.5, -2.5, 0.0, 300.7, -1.0, 1e-3}), DType::kBF16);
  OpTest to_int("cast");
  to_int.input("X", h).attr("out_dtype", std::string("int32"));
  // 300.7 is 300.0 in bfloat16 (8 significant bits); conversion truncates like C++.
  to_int.check_output("Out", Tensor::from_vector<int32_t>({6}, {2, -2, 0, 300, -1, 0}), 0, 0);
  OpTest to_bool("cast");
  to_bool.input("X", h).attr("out_dtype", std::string("bool"));
  to_bool.check_output("Out", Tensor::from_vector<bool>({6}, {true, true, false, true, true, true}),
                       0, 0);
  OpTest from_int("cast");
  from_int.input("X", Tensor::from_vector<int64_t>({4}, {257, 259, -7, 1 << 20}))
      .attr("out_dtype", std::string("bfloat16"));
  // 257 ties to the even 256; 259 rounds up to 260.
  from_int.check_output(
      "Out", from_f64(Tensor::from_vector<double>({4}, {256, 260, -7, 1 << 20}), DType::kBF16), 0,
      0);
  OpTest from_bool("cast");
  from_bool.input("X", Tensor::from_vector<bool>({2}, {true, false}))
      .attr("out_dtype", std::string("bfloat16"));
  from_bool.check_output("Out", from_f64(Tensor::from_vector<double>({2}, {1, 0}), DType::kBF16), 0,
                         0);
}

TEST(Bf16Cast, LargeTensorsMatchTheScalarRounding) {
  // Past the threading threshold, with values of every magnitude.
  const Tensor x = random_tensor({300000}, DType::kF32, 11, -1e5, 1e5);
  OpTest t("cast");
  t.input("X", x).attr("out_dtype", std::string("bfloat16"));
  const Tensor got = t.run().at("Out")[0];
  for (int64_t i = 0; i < x.numel(); ++i)
    ASSERT_EQ(got.data<bfloat16>()[i].bits, bfloat16(x.data<float>()[i]).bits) << i;
}

TEST(Bf16Cast, GradientCastsBack) {
  // bfloat16 -> float32: X@GRAD is Out@GRAD rounded to bfloat16; float32 -> bfloat16:
  // widened. Both against the float64 program's gradient (the same cotangent values).
  const Tensor h = random_tensor({3, 4}, DType::kBF16, 5);
  OpTest up("cast");
  up.input("X", h).attr("out_dtype", std::string("float32"));
  up.check_grad_in_dtype({"X"}, 0, 1.0 / 256);
  OpTest down("cast");
  down.input("X", random_tensor({3, 4}, DType::kF32, 6)).attr("out_dtype", std::string("bfloat16"));
  down.check_grad_in_dtype({"X"}, 0, 0);  // Out@GRAD is bfloat16: widening it is exact
}

TEST(Bf16Cast, AssignCopiesBfloat16) {
  const Tensor h = random_tensor({2, 3}, DType::kBF16, 8);
  OpTest t("assign");
  t.input("X", h);
  t.check_output("Out", h, 0, 0);
}

TEST(Bf16DType, NamesAndSizes) {
  EXPECT_EQ(dtype_from_name("bfloat16"), DType::kBF16);
  EXPECT_STREQ(dtype_name(DType::kBF16), "bfloat16");
  EXPECT_EQ(dtype_size(DType::kBF16), 2u);
  EXPECT_TRUE(is_floating(DType::kBF16));
  EXPECT_EQ(dtype_of<bfloat16>, DType::kBF16);
  EXPECT_EQ(Tensor::empty({3, 5}, DType::kBF16).nbytes(), 30u);
  const std::string message = testing::error_of([] { dtype_from_name("bf16"); });
  EXPECT_NE(message.find("bfloat16"), std::string::npos) << message;
}

}  // namespace
}  // namespace skiff
