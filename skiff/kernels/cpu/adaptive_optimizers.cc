#include "skiff/kernels/cpu/adaptive_optimizers.h"

#include <algorithm>
#include <cmath>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/eigen.h"

namespace skiff::kernels {

namespace {

// Updates read and write several streams per element: split across threads past this.
constexpr int64_t kUpdateGrain = kParallelGrain / 4;
// Multi-statement updates run over pieces this long so each piece stays in L1.
constexpr int64_t kPiece = 1024;
// The most threads a reduction keeps a partial sum for.
constexpr int kMaxReductionThreads = 64;

void check_like_param(const Tensor& param, const Tensor& t, const char* op, const char* what) {
  SKIFF_CHECK(t.initialized() && t.shape() == param.shape() && t.dtype() == param.dtype(), op, ": ",
              what, " ", t.type_str(), " does not match the parameter ", param.type_str());
}

double read_scalar(const Tensor& t, const char* op, const char* what) {
  SKIFF_CHECK(t.initialized() && t.numel() == 1 && is_floating(t.dtype()), op, ": ", what,
              " must be a one-element floating tensor, got ", t.type_str());
  return t.item<double>();
}

// The value of a per-step state tensor (any shape, every element equal): its first element.
double read_step_value(const Tensor& t, const char* op, const char* what) {
  SKIFF_CHECK(t.initialized() && t.numel() >= 1 && is_floating(t.dtype()), op, ": ", what,
              " must be a non-empty floating tensor, got ", t.type_str());
  double v = 0;
  SKIFF_DISPATCH_FLOATING(t.dtype(), T, v = static_cast<double>(t.data<T>()[0]));
  return v;
}

// Makes `out` shaped and typed like `like`, every element `value`.
void write_step_value(const Tensor& like, double value, Tensor* out) {
  if (!out) return;
  const Shape shape = like.shape();
  const DType dtype = like.dtype();
  out->resize(shape, dtype);
  SKIFF_DISPATCH_FLOATING(dtype, T, {
    T* o = out->data<T>();
    std::fill(o, o + out->numel(), static_cast<T>(value));
  });
}

void resize_like(const Tensor& like, Tensor* out) { out->resize(like.shape(), like.dtype()); }

// Calls fn(begin, end) over [0, n) in L1-sized pieces, threads past kUpdateGrain.
template <typename Fn>
void for_pieces(int64_t n, Fn&& fn) {
  parallel_for(n, kUpdateGrain, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; p += kPiece) fn(p, p + kPiece < e ? p + kPiece : e);
  });
}

// Sums fn(begin, end) (each returning {a, b}) over L1-sized pieces of [0, n): one partial
// sum per thread, added in thread order, so the result does not depend on timing.
template <typename Fn>
void sum_pieces(int64_t n, Fn&& fn, double* a, double* b) {
  const int threads =
      n >= 2 * kUpdateGrain ? std::min(omp_get_max_threads(), kMaxReductionThreads) : 1;
  double part_a[kMaxReductionThreads] = {}, part_b[kMaxReductionThreads] = {};
  auto run = [&](int t, int nt) {
    const int64_t chunk = (n + nt - 1) / nt;
    const int64_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    for (int64_t p = begin; p < end; p += kPiece) {
      const auto [x, y] = fn(p, std::min(p + kPiece, end));
      part_a[t] += x;
      part_b[t] += y;
    }
  };
  if (threads <= 1) {
    run(0, 1);
  } else {
#pragma omp parallel num_threads(threads)
    run(omp_get_thread_num(), omp_get_num_threads());
  }
  *a = *b = 0;
  for (int t = 0; t < threads; ++t) *a += part_a[t], *b += part_b[t];
}

template <typename T>
void adamax_typed(const Tensor& param, const Tensor& grad, const AdamaxState& s, T lr_t,
                  const AdamaxOptions& opts, const AdamaxOutputs& out) {
  resize_like(param, out.param);
  resize_like(*s.moment, out.moment);
  resize_like(*s.inf_norm, out.inf_norm);
  const T *p = param.data<T>(), *g = grad.data<T>();
  const T *m = s.moment->data<T>(), *u = s.inf_norm->data<T>();
  T *po = out.param->data<T>(), *mo = out.moment->data<T>(), *uo = out.inf_norm->data<T>();
  const T b1 = static_cast<T>(opts.beta1), b2 = static_cast<T>(opts.beta2);
  const T eps = static_cast<T>(opts.epsilon);
  for_pieces(param.numel(), [&](int64_t b, int64_t e) {
    const int64_t n = e - b;
    ArrayIn<T> gb(g + b, n);
    ArrayOut<T> mb(mo + b, n), ub(uo + b, n);
    mb = b1 * ArrayIn<T>(m + b, n) + (1 - b1) * gb;
    ub = gb.abs().max(b2 * ArrayIn<T>(u + b, n) + eps);
    ArrayOut<T>(po + b, n) = ArrayIn<T>(p + b, n) - lr_t * (mb / ub);
  });
}

template <typename T>
void adadelta_typed(const Tensor& param, const Tensor& grad, const Tensor& asg, const Tensor& asu,
                    T lr, const AdadeltaOptions& opts, const AdadeltaOutputs& out) {
  resize_like(param, out.param);
  resize_like(asg, out.avg_squared_grad);
  resize_like(asu, out.avg_squared_update);
  const T *p = param.data<T>(), *g = grad.data<T>();
  const T *eg = asg.data<T>(), *edx = asu.data<T>();
  T *po = out.param->data<T>(), *ego = out.avg_squared_grad->data<T>();
  T* edxo = out.avg_squared_update->data<T>();
  const T rho = static_cast<T>(opts.rho), eps = static_cast<T>(opts.epsilon);
  for_pieces(param.numel(), [&](int64_t b, int64_t e) {
    const int64_t n = e - b;
    T step[kPiece];
    ArrayIn<T> gb(g + b, n), edxb(edx + b, n);
    ArrayOut<T> egb(ego + b, n), d(step, n);
    egb = rho * ArrayIn<T>(eg + b, n) + (1 - rho) * gb.square();
    d = -((edxb + eps).sqrt() / (egb + eps).sqrt() * gb);
    ArrayOut<T>(po + b, n) = ArrayIn<T>(p + b, n) + lr * d;
    ArrayOut<T>(edxo + b, n) = rho * edxb + (1 - rho) * d.square();
  });
}

// NAdam's per-step constants: p -= (c_m * m + c_g * g) / (sqrt(v * inv_bc2) + eps).
struct NadamStep {
  double c_m, c_g, inv_bc2;
};

template <typename T>
void nadam_typed(const Tensor& param, const Tensor& grad, const NadamState& s, const NadamStep& c,
                 const NadamOptions& opts, const NadamOutputs& out) {
  resize_like(param, out.param);
  resize_like(*s.moment1, out.moment1);
  resize_like(*s.moment2, out.moment2);
  const T *p = param.data<T>(), *g = grad.data<T>();
  const T *m1 = s.moment1->data<T>(), *m2 = s.moment2->data<T>();
  T *po = out.param->data<T>(), *m1o = out.moment1->data<T>(), *m2o = out.moment2->data<T>();
  const T b1 = static_cast<T>(opts.beta1), b2 = static_cast<T>(opts.beta2);
  const T eps = static_cast<T>(opts.epsilon), c_m = static_cast<T>(c.c_m);
  const T c_g = static_cast<T>(c.c_g), inv_bc2 = static_cast<T>(c.inv_bc2);
  for_pieces(param.numel(), [&](int64_t b, int64_t e) {
    const int64_t n = e - b;
    ArrayIn<T> gb(g + b, n);
    ArrayOut<T> m1b(m1o + b, n), m2b(m2o + b, n);
    m1b = b1 * ArrayIn<T>(m1 + b, n) + (1 - b1) * gb;
    m2b = b2 * ArrayIn<T>(m2 + b, n) + (1 - b2) * gb.square();
    ArrayOut<T>(po + b, n) =
        ArrayIn<T>(p + b, n) - (c_m * m1b + c_g * gb) / ((m2b * inv_bc2).sqrt() + eps);
  });
}

// RAdam's per-step constants: rectified, p -= c_m * m * sqrt_bc2 / (sqrt(v) + eps);
// else p -= c_m * m.
struct RadamStep {
  bool rectified;
  double c_m, sqrt_bc2;
};

template <typename T>
void radam_typed(const Tensor& param, const Tensor& grad, const RadamState& s, const RadamStep& c,
                 const RadamOptions& opts, const RadamOutputs& out) {
  resize_like(param, out.param);
  resize_like(*s.moment1, out.moment1);
  resize_like(*s.moment2, out.moment2);
  const T *p = param.data<T>(), *g = grad.data<T>();
  const T *m1 = s.moment1->data<T>(), *m2 = s.moment2->data<T>();
  T *po = out.param->data<T>(), *m1o = out.moment1->data<T>(), *m2o = out.moment2->data<T>();
  const T b1 = static_cast<T>(opts.beta1), b2 = static_cast<T>(opts.beta2);
  const T eps = static_cast<T>(opts.epsilon), c_m = static_cast<T>(c.c_m);
  const T sqrt_bc2 = static_cast<T>(c.sqrt_bc2);
  for_pieces(param.numel(), [&](int64_t b, int64_t e) {
    const int64_t n = e - b;
    ArrayIn<T> gb(g + b, n);
    ArrayOut<T> m1b(m1o + b, n), m2b(m2o + b, n);
    m1b = b1 * ArrayIn<T>(m1 + b, n) + (1 - b1) * gb;
    m2b = b2 * ArrayIn<T>(m2 + b, n) + (1 - b2) * gb.square();
    if (c.rectified) {
      ArrayOut<T>(po + b, n) = ArrayIn<T>(p + b, n) - c_m * m1b * sqrt_bc2 / (m2b.sqrt() + eps);
    } else {
      ArrayOut<T>(po + b, n) = ArrayIn<T>(p + b, n) - c_m * m1b;
    }
  });
}

// LAMB's per-step constants: r = m * inv_bc1 / (sqrt(v * inv_bc2) + eps) + decay * p.
template <typename T>
struct LambStep {
  T b1, b2, eps, decay, inv_bc1, inv_bc2;
};

// Writes r for the n elements of the updated moments m1, m2 and the parameter p into r.
template <typename T>
void lamb_direction(const LambStep<T>& c, const T* m1, const T* m2, const T* p, int64_t n, T* r) {
  ArrayOut<T>(r, n) =
      ArrayIn<T>(m1, n) * c.inv_bc1 / ((ArrayIn<T>(m2, n) * c.inv_bc2).sqrt() + c.eps) +
      c.decay * ArrayIn<T>(p, n);
}

template <typename T>
void lamb_typed(const Tensor& param, const Tensor& grad, const LambState& s, double lr,
                const LambStep<T>& c, bool adapt, const LambOutputs& out) {
  resize_like(param, out.param);
  resize_like(*s.moment1, out.moment1);
  resize_like(*s.moment2, out.moment2);
  const T *p = param.data<T>(), *g = grad.data<T>();
  const T *m1 = s.moment1->data<T>(), *m2 = s.moment2->data<T>();
  T *po = out.param->data<T>(), *m1o = out.moment1->data<T>(), *m2o = out.moment2->data<T>();
  const int64_t total = param.numel();
  // Pass 1: the moments, and with adaptation the squared norms of p and r (r is
  // recomputed in pass 2 from the same values, so the parameter needs no buffer for it).
  auto moments = [&](int64_t b, int64_t n) {
    ArrayIn<T> gb(g + b, n);
    ArrayOut<T>(m1o + b, n) = c.b1 * ArrayIn<T>(m1 + b, n) + (1 - c.b1) * gb;
    ArrayOut<T>(m2o + b, n) = c.b2 * ArrayIn<T>(m2 + b, n) + (1 - c.b2) * gb.square();
  };
  double ratio = 1;
  if (adapt) {
    double p_sq = 0, r_sq = 0;
    sum_pieces(
        total,
        [&](int64_t b, int64_t e) {
          const int64_t n = e - b;
          moments(b, n);
          T r[kPiece];
          lamb_direction(c, m1o + b, m2o + b, p + b, n, r);
          const double pp = static_cast<double>(ArrayIn<T>(p + b, n).square().sum());
          const double rr = static_cast<double>(ArrayIn<T>(r, n).square().sum());
          return std::pair<double, double>(pp, rr);
        },
        &p_sq, &r_sq);
    if (p_sq > 0 && r_sq > 0) ratio = std::sqrt(p_sq) / std::sqrt(r_sq);
  } else {
    for_pieces(total, [&](int64_t b, int64_t e) { moments(b, e - b); });
  }
  const T step = static_cast<T>(lr * ratio);
  for_pieces(total, [&](int64_t b, int64_t e) {
    const int64_t n = e - b;
    T r[kPiece];
    lamb_direction(c, m1o + b, m2o + b, p + b, n, r);
    ArrayOut<T>(po + b, n) = ArrayIn<T>(p + b, n) - step * ArrayIn<T>(r, n);
  });
}

}  // namespace

void adamax_update(const Tensor& param, const Tensor& grad, const AdamaxState& state,
                   const Tensor& lr, const AdamaxOptions& opts, const AdamaxOutputs& out) {
  check_like_param(param, grad, "adamax", "the gradient");
  check_like_param(param, *state.moment, "adamax", "Moment");
  check_like_param(param, *state.inf_norm, "adamax", "InfNorm");
  const double rate = read_scalar(lr, "adamax", "the learning rate");
  const double b1p = read_step_value(*state.beta1_pow, "adamax", "Beta1Pow");
  SKIFF_CHECK(b1p < 1, "adamax: Beta1Pow (", b1p, ") must be below 1");
  write_step_value(*state.beta1_pow, b1p * opts.beta1, out.beta1_pow);
  SKIFF_DISPATCH_FLOATING(
      param.dtype(), T,
      adamax_typed<T>(param, grad, state, static_cast<T>(rate / (1 - b1p)), opts, out));
}

void adadelta_update(const Tensor& param, const Tensor& grad, const Tensor& avg_squared_grad,
                     const Tensor& avg_squared_update, const Tensor& lr,
                     const AdadeltaOptions& opts, const AdadeltaOutputs& out) {
  check_like_param(param, grad, "adadelta", "the gradient");
  check_like_param(param, avg_squared_grad, "adadelta", "AvgSquaredGrad");
  check_like_param(param, avg_squared_update, "adadelta", "AvgSquaredUpdate");
  const double rate = read_scalar(lr, "adadelta", "the learning rate");
  SKIFF_DISPATCH_FLOATING(param.dtype(), T,
                          adadelta_typed<T>(param, grad, avg_squared_grad, avg_squared_update,
                                            static_cast<T>(rate), opts, out));
}

void nadam_update(const Tensor& param, const Tensor& grad, const NadamState& state,
                  const Tensor& lr, const NadamOptions& opts, const NadamOutputs& out) {
  check_like_param(param, grad, "nadam", "the gradient");
  check_like_param(param, *state.moment1, "nadam", "Moment1");
  check_like_param(param, *state.moment2, "nadam", "Moment2");
  const double rate = read_scalar(lr, "nadam", "the learning rate");
  const double decay_pow =
      read_step_value(*state.momentum_decay_pow, "nadam", "MomentumDecayPow") * 0.96;
  const double b2p = read_step_value(*state.beta2_pow, "nadam", "Beta2Pow") * opts.beta2;
  const double decay_term = std::pow(decay_pow, opts.momentum_decay);
  const double mu_t = opts.beta1 * (1 - 0.5 * decay_term);
  const double mu_next = opts.beta1 * (1 - 0.5 * decay_term * std::pow(0.96, opts.momentum_decay));
  const double mu_product = read_step_value(*state.mu_product, "nadam", "MuProduct") * mu_t;
  SKIFF_CHECK(b2p < 1 && mu_product * mu_next < 1, "nadam: Beta2Pow (", b2p,
              ") and the momentum product must stay below 1");
  const NadamStep step{rate * mu_next / (1 - mu_product * mu_next),
                       rate * (1 - mu_t) / (1 - mu_product), 1 / (1 - b2p)};
  write_step_value(*state.momentum_decay_pow, decay_pow, out.momentum_decay_pow);
  write_step_value(*state.beta2_pow, b2p, out.beta2_pow);
  write_step_value(*state.mu_product, mu_product, out.mu_product);
  SKIFF_DISPATCH_FLOATING(param.dtype(), T, nadam_typed<T>(param, grad, state, step, opts, out));
}

void radam_update(const Tensor& param, const Tensor& grad, const RadamState& state,
                  const Tensor& lr, const RadamOptions& opts, const RadamOutputs& out) {
  check_like_param(param, grad, "radam", "the gradient");
  check_like_param(param, *state.moment1, "radam", "Moment1");
  check_like_param(param, *state.moment2, "radam", "Moment2");
  const double rate = read_scalar(lr, "radam", "the learning rate");
  const double b1p = read_step_value(*state.beta1_pow, "radam", "Beta1Pow") * opts.beta1;
  const double b2p = read_step_value(*state.beta2_pow, "radam", "Beta2Pow") * opts.beta2;
  SKIFF_CHECK(b1p < 1 && b2p < 1, "radam: Beta1Pow (", b1p, ") and Beta2Pow (", b2p,
              ") must stay below 1");
  const double rho =
      (read_step_value(*state.rho, "radam", "Rho") * (opts.beta2 - b2p) + b2p) / (1 - b2p);
  const double rho_inf = 2 / (1 - opts.beta2) - 1;
  const double rho_t = rho_inf - 2 * rho;
  RadamStep step{rho_t > 5, rate / (1 - b1p), std::sqrt(1 - b2p)};
  if (step.rectified) {
    step.c_m *=
        std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
  }
  write_step_value(*state.beta1_pow, b1p, out.beta1_pow);
  write_step_value(*state.beta2_pow, b2p, out.beta2_pow);
  write_step_value(*state.rho, rho, out.rho);
  SKIFF_DISPATCH_FLOATING(param.dtype(), T, radam_typed<T>(param, grad, state, step, opts, out));
}

void lamb_update(const Tensor& param, const Tensor& grad, const LambState& state, const Tensor& lr,
                 const LambOptions& opts, const LambOutputs& out) {
  check_like_param(param, grad, "lamb", "the gradient");
  check_like_param(param, *state.moment1, "lamb", "Moment1");
  check_like_param(param, *state.moment2, "lamb", "Moment2");
  const double rate = read_scalar(lr, "lamb", "the learning rate");
  const double b1p = read_step_value(*state.beta1_pow, "lamb", "Beta1Pow");
  const double b2p = read_step_value(*state.beta2_pow, "lamb", "Beta2Pow");
  SKIFF_CHECK(b1p < 1 && b2p < 1, "lamb: Beta1Pow (", b1p, ") and Beta2Pow (", b2p,
              ") must be below 1");
  write_step_value(*state.beta1_pow, b1p * opts.beta1, out.beta1_pow);
  write_step_value(*state.beta2_pow, b2p * opts.beta2, out.beta2_pow);
  const bool adapt = opts.weight_decay > 0 || opts.always_adapt;
  SKIFF_DISPATCH_FLOATING(param.dtype(), T, {
    const LambStep<T> c{static_cast<T>(opts.beta1),    static_cast<T>(opts.beta2),
                        static_cast<T>(opts.epsilon),  static_cast<T>(opts.weight_decay),
                        static_cast<T>(1 / (1 - b1p)), static_cast<T>(1 / (1 - b2p))};
    lamb_typed<T>(param, grad, state, rate, c, adapt, out);
  });
}

}  // namespace skiff::kernels
