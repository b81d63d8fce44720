#include "skiff/kernels/cpu/where.h"

#include <algorithm>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/elementwise.h"
#include "skiff/kernels/cpu/input_handle.h"
#include "skiff/kernels/cpu/strided_walk.h"

namespace skiff::kernels {
namespace {

// The walk over `out` reading condition, x and y (operands 0, 1, 2) by broadcasting.
StridedWalk<3> where_walk(const Shape& c, const Shape& x, const Shape& y, const Shape& out) {
  int64_t cs[Shape::kMaxRank], xs[Shape::kMaxRank], ys[Shape::kMaxRank];
  broadcast_strides(c, out, cs);
  broadcast_strides(x, out, xs);
  broadcast_strides(y, out, ys);
  StridedWalk<3> w;
  for (int d = 0; d < out.rank(); ++d) w.push(out[d], {cs[d], xs[d], ys[d]});
  return w;
}

template <typename T>
void select(const StridedWalk<3>& w, const bool* c, const T* x, const T* y, T* out) {
  const int64_t len = w.row_length();
  const int64_t cs = w.inner_stride(0), xs = w.inner_stride(1), ys = w.inner_stride(2);
  parallel_for(w.rows(), std::max<int64_t>(1, kParallelGrain / len), [&](int64_t b, int64_t e) {
    walk_rows(w, b, e, [&](int64_t row, const int64_t* off) {
      const bool* cr = c + off[0];
      const T* xr = x + off[1];
      const T* yr = y + off[2];
      T* o = out + row * len;
      if (cs == 0) {  // one condition for the row: copy or fill from the chosen side
        const T* from = *cr ? xr : yr;
        const int64_t stride = *cr ? xs : ys;
        for (int64_t i = 0; i < len; ++i) o[i] = from[i * stride];
      } else if (cs == 1 && xs == 1 && ys == 1) {
#pragma omp simd
        for (int64_t i = 0; i < len; ++i) o[i] = cr[i] ? xr[i] : yr[i];
      } else {
        for (int64_t i = 0; i < len; ++i) o[i] = cr[i * cs] ? xr[i * xs] : yr[i * ys];
      }
    });
  });
}

// dx (x's shape, zeroed) += dout where c; dy likewise where !c. Either may be null.
template <typename T>
void select_grad(const StridedWalk<3>& w, const bool* c, const T* dout, T* dx, T* dy) {
  const int64_t len = w.row_length();
  const int64_t cs = w.inner_stride(0), xs = w.inner_stride(1), ys = w.inner_stride(2);
  walk_rows(w, 0, w.rows(), [&](int64_t row, const int64_t* off) {
    const bool* cr = c + off[0];
    const T* g = dout + row * len;
    if (dx) {
      T* xr = dx + off[1];
      for (int64_t i = 0; i < len; ++i) xr[i * xs] += cr[i * cs] ? g[i] : T(0);
    }
    if (dy) {
      T* yr = dy + off[2];
      for (int64_t i = 0; i < len; ++i) yr[i * ys] += cr[i * cs] ? T(0) : g[i];
    }
  });
}

}  // namespace

Shape where_shape(const Shape& condition, const Shape& x, const Shape& y) {
  return broadcast_shape(condition, broadcast_shape(x, y));
}

void where(const Tensor& condition, const Tensor& x, const Tensor& y, Tensor* out) {
  SKIFF_CHECK(condition.dtype() == DType::kBool, "where: Condition must be bool, got ",
              condition.type_str());
  SKIFF_CHECK(x.dtype() == y.dtype(), "where: X is ", x.type_str(), " but Y is ", y.type_str(),
              "; both need the same dtype");
  const Shape out_shape = where_shape(condition.shape(), x.shape(), y.shape());
  const Tensor c = input_handle(condition), xs = input_handle(x), ys = input_handle(y);
  out->resize(out_shape, xs.dtype());
  if (out->numel() == 0) return;
  const StridedWalk<3> w = where_walk(c.shape(), xs.shape(), ys.shape(), out_shape);
  SKIFF_DISPATCH_ALL(xs.dtype(), T,
                     select<T>(w, c.data<bool>(), xs.data<T>(), ys.data<T>(), out->data<T>()));
}

void where_grad(const Tensor& condition, const Tensor& out_grad, const Shape& x_shape,
                const Shape& y_shape, Tensor* x_grad, Tensor* y_grad) {
  const Shape& out_shape = out_grad.shape();
  SKIFF_CHECK(where_shape(condition.shape(), x_shape, y_shape) == out_shape,
              "where_grad: Out@GRAD ", out_grad.type_str(), " is not the broadcast of Condition ",
              condition.shape(), ", X ", x_shape, " and Y ", y_shape);
  const Tensor c = input_handle(condition), dout = input_handle(out_grad);
  SKIFF_DISPATCH_FLOATING(dout.dtype(), T, {
    T* dx = nullptr;
    T* dy = nullptr;
    if (x_grad) {
      x_grad->resize(x_shape, dout.dtype());
      dx = x_grad->data<T>();
      std::fill(dx, dx + x_grad->numel(), T(0));
    }
    if (y_grad) {
      y_grad->resize(y_shape, dout.dtype());
      dy = y_grad->data<T>();
      std::fill(dy, dy + y_grad->numel(), T(0));
    }
    if (dout.numel() > 0) {
      select_grad<T>(where_walk(c.shape(), x_shape, y_shape, out_shape), c.data<bool>(),
                     dout.data<T>(), dx, dy);
    }
  });
}

}  // namespace skiff::kernels
