#include "skiff/kernels/cpu/activation.h"

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/eigen.h"

namespace skiff::kernels {

namespace {

template <typename T>
using ArrayIn = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ArrayOut = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

// Transcendental functions cost ~10x a memory-bound op per element, so threads pay
// off on smaller tensors than kParallelGrain.
constexpr int64_t kTranscendentalGrain = 1 << 13;

int64_t grain_of(Activation kind) {
  return kind == Activation::kRelu ? kParallelGrain : kTranscendentalGrain;
}

// Runs fn(begin, end) over [0, n), on several threads only for large n.
template <typename Fn>
void run_split(int64_t n, int64_t grain, Fn&& fn) {
  if (n < 2 * grain) {
    fn(int64_t{0}, n);
  } else {
    parallel_for(n, grain, fn);
  }
}

template <typename T>
void forward_chunk(Activation kind, const T* x, T* out, int64_t n) {
  ArrayIn<T> xa(x, n);
  ArrayOut<T> oa(out, n);
  switch (kind) {
    case Activation::kRelu:
      oa = (xa < T(0)).select(T(0), xa);
      break;  // NaN stays NaN
    case Activation::kTanh:
      oa = xa.tanh();
      break;
    case Activation::kSigmoid:
      oa = xa.logistic();
      break;
    case Activation::kExp:
      oa = xa.exp();
      break;
    case Activation::kLog:
      oa = xa.log();
      break;
  }
}

template <typename T>
void backward_chunk(Activation kind, const T* saved, const T* dout, T* dx, int64_t n) {
  ArrayIn<T> s(saved, n);
  ArrayIn<T> d(dout, n);
  ArrayOut<T> g(dx, n);
  switch (kind) {
    case Activation::kRelu:
      g = (s > T(0)).select(d, T(0));
      break;  // s = Out
    case Activation::kTanh:
      g = d * (T(1) - s.square());
      break;  // s = Out
    case Activation::kSigmoid:
      g = d * s * (T(1) - s);
      break;  // s = Out
    case Activation::kExp:
      g = d * s;
      break;  // s = Out
    case Activation::kLog:
      g = d / s;
      break;  // s = X
  }
}

}  // namespace

const char* activation_name(Activation kind) {
  switch (kind) {
    case Activation::kRelu:
      return "relu";
    case Activation::kTanh:
      return "tanh";
    case Activation::kSigmoid:
      return "sigmoid";
    case Activation::kExp:
      return "exp";
    case Activation::kLog:
      return "log";
  }
  return "?";
}

void activation(Activation kind, const Tensor& x, Tensor* out) {
  out->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* xp = x.data<T>();
    T* op = out->data<T>();
    run_split(x.numel(), grain_of(kind),
              [&](int64_t b, int64_t e) { forward_chunk(kind, xp + b, op + b, e - b); });
  });
}

void activation_grad(Activation kind, const Tensor& saved, const Tensor& dout, Tensor* dx) {
  const char* saved_slot = activation_grad_reads_input(kind) ? "X" : "Out";
  SKIFF_CHECK(saved.shape() == dout.shape() && saved.dtype() == dout.dtype(), activation_name(kind),
              " grad: ", saved_slot, " is ", saved.type_str(), " but Out@GRAD is ", dout.type_str(),
              "; they must match");
  dx->resize(dout.shape(), dout.dtype());
  SKIFF_DISPATCH_FLOATING(dout.dtype(), T, {
    const T* sp = saved.data<T>();
    const T* dp = dout.data<T>();
    T* gp = dx->data<T>();
    run_split(dout.numel(), grain_of(kind),
              [&](int64_t b, int64_t e) { backward_chunk(kind, sp + b, dp + b, gp + b, e - b); });
  });
}

}  // namespace skiff::kernels
