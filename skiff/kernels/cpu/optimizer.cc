#include "skiff/kernels/cpu/optimizer.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/eigen.h"
#include "skiff/kernels/cpu/selected_rows.h"

namespace skiff::kernels {

namespace {

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Updates read and write a few streams per element: split across threads past this.
constexpr int64_t kUpdateGrain = kParallelGrain / 4;
// Multi-statement updates run over pieces this long so each piece stays in L1.
constexpr int64_t kPiece = 1024;

void check_like_param(const Tensor& param, const Tensor& t, const char* what) {
  SKIFF_CHECK(t.shape() == param.shape() && t.dtype() == param.dtype(), what, " ", t.type_str(),
              " does not match the parameter ", param.type_str());
}

double read_scalar(const Tensor& t, const char* what) {
  SKIFF_CHECK(t.initialized() && t.numel() == 1 && is_floating(t.dtype()), what,
              " must be a one-element floating tensor, got ", t.type_str());
  return t.item<double>();
}

// Writes `value` into `out` as a tensor shaped and typed like `like`.
void write_scalar_like(const Tensor& like, double value, Tensor* out) {
  Shape shape = like.shape();
  DType dtype = like.dtype();
  out->resize(shape, dtype);
  SKIFF_DISPATCH_FLOATING(dtype, T, *out->data<T>() = static_cast<T>(value));
}

// Calls fn(begin, end) over [0, n) in L1-sized pieces, threads past kUpdateGrain.
template <typename Fn>
void for_pieces(int64_t n, Fn&& fn) {
  parallel_for(n, kUpdateGrain, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; p += kPiece) fn(p, p + kPiece < e ? p + kPiece : e);
  });
}

// Calls fn(t, nt) on each of `threads` threads (nt: the team's size), or fn(0, 1) on
// this one without entering a parallel region.
template <typename Fn>
void on_threads(int threads, Fn&& fn) {
  if (threads <= 1) {
    fn(0, 1);
    return;
  }
#pragma omp parallel num_threads(threads)
  fn(omp_get_thread_num(), omp_get_num_threads());
}

// Rows ahead whose parameter row a sparse update prefetches (random rows of a large
// table miss every cache).
constexpr int64_t kRowPrefetch = 8;

// A thread's share of a sparse update: the entries [first, last) whose row lies in
// [row_begin, row_end).
struct RowBand {
  int64_t first, last, row_begin, row_end;
};

// Share t of nt over ascending rows: about n / nt entries, starting at the first entry
// of a row, so every entry of a repeated row goes to one thread.
RowBand ascending_band(const std::vector<int64_t>& rows, int t, int nt) {
  const int64_t n = static_cast<int64_t>(rows.size());
  auto start = [&](int k) -> int64_t {
    if (k <= 0 || n == 0) return 0;
    if (k >= nt) return n;
    const int64_t row = rows[static_cast<size_t>(n * k / nt)];
    return std::lower_bound(rows.begin(), rows.end(), row) - rows.begin();
  };
  return {start(t), start(t + 1), INT64_MIN, INT64_MAX};
}

// Share t of nt over rows in any order: the entries of rows in the t-th slice of the
// parameter's height (each thread reads every entry and skips the others).
RowBand height_band(int64_t height, int64_t n, int t, int nt) {
  return {0, n, height * t / nt, height * (t + 1) / nt};
}

template <typename T>
void sgd_typed(const Tensor& param, const Tensor& grad, T lr, Tensor* param_out) {
  param_out->resize(param.shape(), param.dtype());
  const T* p = param.data<T>();
  const T* g = grad.data<T>();
  T* po = param_out->data<T>();
  parallel_for(param.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
    ArrayMap<T>(po + b, e - b) =
        ConstArrayMap<T>(p + b, e - b) - lr * ConstArrayMap<T>(g + b, e - b);
  });
}

template <typename T>
void momentum_typed(const Tensor& param, const Tensor& grad, const Tensor& velocity, T lr,
                    const MomentumOptions& opts, Tensor* param_out, Tensor* velocity_out) {
  param_out->resize(param.shape(), param.dtype());
  velocity_out->resize(velocity.shape(), velocity.dtype());
  const T* p = param.data<T>();
  const T* g = grad.data<T>();
  const T* v = velocity.data<T>();
  T* po = param_out->data<T>();
  T* vo = velocity_out->data<T>();
  const T mu = static_cast<T>(opts.mu);
  for_pieces(param.numel(), [&](int64_t b, int64_t e) {
    const int64_t n = e - b;
    ConstArrayMap<T> gb(g + b, n);
    ArrayMap<T> vob(vo + b, n);
    vob = mu * ConstArrayMap<T>(v + b, n) + gb;
    if (opts.use_nesterov) {
      ArrayMap<T>(po + b, n) = ConstArrayMap<T>(p + b, n) - lr * (gb + mu * vob);
    } else {
      ArrayMap<T>(po + b, n) = ConstArrayMap<T>(p + b, n) - lr * vob;
    }
  });
}

// The per-step constants of one Adam update.
template <typename T>
struct AdamStep {
  T b1, b2;
  T lr_t;     // lr * sqrt(1 - beta2_pow) / (1 - beta1_pow)
  T eps_hat;  // epsilon * sqrt(1 - beta2_pow)
  T decay;    // 1 - lr * decay_coeff (1 for plain Adam)

  AdamStep(const AdamOptions& opts, double lr, double beta1_pow, double beta2_pow)
      : b1(static_cast<T>(opts.beta1)),
        b2(static_cast<T>(opts.beta2)),
        lr_t(static_cast<T>(lr * std::sqrt(1 - beta2_pow) / (1 - beta1_pow))),
        eps_hat(static_cast<T>(opts.epsilon * std::sqrt(1 - beta2_pow))),
        decay(static_cast<T>(1 - lr * opts.decay_coeff)) {}
};

// The data of Adam's tensors, each pointer `offset` elements in.
template <typename T>
struct AdamData {
  const T *p, *m1, *m2, *m2max;  // m2max: nullptr without amsgrad
  T *po, *m1o, *m2o, *m2maxo;

  AdamData(const Tensor& param, const AdamState& state, const AdamOutputs& out)
      : p(param.data<T>()),
        m1(state.moment1->data<T>()),
        m2(state.moment2->data<T>()),
        m2max(out.moment2_max ? state.moment2_max->data<T>() : nullptr),
        po(out.param->data<T>()),
        m1o(out.moment1->data<T>()),
        m2o(out.moment2->data<T>()),
        m2maxo(out.moment2_max ? out.moment2_max->data<T>() : nullptr) {}
};

// Adam over the n elements from `o` on, with gradient g (n values).
template <typename T>
void adam_piece(const AdamStep<T>& c, const AdamData<T>& d, int64_t o, const T* g, int64_t n) {
  ConstArrayMap<T> gb(g, n);
  ArrayMap<T> m1b(d.m1o + o, n), m2b(d.m2o + o, n);
  m1b = c.b1 * ConstArrayMap<T>(d.m1 + o, n) + (1 - c.b1) * gb;
  m2b = c.b2 * ConstArrayMap<T>(d.m2 + o, n) + (1 - c.b2) * gb.square();
  ArrayMap<T> pb(d.po + o, n);
  ConstArrayMap<T> p(d.p + o, n);
  if (d.m2max) {
    ArrayMap<T> vb(d.m2maxo + o, n);
    vb = ConstArrayMap<T>(d.m2max + o, n).max(m2b);
    pb = c.decay * p - c.lr_t * m1b / (vb.sqrt() + c.eps_hat);
  } else {
    pb = c.decay * p - c.lr_t * m1b / (m2b.sqrt() + c.eps_hat);
  }
}

void resize_adam_outputs(const Tensor& param, const AdamState& state, const AdamOutputs& out) {
  out.param->resize(param.shape(), param.dtype());
  out.moment1->resize(state.moment1->shape(), state.moment1->dtype());
  out.moment2->resize(state.moment2->shape(), state.moment2->dtype());
  if (out.moment2_max)
    out.moment2_max->resize(state.moment2_max->shape(), state.moment2_max->dtype());
}

template <typename T>
void adam_typed(const Tensor& param, const Tensor& grad, const AdamState& state,
                const AdamStep<T>& c, const AdamOutputs& out) {
  resize_adam_outputs(param, state, out);
  const AdamData<T> d(param, state, out);
  const T* g = grad.data<T>();
  for_pieces(param.numel(), [&](int64_t b, int64_t e) { adam_piece(c, d, b, g + b, e - b); });
}

// Sparse Adam over merged rows (ascending, unique): every row, or only those rows.
template <typename T>
void adam_rows_typed(const Tensor& param, const SelectedRows& merged, const AdamState& state,
                     const AdamStep<T>& c, bool lazy, const AdamOutputs& out) {
  // Rows left alone in lazy mode keep their values: outputs distinct from their
  // inputs start as copies.
  if (lazy) {
    if (out.param != &param) out.param->copy_from(param);
    if (out.moment1 != state.moment1) out.moment1->copy_from(*state.moment1);
    if (out.moment2 != state.moment2) out.moment2->copy_from(*state.moment2);
    if (out.moment2_max && out.moment2_max != state.moment2_max)
      out.moment2_max->copy_from(*state.moment2_max);
  }
  resize_adam_outputs(param, state, out);
  const int64_t height = param.dim(0), width = height > 0 ? param.numel() / height : 0;
  const AdamData<T> d(param, state, out);
  const T* g = merged.value.data<T>();
  const std::vector<int64_t>& rows = merged.rows;
  if (lazy) {
    for (size_t k = 0; k < rows.size(); ++k)
      adam_piece(c, d, rows[k] * width, g + k * width, width);
    return;
  }
  // Every element, in the same pieces as the dense update, each piece's gradient
  // spelled out (zeros outside the given rows) in a piece-sized buffer: the
  // arithmetic, vectorisation included, is the dense update's, element for element.
  for_pieces(param.numel(), [&](int64_t b, int64_t e) {
    T piece_grad[kPiece];
    std::fill(piece_grad, piece_grad + (e - b), T(0));
    auto k = std::lower_bound(rows.begin(), rows.end(), b / width) - rows.begin();
    for (; k < static_cast<int64_t>(rows.size()) && rows[k] * width < e; ++k) {
      const int64_t row_begin = std::max(rows[k] * width, b);
      const int64_t row_end = std::min((rows[k] + 1) * width, e);
      std::copy(g + k * width + (row_begin - rows[k] * width),
                g + k * width + (row_end - rows[k] * width), piece_grad + (row_begin - b));
    }
    adam_piece(c, d, b, piece_grad, e - b);
  });
}

template <typename T>
void rmsprop_typed(const Tensor& param, const Tensor& grad, const RmspropState& state, T lr,
                   const RmspropOptions& opts, const RmspropOutputs& out) {
  out.param->resize(param.shape(), param.dtype());
  out.mean_square->resize(param.shape(), param.dtype());
  out.moment->resize(param.shape(), param.dtype());
  if (opts.centered) out.mean_grad->resize(param.shape(), param.dtype());
  const T* p = param.data<T>();
  const T* g = grad.data<T>();
  const T* ms = state.mean_square->data<T>();
  const T* mom = state.moment->data<T>();
  const T* mg = opts.centered ? state.mean_grad->data<T>() : nullptr;
  T* po = out.param->data<T>();
  T* mso = out.mean_square->data<T>();
  T* momo = out.moment->data<T>();
  T* mgo = opts.centered ? out.mean_grad->data<T>() : nullptr;
  const T rho = static_cast<T>(opts.decay), eps = static_cast<T>(opts.epsilon);
  const T mu = static_cast<T>(opts.momentum);
  for_pieces(param.numel(), [&](int64_t b, int64_t e) {
    const int64_t n = e - b;
    ConstArrayMap<T> gb(g + b, n);
    ArrayMap<T> msb(mso + b, n), momb(momo + b, n);
    msb = rho * ConstArrayMap<T>(ms + b, n) + (1 - rho) * gb.square();
    if (opts.centered) {
      ArrayMap<T> mgb(mgo + b, n);
      mgb = rho * ConstArrayMap<T>(mg + b, n) + (1 - rho) * gb;
      momb = mu * ConstArrayMap<T>(mom + b, n) + lr * gb / (msb - mgb.square() + eps).sqrt();
    } else {
      momb = mu * ConstArrayMap<T>(mom + b, n) + lr * gb / (msb + eps).sqrt();
    }
    ArrayMap<T>(po + b, n) = ConstArrayMap<T>(p + b, n) - momb;
  });
}

template <typename T>
void adagrad_typed(const Tensor& param, const Tensor& grad, const Tensor& moment, T lr, T eps,
                   Tensor* param_out, Tensor* moment_out) {
  param_out->resize(param.shape(), param.dtype());
  moment_out->resize(moment.shape(), moment.dtype());
  const T* p = param.data<T>();
  const T* g = grad.data<T>();
  const T* m = moment.data<T>();
  T* po = param_out->data<T>();
  T* mo = moment_out->data<T>();
  for_pieces(param.numel(), [&](int64_t b, int64_t e) {
    const int64_t n = e - b;
    ConstArrayMap<T> gb(g + b, n);
    ArrayMap<T> mb(mo + b, n);
    mb = ConstArrayMap<T>(m + b, n) + gb.square();
    ArrayMap<T>(po + b, n) = ConstArrayMap<T>(p + b, n) - lr * gb / (mb.sqrt() + eps);
  });
}

// Reads and checks Adam's learning rate and beta powers, then advances the powers.
struct AdamScalars {
  double lr, beta1_pow, beta2_pow;
};
void check_adam_state(const Tensor& param, const AdamState& state, const AdamOptions& opts,
                      const AdamOutputs& out) {
  check_like_param(param, *state.moment1, "adam: the first moment");
  check_like_param(param, *state.moment2, "adam: the second moment");
  SKIFF_CHECK(opts.amsgrad == (state.moment2_max != nullptr) &&
                  opts.amsgrad == (out.moment2_max != nullptr),
              opts.amsgrad ? "adam with amsgrad needs the running maximum of the second moment "
                             "(Moment2Max) as input and output"
                           : "adam without amsgrad takes no Moment2Max");
  if (opts.amsgrad) check_like_param(param, *state.moment2_max, "adam: Moment2Max");
}

AdamScalars adam_scalars(const AdamState& state, const Tensor& lr, const AdamOptions& opts,
                         const AdamOutputs& out) {
  const AdamScalars s{read_scalar(lr, "adam: the learning rate"),
                      read_scalar(*state.beta1_pow, "adam: Beta1Pow"),
                      read_scalar(*state.beta2_pow, "adam: Beta2Pow")};
  SKIFF_CHECK(s.beta1_pow < 1 && s.beta2_pow < 1, "adam: Beta1Pow (", s.beta1_pow,
              ") and Beta2Pow (", s.beta2_pow, ") must be below 1");
  // The powers are read above, so advancing them first is safe when in place.
  if (out.beta1_pow) write_scalar_like(*state.beta1_pow, s.beta1_pow * opts.beta1, out.beta1_pow);
  if (out.beta2_pow) write_scalar_like(*state.beta2_pow, s.beta2_pow * opts.beta2, out.beta2_pow);
  return s;
}

}  // namespace

void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& lr, Tensor* param_out) {
  check_like_param(param, grad, "sgd: the gradient");
  const double rate = read_scalar(lr, "sgd: the learning rate");
  SKIFF_DISPATCH_FLOATING(param.dtype(), T,
                          sgd_typed<T>(param, grad, static_cast<T>(rate), param_out));
}

void sgd_update_rows(const Tensor& param, const std::vector<int64_t>& rows, const Tensor& grad_rows,
                     const Tensor& lr, Tensor* param_out) {
  SKIFF_CHECK(param.rank() >= 1, "sparse sgd: the parameter must have rows, got ",
              param.type_str());
  const int64_t height = param.dim(0);
  const int64_t width = height > 0 ? param.numel() / height : 0;
  const int64_t n = static_cast<int64_t>(rows.size());
  SKIFF_CHECK(grad_rows.dtype() == param.dtype() && grad_rows.numel() == n * width,
              "sparse sgd: gradient rows ", grad_rows.type_str(), " for ", n,
              " rows do not fit the parameter ", param.type_str());
  const double rate = read_scalar(lr, "sparse sgd: the learning rate");
  bool ascending = true;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = rows[static_cast<size_t>(i)];
    SKIFF_CHECK(r >= 0 && r < height, "sparse sgd: row ", r, " is outside the parameter ",
                param.type_str());
    if (i > 0 && r < rows[static_cast<size_t>(i) - 1]) ascending = false;
  }
  if (param_out != &param) param_out->copy_from(param);
  param_out->resize(param.shape(), param.dtype());  // own the storage before writing
  const int threads = n * width >= kUpdateGrain ? omp_get_max_threads() : 1;
  SKIFF_DISPATCH_FLOATING(param.dtype(), T, {
    const T lr_t = static_cast<T>(rate);
    const T* g = grad_rows.data<T>();
    T* po = param_out->data<T>();
    // Each thread updates one band of parameter rows, applying that band's entries in
    // their order, so repeated rows are applied in order as on one thread.
    on_threads(threads, [&](int t, int nt) {
      const RowBand band = ascending ? ascending_band(rows, t, nt) : height_band(height, n, t, nt);
      for (int64_t i = band.first; i < band.last; ++i) {
        if (i + kRowPrefetch < band.last)
          __builtin_prefetch(po + rows[static_cast<size_t>(i + kRowPrefetch)] * width, 1);
        const int64_t r = rows[static_cast<size_t>(i)];
        if (r < band.row_begin || r >= band.row_end) continue;
        ArrayMap<T>(po + r * width, width) -= lr_t * ConstArrayMap<T>(g + i * width, width);
      }
    });
  });
}

void momentum_update(const Tensor& param, const Tensor& grad, const Tensor& velocity,
                     const Tensor& lr, const MomentumOptions& opts, Tensor* param_out,
                     Tensor* velocity_out) {
  check_like_param(param, grad, "momentum: the gradient");
  check_like_param(param, velocity, "momentum: the velocity");
  const double rate = read_scalar(lr, "momentum: the learning rate");
  SKIFF_DISPATCH_FLOATING(param.dtype(), T,
                          momentum_typed<T>(param, grad, velocity, static_cast<T>(rate), opts,
                                            param_out, velocity_out));
}

void adam_update(const Tensor& param, const Tensor& grad, const AdamState& state, const Tensor& lr,
                 const AdamOptions& opts, const AdamOutputs& out) {
  check_like_param(param, grad, "adam: the gradient");
  check_adam_state(param, state, opts, out);
  const AdamScalars s = adam_scalars(state, lr, opts, out);
  SKIFF_DISPATCH_FLOATING(
      param.dtype(), T,
      adam_typed<T>(param, grad, state, AdamStep<T>(opts, s.lr, s.beta1_pow, s.beta2_pow), out));
}

void adam_update_rows(const Tensor& param, const SelectedRows& grad, const AdamState& state,
                      const Tensor& lr, const AdamOptions& opts, const AdamOutputs& out) {
  SKIFF_CHECK(param.rank() >= 1, "sparse adam: the parameter must have rows, got ",
              param.type_str());
  check_adam_state(param, state, opts, out);
  const int64_t height = param.dim(0), width = height > 0 ? param.numel() / height : 0;
  SelectedRows merged;
  merge_rows(grad, &merged);
  SKIFF_CHECK(
      merged.rows.empty() || (merged.value.dtype() == param.dtype() && row_width(merged) == width),
      "sparse adam: gradient rows ", grad.value.type_str(), " do not fit the parameter ",
      param.type_str());
  for (int64_t r : merged.rows) {
    SKIFF_CHECK(r >= 0 && r < height, "sparse adam: row ", r, " is outside the parameter ",
                param.type_str());
  }
  const AdamScalars s = adam_scalars(state, lr, opts, out);
  SKIFF_DISPATCH_FLOATING(
      param.dtype(), T,
      adam_rows_typed<T>(param, merged, state, AdamStep<T>(opts, s.lr, s.beta1_pow, s.beta2_pow),
                         opts.lazy_mode, out));
}

void rmsprop_update(const Tensor& param, const Tensor& grad, const RmspropState& state,
                    const Tensor& lr, const RmspropOptions& opts, const RmspropOutputs& out) {
  check_like_param(param, grad, "rmsprop: the gradient");
  check_like_param(param, *state.mean_square, "rmsprop: MeanSquare");
  check_like_param(param, *state.moment, "rmsprop: Moment");
  if (opts.centered) {
    SKIFF_CHECK(state.mean_grad && out.mean_grad,
                "rmsprop: centered needs MeanGrad and MeanGradOut");
    check_like_param(param, *state.mean_grad, "rmsprop: MeanGrad");
  }
  const double rate = read_scalar(lr, "rmsprop: the learning rate");
  SKIFF_DISPATCH_FLOATING(param.dtype(), T,
                          rmsprop_typed<T>(param, grad, state, static_cast<T>(rate), opts, out));
}

void adagrad_update(const Tensor& param, const Tensor& grad, const Tensor& moment, const Tensor& lr,
                    double epsilon, Tensor* param_out, Tensor* moment_out) {
  check_like_param(param, grad, "adagrad: the gradient");
  check_like_param(param, moment, "adagrad: Moment");
  const double rate = read_scalar(lr, "adagrad: the learning rate");
  SKIFF_DISPATCH_FLOATING(param.dtype(), T,
                          adagrad_typed<T>(param, grad, moment, static_cast<T>(rate),
                                           static_cast<T>(epsilon), param_out, moment_out));
}

}  // namespace skiff::kernels
