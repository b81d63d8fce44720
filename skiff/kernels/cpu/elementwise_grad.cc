// Gradients of the binary elementwise ops (declared in elementwise.h).
#include <complex>
#include <cstring>
#include <type_traits>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/bf16_convert.h"
#include "skiff/kernels/cpu/broadcast_plan.h"
#include "skiff/kernels/cpu/elementwise.h"

namespace skiff::kernels {

namespace {

// v for a real value, its conjugate for a complex one: Paddle's complex gradient is
// Out@GRAD times the conjugate of the derivative.
template <typename T>
T cj(T v) {
  if constexpr (std::is_arithmetic_v<T>) {
    return v;
  } else {
    return std::conj(v);
  }
}
template <typename T>
inline constexpr bool kIsComplex = !std::is_arithmetic_v<T>;

// Per op: the contributions to dx and dy of one output element, from x, y, the
// output o and its gradient d. kUsesOut says whether o is read.
template <typename T>
struct AddGrad {
  static constexpr bool kUsesOut = false;
  static T dx(T, T, T, T d) { return d; }
  static T dy(T, T, T, T d) { return d; }
};
template <typename T>
struct SubGrad {
  static constexpr bool kUsesOut = false;
  static T dx(T, T, T, T d) { return d; }
  static T dy(T, T, T, T d) { return -d; }
};
template <typename T>
struct MulGrad {
  static constexpr bool kUsesOut = false;
  static T dx(T, T y, T, T d) { return d * cj(y); }
  static T dy(T x, T, T, T d) { return d * cj(x); }
};
template <typename T>
struct DivGrad {
  static constexpr bool kUsesOut = true;
  static T dx(T, T y, T, T d) { return d / cj(y); }
  static T dy(T, T y, T o, T d) { return -d * cj(o / y); }
};
template <typename T>
struct MaxGrad {  // ties go to x
  static constexpr bool kUsesOut = false;
  static T dx(T x, T y, T, T d) { return x >= y ? d : T(0); }
  static T dy(T x, T y, T, T d) { return x >= y ? T(0) : d; }
};
template <typename T>
struct MinGrad {  // ties go to x
  static constexpr bool kUsesOut = false;
  static T dx(T x, T y, T, T d) { return x <= y ? d : T(0); }
  static T dy(T x, T y, T, T d) { return x <= y ? T(0) : d; }
};

// The operands of a stretch of output elements, and where its gradients go.
template <typename T>
struct GradRun {
  const T* x;
  const T* y;
  const T* out;  // null unless the op reads its output
  const T* d;
  T* gx;  // null when dx is not wanted
  T* gy;

  // The same operands advanced to output element o, x element xo, y element yo.
  GradRun at(int64_t o, int64_t xo, int64_t yo) const {
    return {x + xo,
            y + yo,
            out ? out + o : nullptr,
            d + o,
            gx ? gx + xo : nullptr,
            gy ? gy + yo : nullptr};
  }
  // Element i of the output (0 when the op does not read it).
  template <typename G>
  T out_at(int64_t i) const {
    if constexpr (G::kUsesOut) return out[i];
    return T(0);
  }
};

// The gradient partial of x (kOfX) or y for one output element.
template <typename G, bool kOfX, typename T>
T partial(T x, T y, T o, T d) {
  if constexpr (kOfX) {
    return G::dx(x, y, o, d);
  } else {
    return G::dy(x, y, o, d);
  }
}

// Same shapes everywhere: writes each gradient element once. (`omp simd`: see
// binary_run in elementwise.cc.)
template <typename G, typename T>
void grad_same_shape(const GradRun<T>& r, int64_t n) {
  if (r.gx) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i)
      r.gx[i] = G::dx(r.x[i], r.y[i], r.template out_at<G>(i), r.d[i]);
  }
  if (r.gy) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i)
      r.gy[i] = G::dy(r.x[i], r.y[i], r.template out_at<G>(i), r.d[i]);
  }
}

// The inner stride of the operand whose gradient is computed.
constexpr int64_t side_stride(bool of_x, int64_t xs, int64_t ys) { return of_x ? xs : ys; }

// One stretch of a broadcast, for the gradient of x (kOfX) or y, with the operands'
// inner strides XS, YS known (0: broadcast along the stretch, 1: contiguous). A
// broadcast side sums into one element; a contiguous side adds, or assigns (kAssign)
// when its operand has the output's full size (each element is then reached once).
template <typename G, bool kOfX, int XS, int YS, bool kAssign, typename T>
void grad_side_run(const GradRun<T>& r, int64_t n) {
  T* g = kOfX ? r.gx : r.gy;
  if constexpr (side_stride(kOfX, XS, YS) == 0 && kIsComplex<T>) {  // (no simd reduction)
    T sum = 0;
    for (int64_t i = 0; i < n; ++i)
      sum += partial<G, kOfX>(r.x[i * XS], r.y[i * YS], r.template out_at<G>(i), r.d[i]);
    g[0] += sum;
  } else if constexpr (side_stride(kOfX, XS, YS) == 0) {
    T sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i)
      sum += partial<G, kOfX>(r.x[i * XS], r.y[i * YS], r.template out_at<G>(i), r.d[i]);
    g[0] += sum;
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
      const T v = partial<G, kOfX>(r.x[i * XS], r.y[i * YS], r.template out_at<G>(i), r.d[i]);
      if constexpr (kAssign) {
        g[i] = v;
      } else {
        g[i] += v;
      }
    }
  }
}

template <typename G, bool kOfX, int XS, int YS, typename T>
void grad_side_run(const GradRun<T>& r, int64_t n, bool assign) {
  if (assign) {
    grad_side_run<G, kOfX, XS, YS, true>(r, n);
  } else {
    grad_side_run<G, kOfX, XS, YS, false>(r, n);
  }
}

// Any other inner strides (both operands broadcast along the stretch).
template <typename G, bool kOfX, typename T>
void grad_side_run_strided(const GradRun<T>& r, int64_t n, int64_t xs, int64_t ys) {
  T* g = kOfX ? r.gx : r.gy;
  const int64_t gs = side_stride(kOfX, xs, ys);
  for (int64_t i = 0; i < n; ++i)
    g[i * gs] += partial<G, kOfX>(r.x[i * xs], r.y[i * ys], r.template out_at<G>(i), r.d[i]);
}

template <typename G, bool kOfX, typename T>
void grad_side(const GradRun<T>& r, int64_t n, int64_t xs, int64_t ys, bool assign) {
  if (xs == 1 && ys == 1) {
    grad_side_run<G, kOfX, 1, 1>(r, n, assign);
  } else if (xs == 1 && ys == 0) {
    grad_side_run<G, kOfX, 1, 0>(r, n, assign);
  } else if (xs == 0 && ys == 1) {
    grad_side_run<G, kOfX, 0, 1>(r, n, assign);
  } else {
    grad_side_run_strided<G, kOfX>(r, n, xs, ys);
  }
}

template <template <typename> class Grad, typename T>
void apply_grad_typed(const Tensor& x, const Tensor& y, const Tensor& out, const Tensor& dout,
                      Tensor* dx, Tensor* dy, int axis, int64_t n) {
  {
    using G = Grad<T>;
    const GradRun<T> r{x.data<T>(),
                       y.data<T>(),
                       G::kUsesOut ? out.data<T>() : nullptr,
                       dout.data<T>(),
                       dx ? dx->data<T>() : nullptr,
                       dy ? dy->data<T>() : nullptr};
    if (x.numel() == n && y.numel() == n) {  // same element order everywhere
      if (n < 2 * kParallelGrain) {
        grad_same_shape<G>(r, n);
      } else {
        parallel_for(n, kParallelGrain,
                     [&](int64_t b, int64_t e) { grad_same_shape<G>(r.at(b, b, b), e - b); });
      }
      return;
    }
    // A side with the output's size is assigned; a smaller one is summed into zeros.
    const bool assign_x = x.numel() == n, assign_y = y.numel() == n;
    if (r.gx && !assign_x) std::memset(static_cast<void*>(r.gx), 0, dx->nbytes());
    if (r.gy && !assign_y) std::memset(static_cast<void*>(r.gy), 0, dy->nbytes());
    const BroadcastPlan plan = make_broadcast_plan(x.shape(), y.shape(), dout.shape(), axis);
    const int64_t xs = plan.inner_x_stride(), ys = plan.inner_y_stride();
    // One thread: several output elements may add into one gradient element.
    for_each_run(plan, 0, n, [&](int64_t o, int64_t xo, int64_t yo, int64_t len) {
      const GradRun<T> c = r.at(o, xo, yo);
      if (c.gx) grad_side<G, true>(c, len, xs, ys, assign_x);
      if (c.gy) grad_side<G, false>(c, len, xs, ys, assign_y);
    });
  }
}

template <template <typename> class Grad>
void apply_grad(const Tensor& x, const Tensor& y, const Tensor& out, const Tensor& dout, Tensor* dx,
                Tensor* dy, int axis) {
  const DType dtype = dout.dtype();
  if (dx) dx->resize(x.shape(), dtype);
  if (dy) dy->resize(y.shape(), dtype);
  const int64_t n = dout.numel();
  if (n == 0) {
    if (dx) std::memset(dx->raw_data(), 0, dx->nbytes());
    if (dy) std::memset(dy->raw_data(), 0, dy->nbytes());
    return;
  }
  if (is_complex(dtype)) {
    constexpr bool kOrdered =
        std::is_same_v<Grad<float>, MaxGrad<float>> || std::is_same_v<Grad<float>, MinGrad<float>>;
    if constexpr (kOrdered) {
      fail("elementwise max/min grad: complex numbers are not ordered");
    } else {
      SKIFF_DISPATCH_COMPLEX(dtype, T,
                             (apply_grad_typed<Grad, T>(x, y, out, dout, dx, dy, axis, n)));
    }
    return;
  }
  SKIFF_DISPATCH_FLOATING(dtype, T, (apply_grad_typed<Grad, T>(x, y, out, dout, dx, dy, axis, n)));
}

// bfloat16: the float32 gradients of the widened operands, each rounded once. div's Out is
// recomputed in float32: the rounded bfloat16 Out would cost Y@GRAD, a sum of products
// with it, far more than one rounding where the terms cancel.
void binary_grad_bf16(BinaryOp op, const Tensor& x, const Tensor& y, const Tensor& dout, Tensor* dx,
                      Tensor* dy, int axis) {
  const Tensor wide_x = widen_bf16(x), wide_y = widen_bf16(y), wide_dout = widen_bf16(dout);
  Tensor wide_out;
  if (op == BinaryOp::kDiv) elementwise_binary(op, wide_x, wide_y, &wide_out, axis);
  Tensor gx, gy;
  elementwise_binary_grad(op, wide_x, wide_y, wide_out, wide_dout, dx ? &gx : nullptr,
                          dy ? &gy : nullptr, axis);
  if (dx) round_to_bf16(gx, dx);
  if (dy) round_to_bf16(gy, dy);
}

}  // namespace

void elementwise_binary_grad(BinaryOp op, const Tensor& x, const Tensor& y, const Tensor& out,
                             const Tensor& dout, Tensor* dx, Tensor* dy, int axis) {
  SKIFF_CHECK(x.dtype() == dout.dtype() && y.dtype() == dout.dtype(), "elementwise ",
              binary_op_name(op), " grad: X is ", x.type_str(), ", Y is ", y.type_str(),
              ", Out@GRAD is ", dout.type_str(), "; all need the same dtype");
  const Shape want =
      x.shape() == y.shape() ? x.shape() : broadcast_shape(x.shape(), y.shape(), axis);
  SKIFF_CHECK(dout.shape() == want, "elementwise ", binary_op_name(op), " grad: Out@GRAD is ",
              dout.type_str(), " but X ", x.shape(), " and Y ", y.shape(), " broadcast to ", want);
  if (op == BinaryOp::kDiv) {
    SKIFF_CHECK(out.initialized() && out.shape() == want && out.dtype() == dout.dtype(),
                "elementwise div grad: Out must be the forward output ", dout.type_str(), ", got ",
                out.initialized() ? out.type_str() : std::string("no value"));
  }
  if (x.dtype() == DType::kBF16) return binary_grad_bf16(op, x, y, dout, dx, dy, axis);
  switch (op) {
    case BinaryOp::kAdd:
      return apply_grad<AddGrad>(x, y, out, dout, dx, dy, axis);
    case BinaryOp::kSub:
      return apply_grad<SubGrad>(x, y, out, dout, dx, dy, axis);
    case BinaryOp::kMul:
      return apply_grad<MulGrad>(x, y, out, dout, dx, dy, axis);
    case BinaryOp::kDiv:
      return apply_grad<DivGrad>(x, y, out, dout, dx, dy, axis);
    case BinaryOp::kMax:
      return apply_grad<MaxGrad>(x, y, out, dout, dx, dy, axis);
    case BinaryOp::kMin:
      return apply_grad<MinGrad>(x, y, out, dout, dx, dy, axis);
  }
}

}  // namespace skiff::kernels
