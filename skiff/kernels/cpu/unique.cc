#include "skiff/kernels/cpu/unique.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "skiff/kernels/cpu/axis.h"
#include "skiff/kernels/cpu/input_handle.h"

namespace skiff::kernels {
namespace {

// x as n slices of m elements each: slice j of x viewed as [outer, n, inner] is the
// outer * inner elements at (o, j, i), o-major; read in place when outer == 1, else from
// a gathered copy.
template <typename T>
struct Slices {
  int64_t outer = 1, n = 0, inner = 1;
  const T* source = nullptr;
  std::vector<T> gathered;

  int64_t m() const { return outer * inner; }
  const T* slice(int64_t j) const {
    return (gathered.empty() ? source : gathered.data()) + j * m();
  }
};

template <typename T>
Slices<T> slices_of(const char* op, const Tensor& x, bool flatten, int64_t axis) {
  Slices<T> s;
  const T* src = x.data<T>();
  if (flatten) {
    s.n = x.numel();
    s.source = src;
    return s;
  }
  SKIFF_CHECK(x.shape().rank() > 0, op, ": axis ", axis, " needs a tensor of rank >= 1, got ",
              x.type_str());
  const int a = resolve_axis(op, axis, x.shape());
  s.outer = dims_product(x.shape(), 0, a);
  s.n = x.shape()[a];
  s.inner = dims_product(x.shape(), a + 1, x.shape().rank());
  s.source = src;
  if (s.outer == 1) return s;
  s.gathered.resize(static_cast<size_t>(x.numel()));
  for (int64_t j = 0; j < s.n; ++j) {
    for (int64_t o = 0; o < s.outer; ++o) {
      std::copy_n(src + (o * s.n + j) * s.inner, s.inner,
                  s.gathered.data() + j * s.m() + o * s.inner);
    }
  }
  return s;
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// Total order for sorting: numbers ascending, NaN after every number.
template <typename T>
bool less(T a, T b) {
  if (is_nan(a)) return false;
  return is_nan(b) || a < b;
}

template <typename T>
bool slice_less(const T* a, const T* b, int64_t m) {
  for (int64_t k = 0; k < m; ++k) {
    if (less(a[k], b[k])) return true;
    if (less(b[k], a[k])) return false;
  }
  return false;
}

// Equal as values (a NaN equals nothing, so each NaN stays distinct).
template <typename T>
bool slice_equal(const T* a, const T* b, int64_t m) {
  for (int64_t k = 0; k < m; ++k)
    if (!(a[k] == b[k])) return false;
  return true;
}

// The slices in `order` split into runs of equal slices: starts[g] is where run g
// begins in `order`; starts.back() == n.
template <typename T>
std::vector<int64_t> run_starts(const Slices<T>& s, const std::vector<int64_t>& order) {
  std::vector<int64_t> starts;
  for (int64_t r = 0; r < s.n; ++r) {
    if (r == 0 || !slice_equal(s.slice(order[r - 1]), s.slice(order[r]), s.m())) {
      starts.push_back(r);
    }
  }
  starts.push_back(s.n);
  return starts;
}

template <typename I>
void write_index_outputs(const std::vector<int64_t>& order, const std::vector<int64_t>& starts,
                         Tensor* indices, Tensor* inverse, Tensor* counts) {
  const int64_t groups = static_cast<int64_t>(starts.size()) - 1;
  if (indices) {
    indices->resize(Shape{groups}, dtype_of<I>);
    for (int64_t g = 0; g < groups; ++g) indices->data<I>()[g] = static_cast<I>(order[starts[g]]);
  }
  if (counts) {
    counts->resize(Shape{groups}, dtype_of<I>);
    for (int64_t g = 0; g < groups; ++g)
      counts->data<I>()[g] = static_cast<I>(starts[g + 1] - starts[g]);
  }
  if (inverse) {
    inverse->resize(Shape{static_cast<int64_t>(order.size())}, dtype_of<I>);
    I* inv = inverse->data<I>();
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t r = starts[g]; r < starts[g + 1]; ++r) inv[order[r]] = static_cast<I>(g);
    }
  }
}

// Writes the first slice of each run to `out` (x's layout with n replaced by the run
// count) and the index outputs.
template <typename T>
void emit(const char* op, const Tensor& x, const Slices<T>& s, bool flatten, int64_t axis,
          const std::vector<int64_t>& order, DType index_dtype, Tensor* out, Tensor* indices,
          Tensor* inverse, Tensor* counts) {
  const std::vector<int64_t> starts = run_starts(s, order);
  const int64_t groups = static_cast<int64_t>(starts.size()) - 1;
  Shape shape{groups};
  if (!flatten) {
    shape = x.shape();
    shape[resolve_axis(op, axis, shape)] = groups;
  }
  out->resize(shape, x.dtype());
  T* dst = out->data<T>();
  for (int64_t g = 0; g < groups; ++g) {
    const T* from = s.slice(order[starts[g]]);
    for (int64_t o = 0; o < s.outer; ++o) {
      std::copy_n(from + o * s.inner, s.inner, dst + (o * groups + g) * s.inner);
    }
  }
  if (index_dtype == DType::kI32) {
    write_index_outputs<int32_t>(order, starts, indices, inverse, counts);
  } else {
    write_index_outputs<int64_t>(order, starts, indices, inverse, counts);
  }
}

void check_index_dtype(const char* op, DType index_dtype) {
  SKIFF_CHECK(index_dtype == DType::kI32 || index_dtype == DType::kI64, op,
              ": the index dtype must be int32 or int64, got ", dtype_name(index_dtype));
}

}  // namespace

void unique(const Tensor& x, bool flatten, int64_t axis, DType index_dtype, Tensor* out,
            Tensor* indices, Tensor* inverse, Tensor* counts) {
  check_index_dtype("unique", index_dtype);
  const Tensor src = input_handle(x);
  SKIFF_DISPATCH_NUMERIC(src.dtype(), T, {
    const Slices<T> s = slices_of<T>("unique", src, flatten, axis);
    std::vector<int64_t> order(static_cast<size_t>(s.n));
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return slice_less(s.slice(a), s.slice(b), s.m());
    });
    emit("unique", src, s, flatten, axis, order, index_dtype, out, indices, inverse, counts);
  });
}

void unique_consecutive(const Tensor& x, bool flatten, int64_t axis, DType index_dtype, Tensor* out,
                        Tensor* inverse, Tensor* counts) {
  check_index_dtype("unique_consecutive", index_dtype);
  const Tensor src = input_handle(x);
  SKIFF_DISPATCH_NUMERIC(src.dtype(), T, {
    const Slices<T> s = slices_of<T>("unique_consecutive", src, flatten, axis);
    std::vector<int64_t> order(static_cast<size_t>(s.n));
    std::iota(order.begin(), order.end(), int64_t{0});
    emit("unique_consecutive", src, s, flatten, axis, order, index_dtype, out, nullptr, inverse,
         counts);
  });
}

}  // namespace skiff::kernels
