// elementwise_pow, elementwise_mod and elementwise_floordiv: Python's semantics for
// floats and integers (signs of remainders, floors of negative quotients), numpy
// broadcasting, gradients of pow and mod; atan2 over all four quadrants; and errors (zero
// divisors, negative integer powers, mixed dtypes, integer atan2); the integer ops
// (bitwise and/or/xor/not, shifts past the bit width, gcd and lcm of signed values); the
// smallest integer over -1 as numpy answers it (no trap).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;

Tensor values(const Shape& shape, const std::vector<double>& v, DType dtype) {
  return from_f64(Tensor::from_vector<double>(shape, v), dtype);
}

OpTest binary(const std::string& type, const Tensor& x, const Tensor& y) {
  OpTest t(type);
  t.input("X", x).input("Y", y);
  return t;
}

TEST(BinaryMathOp, ModAndFloorDivFollowPython) {
  // -7 % 3 == 2, 7 % -3 == -2, -7 // 3 == -3, 7 // -3 == -3 (as Python)
  for (DType dt : {DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor x = values({4}, {-7, 7, 7, -7}, dt), y = values({4}, {3, -3, 3, -3}, dt);
    binary("elementwise_mod", x, y).check_output("Out", values({4}, {2, -2, 1, -1}, dt), 0, 0);
    binary("elementwise_floordiv", x, y).check_output("Out", values({4}, {-3, -3, 2, 2}, dt), 0, 0);
  }
  const Tensor xf = values({2}, {5.5, -5.5}, DType::kF64);
  binary("elementwise_mod", xf, values({}, {2}, DType::kF64))
      .check_output("Out", values({2}, {1.5, 0.5}, DType::kF64));
}

template <typename T>
Tensor ints(const std::vector<T>& v) {
  return Tensor::from_vector<T>({static_cast<int64_t>(v.size())}, v);
}

template <typename T>
void check_smallest_over_minus_one() {
  // min // -1 and min / -1 are min (the true quotient wraps), min % -1 is 0: numpy's
  // answers, where the machine's division traps.
  constexpr T kMin = std::numeric_limits<T>::min(), kMax = std::numeric_limits<T>::max();
  const Tensor x = ints<T>({kMin, kMin, 7, kMax, -7}), y = ints<T>({-1, 1, -1, -1, -1});
  binary("elementwise_floordiv", x, y)
      .check_output("Out", ints<T>({kMin, kMin, -7, -kMax, 7}), 0, 0);
  binary("elementwise_mod", x, y).check_output("Out", ints<T>({0, 0, 0, 0, 0}), 0, 0);
  binary("elementwise_div", x, y).check_output("Out", ints<T>({kMin, kMin, -7, -kMax, 7}), 0, 0);
  // Powers past the range wrap as numpy's: 2 ** (bits - 1) is min.
  binary("elementwise_pow", ints<T>({2, -1}), ints<T>({sizeof(T) * 8 - 1, kMax}))
      .check_output("Out", ints<T>({kMin, -1}), 0, 0);
}

TEST(BinaryMathOp, TheSmallestIntegerOverMinusOneWrapsAsNumpy) {
  check_smallest_over_minus_one<int32_t>();
  check_smallest_over_minus_one<int64_t>();
}

TEST(BinaryMathOp, PowBroadcastsAndStaysExactOnIntegers) {
  const Tensor x = values({2, 1}, {2, 3}, DType::kI64), y = values({3}, {0, 1, 10}, DType::kI64);
  binary("elementwise_pow", x, y)
      .check_output("Out", values({2, 3}, {1, 2, 1024, 1, 3, 59049}, DType::kI64), 0, 0);
  for (DType dt : {DType::kF32, DType::kF64}) {
    const Tensor a = random_tensor({4, 3}, dt, 1, 0.1, 3), b = random_tensor({3}, dt, 2, -2, 2);
    std::vector<double> want;
    const auto av = testing::to_f64(a).to_vector<double>(),
               bv = testing::to_f64(b).to_vector<double>();
    for (int i = 0; i < 12; ++i) want.push_back(std::pow(av[i], bv[i % 3]));
    binary("elementwise_pow", a, b).check_output("Out", values({4, 3}, want, dt), 1e-6, 1e-5);
  }
  // a large operand goes through the threaded loop
  const Tensor big = random_tensor({300, 300}, DType::kF64, 3, 0.5, 1.5);
  binary("elementwise_mod", big, values({}, {0.25}, DType::kF64)).check_output("Out", [&] {
    std::vector<double> v = big.to_vector<double>();
    for (double& e : v) e = std::fmod(e, 0.25);
    return values({300, 300}, v, DType::kF64);
  }());
}

TEST(BinaryMathOp, Gradients) {
  const Tensor x = random_tensor({3, 4}, DType::kF64, 4, 0.5, 2);
  binary("elementwise_pow", x, random_tensor({4}, DType::kF64, 5, -1.5, 1.5))
      .check_grad({"X", "Y"});
  binary("elementwise_mod", x, random_tensor({3, 1}, DType::kF64, 6, 0.3, 0.7))
      .check_grad({"X", "Y"});
  // floordiv is piecewise constant: zero gradients (away from its jumps)
  binary("elementwise_floordiv", values({3}, {1.3, -2.2, 4.1}, DType::kF64),
         values({3}, {0.7, 0.9, -1.6}, DType::kF64))
      .check_grad({"X", "Y"});
}

TEST(BinaryMathOp, Atan2CoversEveryQuadrant) {
  for (DType dt : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor x = random_tensor({4, 50}, dt, 7, -3, 3), y = random_tensor({50}, dt, 8, -3, 3);
    const auto xv = testing::to_f64(x).to_vector<double>(),
               yv = testing::to_f64(y).to_vector<double>();
    std::vector<double> want;
    for (int i = 0; i < 200; ++i) want.push_back(std::atan2(xv[i], yv[i % 50]));
    binary("atan2", x, y).check_output("Out", values({4, 50}, want, dt), 1e-6, 1e-6);
  }
  // the axes: (0, 1) -> 0, (1, 0) -> pi/2, (0, -1) -> pi, (-1, 0) -> -pi/2
  const double pi = 3.14159265358979323846;
  binary("atan2", values({4}, {0, 1, 0, -1}, DType::kF64), values({4}, {1, 0, -1, 0}, DType::kF64))
      .check_output("Out", values({4}, {0, pi / 2, pi, -pi / 2}, DType::kF64), 0, 1e-15);
  binary("atan2", random_tensor({3, 4}, DType::kF64, 9, -2, 2),
         random_tensor({3, 1}, DType::kF64, 10, 0.5, 2))
      .check_grad({"X", "Y"});
  binary("atan2", random_tensor({4}, DType::kF64, 11, -2, 2),
         random_tensor({2, 4}, DType::kF64, 12, -2, -0.5))
      .check_grad({"X", "Y"});
}

TEST(BinaryMathOp, BitwiseOpsOnIntegersAndBools) {
  for (DType dt : {DType::kI32, DType::kI64}) {
    SCOPED_TRACE(dtype_name(dt));
    // 12 = 0b1100, 10 = 0b1010; -1 is all ones; broadcast [2, 1] against [2]
    const Tensor x = values({2, 1}, {12, -1}, dt), y = values({2}, {10, 5}, dt);
    binary("bitwise_and", x, y).check_output("Out", values({2, 2}, {8, 4, 10, 5}, dt), 0, 0);
    binary("bitwise_or", x, y).check_output("Out", values({2, 2}, {14, 13, -1, -1}, dt), 0, 0);
    binary("bitwise_xor", x, y).check_output("Out", values({2, 2}, {6, 9, -11, -6}, dt), 0, 0);
    OpTest bnot("bitwise_not");
    bnot.input("X", values({3}, {0, 5, -6}, dt))
        .check_output("Out", values({3}, {-1, -6, 5}, dt), 0, 0);
  }
  const Tensor p = values({4}, {1, 1, 0, 0}, DType::kBool),
               q = values({4}, {1, 0, 1, 0}, DType::kBool);
  binary("bitwise_and", p, q).check_output("Out", values({4}, {1, 0, 0, 0}, DType::kBool), 0, 0);
  binary("bitwise_or", p, q).check_output("Out", values({4}, {1, 1, 1, 0}, DType::kBool), 0, 0);
  binary("bitwise_xor", p, q).check_output("Out", values({4}, {0, 1, 1, 0}, DType::kBool), 0, 0);
  OpTest bnot("bitwise_not");
  bnot.input("X", p).check_output("Out", values({4}, {0, 0, 1, 1}, DType::kBool), 0, 0);
}

TEST(BinaryMathOp, ShiftsPastTheWidth) {
  // int32: -8 << 1 = -16, 5 << 2 = 20; shifts by 40 or -1 give 0 (left), sign (right)
  const Tensor x = values({4}, {-8, 5, 127, -1}, DType::kI32);
  const Tensor y = values({4}, {1, 2, 40, -1}, DType::kI32);
  binary("bitwise_left_shift", x, y)
      .check_output("Out", values({4}, {-16, 20, 0, 0}, DType::kI32), 0, 0);
  binary("bitwise_right_shift", x, y)
      .check_output("Out", values({4}, {-4, 1, 0, -1}, DType::kI32), 0, 0);
  binary("bitwise_right_shift", x, y)
      .attr("is_arithmetic", false)
      .check_output("Out", values({4}, {2147483644, 1, 0, 0}, DType::kI32), 0, 0);
  // int64: 1 << 62, -2^40 >> 3 logically fills with zeros: 2^61 - 2^37
  const Tensor big = values({2}, {1, -1099511627776.0}, DType::kI64);
  binary("bitwise_left_shift", big, values({1}, {62}, DType::kI64))
      .check_output("Out", values({2}, {4611686018427387904.0, 0}, DType::kI64), 0, 0);
  binary("bitwise_right_shift", big, values({1}, {3}, DType::kI64))
      .attr("is_arithmetic", false)
      .check_output("Out", values({2}, {0, 2305842871774740480.0}, DType::kI64), 0, 0);
}

TEST(BinaryMathOp, GcdAndLcmOfSignedValues) {
  for (DType dt : {DType::kI32, DType::kI64}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor x = values({5}, {-12, 0, 0, 7, 21}, dt), y = values({5}, {18, 0, -5, 13, -6}, dt);
    binary("gcd", x, y).check_output("Out", values({5}, {6, 0, 5, 1, 3}, dt), 0, 0);
    binary("lcm", x, y).check_output("Out", values({5}, {36, 0, 0, 91, 42}, dt), 0, 0);
    binary("gcd", values({2, 1}, {4, 9}, dt), values({3}, {6, 3, 8}, dt))
        .check_output("Out", values({2, 3}, {2, 1, 4, 3, 3, 1}, dt), 0, 0);
  }
}

TEST(BinaryMathOp, Errors) {
  const Tensor i = values({2}, {4, 5}, DType::kI64);
  expect_error(binary("elementwise_mod", i, values({2}, {1, 0}, DType::kI64)),
               {"elementwise_mod", "division by zero"});
  expect_error(binary("elementwise_floordiv", i, values({1}, {0}, DType::kI64)),
               {"elementwise_floordiv", "division by zero"});
  expect_error(binary("elementwise_pow", i, values({1}, {-1}, DType::kI64)),
               {"elementwise_pow", "negative"});
  expect_error(binary("elementwise_pow", i, values({2}, {1, 2}, DType::kF32)),
               {"elementwise_pow", "int64", "float32"});
  expect_error(binary("elementwise_mod", i, values({3}, {1, 2, 3}, DType::kI64)), {"[2]", "[3]"});
  expect_error(binary("atan2", i, i), {"atan2", "float32 or float64", "int64"});
  const Tensor f = values({2}, {1, 2}, DType::kF32), b = values({2}, {1, 0}, DType::kBool);
  expect_error(binary("bitwise_and", f, f), {"bitwise_and", "int32 or int64 or bool", "float32"});
  expect_error(binary("gcd", b, b), {"gcd", "int32 or int64", "bool"});
  expect_error(binary("bitwise_left_shift", b, b), {"bitwise_left_shift", "bool"});
  expect_error(binary("bitwise_xor", i, values({2}, {1, 2}, DType::kI32)), {"int64", "int32"});
  OpTest bnot("bitwise_not");
  expect_error(bnot.input("X", f), {"bitwise_not", "float32"});
}

}  // namespace
}  // namespace skiff
