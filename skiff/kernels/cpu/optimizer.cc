#include "skiff/kernels/cpu/optimizer.h"

#include <cmath>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/eigen.h"

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

template <typename T>
void adam_typed(const Tensor& param, const Tensor& grad, const AdamState& state, double lr,
                double beta1_pow, double beta2_pow, const AdamOptions& opts,
                const AdamOutputs& out) {
  out.param->resize(param.shape(), param.dtype());
  out.moment1->resize(state.moment1->shape(), state.moment1->dtype());
  out.moment2->resize(state.moment2->shape(), state.moment2->dtype());
  const T* p = param.data<T>();
  const T* g = grad.data<T>();
  const T* m1 = state.moment1->data<T>();
  const T* m2 = state.moment2->data<T>();
  T* po = out.param->data<T>();
  T* m1o = out.moment1->data<T>();
  T* m2o = out.moment2->data<T>();
  const T b1 = static_cast<T>(opts.beta1), b2 = static_cast<T>(opts.beta2);
  const T lr_t = static_cast<T>(lr * std::sqrt(1 - beta2_pow) / (1 - beta1_pow));
  const T eps_hat = static_cast<T>(opts.epsilon * std::sqrt(1 - beta2_pow));
  for_pieces(param.numel(), [&](int64_t b, int64_t e) {
    const int64_t n = e - b;
    ConstArrayMap<T> gb(g + b, n);
    ArrayMap<T> m1b(m1o + b, n), m2b(m2o + b, n);
    m1b = b1 * ConstArrayMap<T>(m1 + b, n) + (1 - b1) * gb;
    m2b = b2 * ConstArrayMap<T>(m2 + b, n) + (1 - b2) * gb.square();
    ArrayMap<T>(po + b, n) = ConstArrayMap<T>(p + b, n) - lr_t * m1b / (m2b.sqrt() + eps_hat);
  });
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
  SKIFF_CHECK(grad_rows.dtype() == param.dtype() &&
                  grad_rows.numel() == static_cast<int64_t>(rows.size()) * width,
              "sparse sgd: gradient rows ", grad_rows.type_str(), " for ", rows.size(),
              " rows do not fit the parameter ", param.type_str());
  const double rate = read_scalar(lr, "sparse sgd: the learning rate");
  if (param_out != &param) param_out->copy_from(param);
  param_out->resize(param.shape(), param.dtype());  // own the storage before writing
  SKIFF_DISPATCH_FLOATING(param.dtype(), T, {
    const T lr_t = static_cast<T>(rate);
    const T* g = grad_rows.data<T>();
    T* po = param_out->data<T>();
    for (size_t i = 0; i < rows.size(); ++i) {
      const int64_t r = rows[i];
      SKIFF_CHECK(r >= 0 && r < height, "sparse sgd: row ", r, " is outside the parameter ",
                  param.type_str());
      ArrayMap<T>(po + r * width, width) -= lr_t * ConstArrayMap<T>(g + i * width, width);
    }
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
  check_like_param(param, *state.moment1, "adam: the first moment");
  check_like_param(param, *state.moment2, "adam: the second moment");
  const double rate = read_scalar(lr, "adam: the learning rate");
  const double b1p = read_scalar(*state.beta1_pow, "adam: Beta1Pow");
  const double b2p = read_scalar(*state.beta2_pow, "adam: Beta2Pow");
  SKIFF_CHECK(b1p < 1 && b2p < 1, "adam: Beta1Pow (", b1p, ") and Beta2Pow (", b2p,
              ") must be below 1");
  // The powers are read above, so advancing them first is safe when in place.
  if (out.beta1_pow) write_scalar_like(*state.beta1_pow, b1p * opts.beta1, out.beta1_pow);
  if (out.beta2_pow) write_scalar_like(*state.beta2_pow, b2p * opts.beta2, out.beta2_pow);
  SKIFF_DISPATCH_FLOATING(param.dtype(), T,
                          adam_typed<T>(param, grad, state, rate, b1p, b2p, opts, out));
}

}  // namespace skiff::kernels
