#include "skiff/kernels/cpu/activation.h"

#include <algorithm>
#include <cmath>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/eigen.h"
#include "skiff/kernels/cpu/elementwise_map.h"
// Vectorised erf (gelu) lives among Eigen's special functions.
#include <unsupported/Eigen/SpecialFunctions>

namespace skiff::kernels {

namespace {

// Transcendental functions cost ~10x a memory-bound op per element, so threads pay
// off on smaller tensors than kParallelGrain.
constexpr int64_t kTranscendentalGrain = 1 << 13;

// Gradients that reuse an intermediate (tanh in gelu's tanh form, sigmoid in silu) keep
// it in a stack buffer of this many values, so that dx may alias dout.
constexpr int64_t kBlock = 256;

constexpr double kSqrt2OverPi = 0.7978845608028654;  // sqrt(2 / pi)
constexpr double kInvSqrt2Pi = 0.3989422804014327;   // 1 / sqrt(2 pi)
constexpr double kGeluCubic = 0.044715;              // gelu's tanh form
constexpr double kInvSqrt2 = 0.7071067811865476;     // 1 / sqrt(2)

// Comparisons of bfloat16 bits with zero, as float compares (NaN is neither; -0 is not
// below zero). relu works on the bits alone: no rounding happens.
inline bool bf16_bits_below_zero(uint16_t bits) {
  const uint16_t magnitude = bits & 0x7fffu;
  return (bits & 0x8000u) && magnitude != 0 && magnitude <= 0x7f80u;
}
inline bool bf16_bits_above_zero(uint16_t bits) {
  return !(bits & 0x8000u) && bits != 0 && bits <= 0x7f80u;
}

int64_t grain_of(Activation kind) {
  return kind == Activation::kRelu || kind == Activation::kLeakyRelu ? kParallelGrain
                                                                     : kTranscendentalGrain;
}

// Flattened: Eigen's vectorised tanh, exp and erf are inlined into the packet loop (not
// called per packet), so the packets' long dependency chains overlap: a tiny tensor's tanh
// (W1's 16 values) is latency-bound, about 20% faster so.
template <typename T>
__attribute__((flatten)) void forward_chunk(Activation kind, const ActivationParams& p, const T* x,
                                            T* out, int64_t n) {
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
    case Activation::kGelu:
      if (p.approximate) {
        oa = T(0.5) * xa * (T(1) + (T(kSqrt2OverPi) * (xa + T(kGeluCubic) * xa.cube())).tanh());
      } else {
        oa = T(0.5) * xa * (T(1) + (xa * T(kInvSqrt2)).erf());
      }
      break;
    case Activation::kLeakyRelu:
      oa = (xa > T(0)).select(xa, T(p.alpha) * xa);
      break;
    case Activation::kElu:
      oa = (xa > T(0)).select(xa, T(p.alpha) * xa.expm1());
      break;
    case Activation::kSilu:
      oa = xa * xa.logistic();
      break;
    case Activation::kSoftplus:
      oa = (xa * T(p.beta) > T(p.threshold))
               .select(xa, (xa * T(p.beta)).exp().log1p() * T(1 / p.beta));
      break;
    case Activation::kSqrt:
      oa = xa.sqrt();
      break;
    case Activation::kRsqrt:
      oa = xa.sqrt().inverse();
      break;
    case Activation::kPow:
      oa = xa.pow(T(p.factor));
      break;
  }
}

// Gradients whose derivative needs an intermediate twice, one stack block at a time.
template <typename T>
void backward_blocked(Activation kind, const T* x, const T* dout, T* dx, int64_t n) {
  T buf[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t len = std::min(kBlock, n - b);
    ArrayIn<T> s(x + b, len);
    ArrayIn<T> d(dout + b, len);
    ArrayOut<T> g(dx + b, len);
    ArrayOut<T> t(buf, len);
    if (kind == Activation::kGelu) {  // the tanh form
      const T k = T(kSqrt2OverPi);
      t = (k * (s + T(kGeluCubic) * s.cube())).tanh();
      g = d * (T(0.5) * (T(1) + t) +
               T(0.5) * k * s * (T(1) - t.square()) * (T(1) + T(3 * kGeluCubic) * s.square()));
    } else {  // silu
      t = s.logistic();
      g = d * t * (T(1) + s * (T(1) - t));
    }
  }
}

template <typename T>
void backward_chunk(Activation kind, const ActivationParams& p, const T* saved, const T* dout,
                    T* dx, int64_t n) {
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
      break;                 // s = X
    case Activation::kGelu:  // s = X
      if (p.approximate) {
        backward_blocked(kind, saved, dout, dx, n);
      } else {
        g = d * (T(0.5) * (T(1) + (s * T(kInvSqrt2)).erf()) +
                 T(kInvSqrt2Pi) * s * (T(-0.5) * s.square()).exp());
      }
      break;
    case Activation::kLeakyRelu:
      g = (s > T(0)).select(d, T(p.alpha) * d);
      break;  // s = X
    case Activation::kElu:
      g = (s > T(0)).select(d, d * T(p.alpha) * s.exp());
      break;  // s = X
    case Activation::kSilu:
      backward_blocked(kind, saved, dout, dx, n);
      break;  // s = X
    case Activation::kSoftplus:
      g = (s * T(p.beta) > T(p.threshold)).select(d, d * (s * T(p.beta)).logistic());
      break;  // s = X
    case Activation::kSqrt:
      g = T(0.5) * d / s;
      break;  // s = Out
    case Activation::kRsqrt:
      g = T(-0.5) * d * s.cube();
      break;                // s = Out
    case Activation::kPow:  // s = X
      if (p.factor == 0) {
        g = T(0) * d;  // x^0 is constant (a NaN gradient stays NaN)
      } else {
        g = d * T(p.factor) * s.pow(T(p.factor - 1));
      }
      break;
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
    case Activation::kGelu:
      return "gelu";
    case Activation::kLeakyRelu:
      return "leaky_relu";
    case Activation::kElu:
      return "elu";
    case Activation::kSilu:
      return "silu";
    case Activation::kSoftplus:
      return "softplus";
    case Activation::kSqrt:
      return "sqrt";
    case Activation::kRsqrt:
      return "rsqrt";
    case Activation::kPow:
      return "pow";
  }
  return "?";
}

bool activation_grad_reads_input(Activation kind) {
  switch (kind) {
    case Activation::kRelu:
    case Activation::kTanh:
    case Activation::kSigmoid:
    case Activation::kExp:
    case Activation::kSqrt:
    case Activation::kRsqrt:
      return false;
    default:
      return true;
  }
}

void activation(Activation kind, const Tensor& x, Tensor* out, const ActivationParams& params) {
  out->resize(x.shape(), x.dtype());
  if (x.dtype() == DType::kBF16 && kind == Activation::kRelu) {
    const uint16_t* xp = reinterpret_cast<const uint16_t*>(x.data<bfloat16>());
    uint16_t* op = reinterpret_cast<uint16_t*>(out->data<bfloat16>());
    parallel_for(x.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
#pragma omp simd
      for (int64_t i = b; i < e; ++i) op[i] = bf16_bits_below_zero(xp[i]) ? 0 : xp[i];
    });
    return;
  }
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* xp = x.data<T>();
    T* op = out->data<T>();
    parallel_for(x.numel(), grain_of(kind),
                 [&](int64_t b, int64_t e) { forward_chunk(kind, params, xp + b, op + b, e - b); });
  });
}

void activation_values(Activation kind, const float* x, float* out, int64_t n,
                       const ActivationParams& params) {
  forward_chunk(kind, params, x, out, n);
}

void activation_values(Activation kind, const double* x, double* out, int64_t n,
                       const ActivationParams& params) {
  forward_chunk(kind, params, x, out, n);
}

void activation_grad(Activation kind, const Tensor& saved, const Tensor& dout, Tensor* dx,
                     const ActivationParams& params) {
  const char* saved_slot = activation_grad_reads_input(kind) ? "X" : "Out";
  SKIFF_CHECK(saved.shape() == dout.shape() && saved.dtype() == dout.dtype(), activation_name(kind),
              " grad: ", saved_slot, " is ", saved.type_str(), " but Out@GRAD is ", dout.type_str(),
              "; they must match");
  dx->resize(dout.shape(), dout.dtype());
  if (dout.dtype() == DType::kBF16 && kind == Activation::kRelu) {
    const uint16_t* sp = reinterpret_cast<const uint16_t*>(saved.data<bfloat16>());
    const uint16_t* dp = reinterpret_cast<const uint16_t*>(dout.data<bfloat16>());
    uint16_t* gp = reinterpret_cast<uint16_t*>(dx->data<bfloat16>());
    parallel_for(dout.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
#pragma omp simd
      for (int64_t i = b; i < e; ++i) gp[i] = bf16_bits_above_zero(sp[i]) ? dp[i] : 0;
    });
    return;
  }
  SKIFF_DISPATCH_FLOATING(dout.dtype(), T, {
    const T* sp = saved.data<T>();
    const T* dp = dout.data<T>();
    T* gp = dx->data<T>();
    parallel_for(dout.numel(), grain_of(kind), [&](int64_t b, int64_t e) {
      backward_chunk(kind, params, sp + b, dp + b, gp + b, e - b);
    });
  });
}

void softshrink(const Tensor& x, double threshold, Tensor* out) {
  SKIFF_CHECK(threshold >= 0, "softshrink: threshold must be >= 0, got ", threshold);
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T t = static_cast<T>(threshold);
    map_elements<T>(x, out, [t](T v) { return v > t ? v - t : v < -t ? v + t : T(0); });
  });
}

void softshrink_grad(const Tensor& x, const Tensor& dout, double threshold, Tensor* dx) {
  map_grad("softshrink", x, dout, dx, [threshold](auto v, auto d) {
    using T = decltype(v);
    return v > T(threshold) || v < T(-threshold) ? d : T(0);
  });
}

}  // namespace skiff::kernels
