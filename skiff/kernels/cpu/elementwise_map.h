// Building blocks of elementwise kernels: a function over every element of a tensor and
// a gradient over (x, dout) pairs, split across threads past kParallelGrain.
//
//   map_elements<float>(x, &out, [](float v) { return v * v; });
//   map_grad("square", x, dout, &dx, [](auto v, auto d) { return decltype(v)(2) * v * d; });
#pragma once

#include "skiff/core/parallel.h"
#include "skiff/core/tensor.h"

namespace skiff::kernels {

// out[i] = fn(x[i]) over every element, split across threads past kParallelGrain.
// out is resized first, so it may be x.
template <typename T, typename Fn>
inline void map_elements(const Tensor& x, Tensor* out, Fn fn) {
  out->resize(x.shape(), x.dtype());
  const T* xp = x.data<T>();
  T* op = out->data<T>();
  parallel_for(x.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
#pragma omp simd
    for (int64_t i = b; i < e; ++i) op[i] = fn(xp[i]);
  });
}

template <typename T, typename Fn>
inline void map_pairs(const T* x, const T* dout, T* dx, int64_t n, Fn fn) {
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
#pragma omp simd
    for (int64_t i = b; i < e; ++i) dx[i] = fn(x[i], dout[i]);
  });
}

// dx[i] = fn(x[i], dout[i]) for a floating gradient; dx may be x or dout.
template <typename Fn>
inline void map_grad(const char* op, const Tensor& x, const Tensor& dout, Tensor* dx, Fn fn) {
  SKIFF_CHECK(x.shape() == dout.shape() && x.dtype() == dout.dtype(), op, "_grad: X is ",
              x.type_str(), " but Out@GRAD is ", dout.type_str(), "; they must match");
  dx->resize(dout.shape(), dout.dtype());
  SKIFF_DISPATCH_FLOATING(
      dout.dtype(), T, map_pairs<T>(x.data<T>(), dout.data<T>(), dx->data<T>(), dout.numel(), fn));
}

}  // namespace skiff::kernels
