#include "skiff/kernels/cpu/cast.h"

#include <cstring>
#include <utility>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/fill.h"

namespace skiff::kernels {

namespace {

template <typename From, typename To>
void convert(const From* x, To* out, int64_t n) {
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = static_cast<To>(x[i]);
  });
}

}  // namespace

void cast(const Tensor& x, DType to, Tensor* out) {
  SKIFF_CHECK(x.initialized(), "cast: the input tensor has no value");
  if (out == &x) {
    if (x.dtype() == to) return;
    Tensor converted;
    cast(x, to, &converted);
    *out = std::move(converted);
    return;
  }
  out->resize(x.shape(), to);
  if (x.dtype() == to) {
    std::memcpy(out->raw_data(), x.raw_data(), x.nbytes());
    return;
  }
  SKIFF_DISPATCH_ALL(x.dtype(), From, {
    SKIFF_DISPATCH_ALL(to, To, convert(x.data<From>(), out->data<To>(), x.numel()));
  });
}

void increment(const Tensor& x, double step, Tensor* out) {
  SKIFF_CHECK(x.initialized(), "increment: the input tensor has no value");
  SKIFF_DISPATCH_NUMERIC(x.dtype(), T, {
    const T s = fill_value_as<T>(step);
    // Resize first: when out is x, this is what un-shares its storage.
    out->resize(x.shape(), x.dtype());
    const T* in = static_cast<const T*>(x.raw_data());  // dtypes equal by construction
    T* o = static_cast<T*>(out->raw_data());
    const int64_t n = x.numel();
    if (n == 1) {
      o[0] = in[0] + s;
    } else {
      parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) o[i] = in[i] + s;
      });
    }
  });
}

}  // namespace skiff::kernels
