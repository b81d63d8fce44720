// complex, real, imag, conj, as_complex, as_real, angle, complex_abs (values against
// std::complex, gradients by finite differences on the real and imaginary parts), the
// complex forms of elementwise add/sub/mul/div (broadcast) and scale, and cast between
// complex and real dtypes.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::complex_values;
using testing::expect_error;
using testing::OpTest;
using testing::random_tensor;
using C = std::complex<double>;

std::vector<C> values_of(const Tensor& t) {
  std::vector<C> out;
  SKIFF_DISPATCH_COMPLEX(t.dtype(), T, {
    for (int64_t i = 0; i < t.numel(); ++i) out.push_back(C(t.data<T>()[i]));
  });
  return out;
}

std::vector<double> reals_of(const Tensor& t) {
  std::vector<double> out;
  SKIFF_DISPATCH_FLOATING(t.dtype(), T, {
    for (int64_t i = 0; i < t.numel(); ++i) out.push_back(static_cast<double>(t.data<T>()[i]));
  });
  return out;
}

Tensor reals(const Shape& shape, const std::vector<double>& v, DType dtype) {
  return testing::from_f64(Tensor::from_vector<double>(shape, v), dtype);
}

OpTest unary(const char* type, const Tensor& x) {
  OpTest t(type);
  t.input("X", x);
  return t;
}

TEST(ComplexOp, ComplexRealImagRoundTrip) {
  for (DType dt : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor re = random_tensor({3, 4}, dt, 1), im = random_tensor({3, 4}, dt, 2);
    std::vector<C> want;
    const auto a = reals_of(re), b = reals_of(im);
    for (size_t i = 0; i < a.size(); ++i) want.push_back(C(a[i], b[i]));
    const Tensor z = complex_values({3, 4}, want, complex_of(dt));
    OpTest t("complex");
    t.input("X", re).input("Y", im);
    t.check_output("Out", z);
    unary("real", z).check_output("Out", re);
    unary("imag", z).check_output("Out", im);
  }
}

TEST(ComplexOp, Gradients) {
  const Tensor z = random_tensor({2, 3}, DType::kC128, 3);
  for (const char* type : {"real", "imag", "conj", "as_real", "angle", "complex_abs"}) {
    SCOPED_TRACE(type);
    unary(type, z).check_grad({"X"});
  }
  OpTest c("complex");
  c.input("X", random_tensor({2, 3}, DType::kF64, 4))
      .input("Y", random_tensor({2, 3}, DType::kF64, 5));
  c.check_grad({"X", "Y"});
  unary("as_complex", random_tensor({2, 3, 2}, DType::kF64, 6)).check_grad({"X"});
}

TEST(ComplexOp, ConjAngleAbsValues) {
  const std::vector<C> v = {C(3, 4), C(-1, 0), C(0, -2), C(0, 0)};
  const Tensor z = complex_values({4}, v, DType::kC64);
  std::vector<C> conj;
  std::vector<double> angle, abs;
  for (const C& c : v) {
    conj.push_back(std::conj(c));
    angle.push_back(std::arg(c));
    abs.push_back(std::abs(c));
  }
  unary("conj", z).check_output("Out", complex_values({4}, conj, DType::kC64));
  unary("angle", z).check_output("Out", reals({4}, angle, DType::kF32));
  unary("complex_abs", z).check_output("Out", reals({4}, abs, DType::kF32));
  // angle of a real tensor: pi where negative, else 0
  unary("angle", reals({3}, {-2, 0, 5}, DType::kF64))
      .check_output("Out", reals({3}, {M_PI, 0, 0}, DType::kF64));
}

TEST(ComplexOp, AsComplexAsReal) {
  const Tensor x = reals({2, 2}, {1, 2, 3, 4}, DType::kF32);
  const Tensor z = complex_values({2}, {C(1, 2), C(3, 4)}, DType::kC64);
  unary("as_complex", x).check_output("Out", z);
  unary("as_real", z).check_output("Out", x);
  expect_error(unary("as_complex", reals({3}, {1, 2, 3}, DType::kF32)), {"as_complex", "2"});
  expect_error(unary("real", x), {"real", "complex64 or complex128"});
}

TEST(ComplexOp, ElementwiseArithmeticBroadcast) {
  const Tensor x = random_tensor({2, 3}, DType::kC128, 7);
  const Tensor y = random_tensor({3}, DType::kC128, 8);
  const auto xv = values_of(x), yv = values_of(y);
  const char* ops[] = {"elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div"};
  for (int k = 0; k < 4; ++k) {
    SCOPED_TRACE(ops[k]);
    std::vector<C> want;
    for (int i = 0; i < 6; ++i) {
      const C a = xv[i], b = yv[i % 3];
      want.push_back(k == 0 ? a + b : k == 1 ? a - b : k == 2 ? a * b : a / b);
    }
    OpTest t(ops[k]);
    t.input("X", x).input("Y", y);
    t.check_output("Out", complex_values({2, 3}, want, DType::kC128), 1e-12, 1e-12);
    t.check_grad({"X", "Y"});
  }
  OpTest mx("elementwise_max");
  mx.input("X", x).input("Y", x);
  expect_error(mx, {"elementwise_max"});
}

TEST(ComplexOp, ScaleAndCast) {
  const Tensor z = complex_values({2}, {C(1, 2), C(-3, 0.5)}, DType::kC64);
  OpTest s("scale");
  s.input("X", z).attr("scale", 2.0).attr("bias", 1.0);
  s.check_output("Out", complex_values({2}, {C(3, 4), C(-5, 1)}, DType::kC64));
  OpTest to_real("cast");
  to_real.input("X", z).attr("out_dtype", std::string("float64"));
  to_real.check_output("Out", reals({2}, {1, -3}, DType::kF64));
  OpTest to_complex("cast");
  to_complex.input("X", reals({2}, {1.5, -2}, DType::kF32))
      .attr("out_dtype", std::string("complex128"));
  to_complex.check_output("Out", complex_values({2}, {C(1.5, 0), C(-2, 0)}, DType::kC128));
  OpTest widen("cast");
  widen.input("X", z).attr("out_dtype", std::string("complex128"));
  widen.check_output("Out", complex_values({2}, {C(1, 2), C(-3, 0.5)}, DType::kC128));
  OpTest back("cast");
  back.input("X", random_tensor({3}, DType::kF64, 9)).attr("out_dtype", std::string("complex128"));
  back.check_grad({"X"});
}

// An op that only moves or sums values gives, on complex values, its results on the real
// and imaginary parts joined; its gradients pass complex values through.
struct MovingCase {
  const char* type;
  const char* slot;
  std::vector<std::pair<std::string, Attr>> attrs;
};

OpTest moving_op(const MovingCase& c, const Tensor& x, const Tensor& index) {
  OpTest t(c.type);
  t.input(c.slot, x);
  if (std::string(c.type).rfind("gather", 0) == 0) t.input("Index", index);
  for (const auto& [name, value] : c.attrs) t.attr(name, value);
  return t;
}

TEST(ComplexOp, MovingOpsTakeComplexValuesAndGradients) {
  using Ints = std::vector<int64_t>;
  const Tensor z = random_tensor({3, 4}, DType::kC128, 12);
  const Tensor index = Tensor::from_vector<int64_t>({2}, {2, 0});
  const Tensor nd_index = Tensor::from_vector<int64_t>({2, 1}, {1, 2});
  const MovingCase cases[] = {
      {"transpose", "X", {{"axis", Ints{1, 0}}}},
      {"reshape", "X", {{"shape", Ints{2, 6}}}},
      {"concat", "X", {{"axis", int64_t{1}}}},
      {"gather", "X", {{"axis", int64_t{1}}}},
      {"gather_nd", "X", {}},
      {"expand", "X", {{"shape", Ints{2, 3, 4}}}},
      {"tile", "X", {{"repeat_times", Ints{2, 1}}}},
      {"slice", "Input", {{"axes", Ints{1}}, {"starts", Ints{1}}, {"ends", Ints{3}}}},
      {"strided_slice",
       "Input",
       {{"axes", Ints{0, 1}},
        {"starts", Ints{0, 3}},
        {"ends", Ints{3, 0}},
        {"strides", Ints{2, -2}},
        {"decrease_axis", Ints{}}}},
  };
  for (const MovingCase& c : cases) {
    SCOPED_TRACE(c.type);
    const Tensor& idx = std::string(c.type) == "gather_nd" ? nd_index : index;
    Tensor re, im;
    OpTest real_part("real"), imag_part("imag");
    real_part.input("X", z);
    imag_part.input("X", z);
    re = real_part.run()["Out"][0];
    im = imag_part.run()["Out"][0];
    const Tensor out_re = moving_op(c, re, idx).run()["Out"][0];
    const Tensor out_im = moving_op(c, im, idx).run()["Out"][0];
    OpTest join("complex");
    join.input("X", out_re).input("Y", out_im);
    moving_op(c, z, idx).check_output("Out", join.run()["Out"][0], 0, 0);
    moving_op(c, z, idx).check_grad({c.slot});
  }
}

}  // namespace
}  // namespace skiff
