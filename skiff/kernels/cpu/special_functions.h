// Scalar special functions that <cmath> lacks, in double precision: the inverse error
// function, digamma (psi), trigamma (psi'), polygamma, the modified Bessel functions I0 and
// I1 (and their exponentially scaled forms) and the regularized incomplete gamma functions.
// The unary and binary math kernels map them over tensors.
//
//   double x = kernels::erfinv(0.5);          // erf(x) == 0.5
//   double d = kernels::digamma(3.0);         // 1 + 1/2 - euler_gamma
//   double p = kernels::gamma_p(2.0, 1.0);    // 1 - 2 / e
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

// The Hurwitz zeta function sum over k >= 0 of (q + k)^-s for an integer s >= 2: shifted up
// past q + k >= 12 term by term, then Euler-Maclaurin; +inf at q = 0, -1, -2, ...
inline double hurwitz_zeta(double s, double q) {
  if (q <= 0.0 && q == std::floor(q)) return std::numeric_limits<double>::infinity();
  double sum = 0.0;
  while (q < 12.0) {
    sum += std::pow(q, -s);
    q += 1.0;
  }
  // B_2j / (2j)! for j = 1..10
  static constexpr double kB[] = {1.0 / 12,
                                  -1.0 / 720,
                                  1.0 / 30240,
                                  -1.0 / 1209600,
                                  1.0 / 47900160,
                                  -691.0 / 1307674368000,
                                  1.0 / 74724249600,
                                  -3617.0 / 10670622842880000,
                                  43867.0 / 5109094217170944000,
                                  -174611.0 / 802857662698291200000.0};
  sum += std::pow(q, 1.0 - s) / (s - 1.0) + 0.5 * std::pow(q, -s);
  // the j-th correction: B_2j / (2j)! * s (s + 1) ... (s + 2j - 2) q^(-s - 2j + 1)
  double rising = s, power = std::pow(q, -s - 1.0);
  for (int j = 0; j < 10; ++j) {
    const double term = kB[j] * rising * power;
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
    rising *= (s + 2 * j + 1) * (s + 2 * j + 2);
    power /= q * q;
  }
  return sum;
}

// psi^(n)(x), the n-th derivative of digamma (n >= 0): (-1)^(n+1) n! zeta(n + 1, x) for
// n >= 2; +-inf at the poles 0, -1, -2, ...
inline double polygamma(int n, double x) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  const double sign = n % 2 == 1 ? 1.0 : -1.0;
  return sign * std::exp(std::lgamma(n + 1.0)) * hurwitz_zeta(n + 1.0, x);
}

// The modified Bessel functions of the first kind I0(x), I1(x) times exp(-|x|) when
// `scaled`: the power series up to |x| = 20, the asymptotic series past it.
inline double bessel_i(int order, double x, bool scaled) {
  const double a = std::fabs(x);
  if (std::isnan(x)) return x;
  double value;
  if (a <= 20.0) {
    // sum over k of (x/2)^(2k + order) / (k! (k + order)!)
    const double h = 0.5 * a, h2 = h * h;
    double term = order == 0 ? 1.0 : h, sum = term;
    for (int k = 1; k < 200; ++k) {
      term *= h2 / (static_cast<double>(k) * (k + order));
      sum += term;
      if (term < 1e-17 * sum) break;
    }
    value = scaled ? sum * std::exp(-a) : sum;
  } else {
    // e^a / sqrt(2 pi a) * sum over k of (-1)^k prod_j (4 order^2 - (2j - 1)^2) / (k! (8a)^k)
    const double mu = 4.0 * order * order;
    double term = 1.0, sum = 1.0;
    for (int k = 1; k < 40; ++k) {
      const double next = -term * (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * a);
      if (std::fabs(next) >= std::fabs(term)) break;  // the series started to diverge
      term = next;
      sum += term;
      if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
    }
    const double base = sum / std::sqrt(2.0 * 3.14159265358979323846 * a);
    value = scaled
                ? base
                : (a > 700.0 ? base * std::exp(a - 350.0) * std::exp(350.0) : base * std::exp(a));
  }
  return order == 1 && x < 0 ? -value : value;
}

// The regularized incomplete gamma functions P(a, x) (lower) and Q(a, x) = 1 - P(a, x)
// (upper) for a >= 0, x >= 0, as Paddle takes them: P(0, x) = 0, Q(0, x) = 1; NaN for a
// negative or NaN argument. Each is computed directly (the series of P below x < a + 1,
// the continued fraction of Q above), so neither loses its small values to 1 - other.
inline void incomplete_gamma(double a, double x, double* p, double* q) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(a) || std::isnan(x) || a < 0.0 || x < 0.0) {
    *p = *q = nan;
    return;
  }
  if (a == 0.0 || x == 0.0) {
    *p = 0.0;
    *q = 1.0;
    return;
  }
  if (std::isinf(x)) {
    *p = 1.0;
    *q = 0.0;
    return;
  }
  // x^a e^-x / gamma(a), in logs so large a and x do not overflow
  const double log_front = a * std::log(x) - x - std::lgamma(a);
  if (x < a + 1.0) {
    // P = x^a e^-x / gamma(a + 1) * sum over k of x^k / ((a + 1) ... (a + k))
    double term = 1.0 / a, sum = term;
    for (int k = 1; k < 100000; ++k) {
      term *= x / (a + k);
      sum += term;
      if (term < 1e-17 * sum) break;
    }
    *p = std::exp(log_front) * sum;
    *q = 1.0 - *p;
    return;
  }
  // Q = x^a e^-x / gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)), by the
  // modified Lentz method.
  constexpr double kTiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / kTiny, d = 1.0 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1.0) < 1e-16) break;
  }
  *q = std::exp(log_front) * h;
  *p = 1.0 - *q;
}

// d/dx P(a, x) = x^(a-1) e^-x / gamma(a) (0 where x or a is 0, NaN off the domain).
inline double gamma_p_derivative(double a, double x) {
  if (std::isnan(a) || std::isnan(x) || a < 0.0 || x < 0.0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (a == 0.0 || std::isinf(x)) return 0.0;
  if (x == 0.0) return a == 1.0 ? 1.0 : a < 1.0 ? std::numeric_limits<double>::infinity() : 0.0;
  return std::exp((a - 1.0) * std::log(x) - x - std::lgamma(a));
}

// P(a, x), the regularized lower incomplete gamma function (see incomplete_gamma).
inline double gamma_p(double a, double x) {
  double p, q;
  incomplete_gamma(a, x, &p, &q);
  return p;
}

// Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function.
inline double gamma_q(double a, double x) {
  double p, q;
  incomplete_gamma(a, x, &p, &q);
  return q;
}

}  // namespace skiff::kernels
