// fft_c2c, fft_r2c, fft_c2r against a direct O(n^2) DFT in double precision, over
// power-of-two and other lengths (radix-2 and Bluestein), one and two axes, the three
// normalizations, float and double; gradients by finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::complex_values;
using testing::expect_error;
using testing::OpTest;
using testing::random_tensor;
using C = std::complex<double>;
using Ints = std::vector<int64_t>;

std::vector<C> values_of(const Tensor& t) {
  std::vector<C> out;
  if (is_complex(t.dtype())) {
    SKIFF_DISPATCH_COMPLEX(t.dtype(), T, {
      for (int64_t i = 0; i < t.numel(); ++i) out.push_back(C(t.data<T>()[i]));
    });
  } else {
    SKIFF_DISPATCH_FLOATING(t.dtype(), T, {
      for (int64_t i = 0; i < t.numel(); ++i) out.push_back(C(t.data<T>()[i], 0));
    });
  }
  return out;
}

double scale_of(const std::string& norm, bool forward, double n) {
  if (norm == "ortho") return 1 / std::sqrt(n);
  return (forward ? norm == "forward" : norm == "backward") ? 1 / n : 1;
}

// The direct DFT of [rows, n] data along its last axis (sign by direction), unscaled.
std::vector<C> dft_rows(const std::vector<C>& v, int64_t rows, int64_t n, bool forward) {
  std::vector<C> out(v.size());
  const double sign = forward ? -1 : 1;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < n; ++k) {
      C s = 0;
      for (int64_t j = 0; j < n; ++j)
        s += v[r * n + j] * std::polar(1.0, sign * 2 * M_PI * double(j * k % n) / double(n));
      out[r * n + k] = s;
    }
  return out;
}

TEST(FftOp, C2cMatchesDirectDft) {
  for (int64_t n : {1, 2, 5, 8, 12, 17, 64}) {
    for (const char* norm : {"backward", "forward", "ortho"}) {
      for (bool forward : {true, false}) {
        SCOPED_TRACE(std::to_string(n) + " " + norm + (forward ? " forward" : " inverse"));
        const Tensor x = random_tensor({3, n}, DType::kC128, n);
        std::vector<C> want = dft_rows(values_of(x), 3, n, forward);
        for (C& c : want) c *= scale_of(norm, forward, double(n));
        OpTest t("fft_c2c");
        t.input("X", x).attr("axes", Ints{-1}).attr("normalization", std::string(norm));
        t.attr("forward", forward);
        t.check_output("Out", complex_values({3, n}, want, DType::kC128), 1e-10, 1e-9);
      }
    }
  }
}

TEST(FftOp, C2cTwoAxesAndComplex64) {
  const Tensor x = random_tensor({4, 6}, DType::kC64, 11);
  // along axis 1, then axis 0 (transposed rows)
  std::vector<C> v = dft_rows(values_of(x), 4, 6, true);
  std::vector<C> t(24), u;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) t[j * 4 + i] = v[i * 6 + j];
  u = dft_rows(t, 6, 4, true);
  std::vector<C> want(24);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) want[i * 6 + j] = u[j * 4 + i];
  OpTest op("fft_c2c");
  op.input("X", x).attr("axes", Ints{0, 1}).attr("normalization", std::string("backward"));
  op.check_output("Out", complex_values({4, 6}, want, DType::kC64), 1e-4, 1e-4);
}

TEST(FftOp, R2cOnesidedAndFull) {
  for (int64_t n : {6, 7, 8}) {
    SCOPED_TRACE(n);
    const Tensor x = random_tensor({2, n}, DType::kF64, 20 + n);
    const std::vector<C> full = dft_rows(values_of(x), 2, n, true);
    const int64_t half = n / 2 + 1;
    std::vector<C> want;
    for (int r = 0; r < 2; ++r)
      for (int64_t k = 0; k < half; ++k) want.push_back(full[r * n + k] / std::sqrt(double(n)));
    OpTest t("fft_r2c");
    t.input("X", x).attr("axes", Ints{1}).attr("normalization", std::string("ortho"));
    t.attr("onesided", true);
    t.check_output("Out", complex_values({2, half}, want, DType::kC128), 1e-10, 1e-9);
    OpTest f("fft_r2c");
    f.input("X", x).attr("axes", Ints{1}).attr("onesided", false);
    f.check_output("Out", complex_values({2, n}, full, DType::kC128), 1e-10, 1e-9);
  }
}

TEST(FftOp, C2rInvertsR2c) {
  for (int64_t n : {6, 7, 16}) {
    SCOPED_TRACE(n);
    const Tensor x = random_tensor({3, n}, DType::kF32, 40 + n);
    OpTest fwd("fft_r2c");
    fwd.input("X", x).attr("axes", Ints{-1});
    const Tensor spectrum = fwd.run()["Out"][0];
    OpTest inv("fft_c2r");
    inv.input("X", spectrum).attr("axes", Ints{-1}).attr("last_dim_size", n);
    inv.check_output("Out", x, 1e-5, 1e-4);
  }
  OpTest bad("fft_c2r");
  bad.input("X", random_tensor({2, 3}, DType::kC64, 1)).attr("axes", Ints{-1});
  bad.attr("last_dim_size", int64_t{8});
  expect_error(bad, {"fft_c2r", "5"});
}

TEST(FftOp, Gradients) {
  for (const char* norm : {"backward", "ortho", "forward"}) {
    SCOPED_TRACE(norm);
    OpTest c2c("fft_c2c");
    c2c.input("X", random_tensor({2, 5}, DType::kC128, 1))
        .attr("axes", Ints{0, 1})
        .attr("normalization", std::string(norm));
    c2c.check_grad({"X"});
    OpTest inv("fft_c2c");
    inv.input("X", random_tensor({6}, DType::kC128, 2))
        .attr("axes", Ints{0})
        .attr("normalization", std::string(norm))
        .attr("forward", false);
    inv.check_grad({"X"});
    for (int64_t n : {6, 7}) {
      OpTest r2c("fft_r2c");
      r2c.input("X", random_tensor({3, n}, DType::kF64, 3))
          .attr("axes", Ints{0, 1})
          .attr("normalization", std::string(norm));
      r2c.check_grad({"X"});
      OpTest c2r("fft_c2r");
      c2r.input("X", random_tensor({3, n / 2 + 1}, DType::kC128, 4))
          .attr("axes", Ints{0, 1})
          .attr("normalization", std::string(norm))
          .attr("last_dim_size", n);
      // The imaginary parts of the zero (and, n even, the last) frequency do not reach Out:
      // their gradients are 0, as the finite differences find.
      c2r.check_grad({"X"});
    }
  }
}

}  // namespace
}  // namespace skiff
