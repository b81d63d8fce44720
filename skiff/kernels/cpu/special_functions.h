// Scalar special functions that <cmath> lacks, in double precision: the inverse error
// function, digamma (psi) and trigamma (psi'). The unary math kernels map them over tensors.
//
//   double x = kernels::erfinv(0.5);   // erf(x) == 0.5
//   double d = kernels::digamma(3.0);  // 1 + 1/2 - euler_gamma
#pragma once

#include <cmath>
#include <limits>

namespace skiff::kernels {

// x with erf(x) == y for y in (-1, 1); +-inf at +-1, NaN outside [-1, 1].
inline double erfinv(double y) {
  const double a = std::fabs(y);
  if (!(a <= 1.0)) return std::numeric_limits<double>::quiet_NaN();
  if (a == 1.0) return std::copysign(std::numeric_limits<double>::infinity(), y);
  // A polynomial start good to about 1e-7 (in w = -log(1 - y^2)) ...
  double w = -std::log((1.0 - a) * (1.0 + a)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941}) {
      p = c + p * w;
    }
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682}) {
      p = c + p * w;
    }
  }
  double x = p * a;
  // ... then Halley steps on erf(x) - a; past 0.5 the residual is (1 - a) - erfc(x), where
  // 1 - a is exact, so the tails keep their relative precision.
  const double two_over_sqrt_pi = 1.1283791670955126;
  for (int step = 0; step < 2; ++step) {
    const double r = a <= 0.5 ? std::erf(x) - a : (1.0 - a) - std::erfc(x);
    const double u = r / (two_over_sqrt_pi * std::exp(-x * x));
    x -= u / (1.0 + x * u);
  }
  return std::copysign(x, y);
}

// psi(x) = d/dx log(gamma(x)); -inf at 0, NaN at negative integers.
inline double digamma(double x) {
  constexpr double kPi = 3.14159265358979323846;
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  if (x < 0.0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
    // reflection: psi(x) = psi(1 - x) - pi / tan(pi x)
    return digamma(1.0 - x) - kPi / std::tan(kPi * x);
  }
  double acc = 0.0;
  while (x < 10.0) {  // psi(x) = psi(x + 1) - 1 / x
    acc -= 1.0 / x;
    x += 1.0;
  }
  const double z = 1.0 / (x * x);
  const double series =
      z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132)))));
  return acc + std::log(x) - 0.5 / x - series;
}

// psi'(x) = d/dx psi(x); +inf at 0 and at negative integers.
inline double trigamma(double x) {
  constexpr double kPi = 3.14159265358979323846;
  if (x <= 0.0 && x == std::floor(x)) return std::numeric_limits<double>::infinity();
  if (x < 0.0) {
    // reflection: psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x)
    const double s = std::sin(kPi * x);
    return kPi * kPi / (s * s) - trigamma(1.0 - x);
  }
  double acc = 0.0;
  while (x < 10.0) {  // psi'(x) = psi'(x + 1) + 1 / x^2
    acc += 1.0 / (x * x);
    x += 1.0;
  }
  const double r = 1.0 / x, z = r * r;
  // 1/x + 1/(2x^2) + sum of B_2k / x^(2k+1)
  const double series =
      r * z *
      (1.0 / 6 -
       z * (1.0 / 30 -
            z * (1.0 / 42 - z * (1.0 / 30 - z * (5.0 / 66 - z * (691.0 / 2730 - z * (7.0 / 6)))))));
  return acc + r + 0.5 * z + series;
}

}  // namespace skiff::kernels
