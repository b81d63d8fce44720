#include "skiff/kernels/cpu/gather.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/axis.h"
#include "skiff/kernels/cpu/complex.h"
#include "skiff/kernels/cpu/input_handle.h"

namespace skiff::kernels {
namespace {

// Calls fn(const I* data) with the index tensor's int32 or int64 values.
template <typename Fn>
void with_indices(const char* op, const Tensor& index, Fn&& fn) {
  if (index.dtype() == DType::kI32) {
    fn(index.data<int32_t>());
  } else if (index.dtype() == DType::kI64) {
    fn(index.data<int64_t>());
  } else {
    fail(op, ": the index must be int32 or int64, got ", index.type_str());
  }
}

// Throws unless each of the n indices idx[0], idx[step], ... fits a dim of `dim`
// entries (negative: from the back); the message names axis `axis` of x.
template <typename I>
void check_indices(const char* op, const I* idx, int64_t n, int64_t dim, int64_t step,
                   const Shape& x, int axis) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = idx[i * step];
    SKIFF_CHECK(v >= -dim && v < dim, op, ": index ", v, " (entry ", i * step,
                ") is out of range for axis ", axis, " of X ", x, " (size ", dim, ")");
  }
}

inline int64_t wrap(int64_t v, int64_t dim) { return v < 0 ? v + dim : v; }

template <typename T>
inline void copy_row(T* dst, const T* src, int64_t n) {
  if (n == 1) {
    *dst = *src;
  } else {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
  }
}

template <typename T>
inline void add_row(T* dst, const T* src, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) dst[i] += src[i];
}

// x split around an axis: outer rows, the axis, and inner elements per entry.
struct AxisDims {
  int64_t outer, n, inner;
  AxisDims(const Shape& x, int a)
      : outer(dims_product(x, 0, a)), n(x[a]), inner(dims_product(x, a + 1, x.rank())) {}
};

// x's element offset of each index tuple of gather_nd, checked.
template <typename I>
void tuple_offsets(const I* idx, int64_t tuples, int k, const Shape& x,
                   std::vector<int64_t>* offsets) {
  int64_t stride[Shape::kMaxRank];
  int64_t acc = dims_product(x, k, x.rank());
  for (int j = k - 1; j >= 0; --j) {
    stride[j] = acc;
    acc *= x[j];
  }
  offsets->assign(tuples, 0);
  for (int j = 0; j < k; ++j) {
    check_indices("gather_nd", idx + j, tuples, x[j], k, x, j);
    for (int64_t t = 0; t < tuples; ++t) (*offsets)[t] += wrap(idx[t * k + j], x[j]) * stride[j];
  }
}

}  // namespace

Shape gather_shape(const Shape& x, const Shape& index, int64_t axis) {
  SKIFF_CHECK(index.rank() <= 1, "gather: Index must be 1-D (or rank 0), got shape ", index);
  const int a = resolve_axis("gather", axis, x);
  Shape out;
  for (int d = 0; d < x.rank(); ++d) {
    if (d != a) {
      out.push_back(x[d]);
    } else if (index.rank() == 1) {
      out.push_back(index[0]);
    }
  }
  return out;
}

void gather(const Tensor& x, const Tensor& index, int64_t axis, Tensor* out) {
  const Shape out_shape = gather_shape(x.shape(), index.shape(), axis);
  const int a = resolve_axis("gather", axis, x.shape());
  const AxisDims s(x.shape(), a);
  const Tensor src = input_handle(x), ids = input_handle(index);
  const int64_t m = ids.numel();
  with_indices("gather", ids, [&](const auto* idx) {
    check_indices("gather", idx, m, s.n, 1, src.shape(), a);
    out->resize(out_shape, src.dtype());
    if (out->numel() == 0) return;
    SKIFF_DISPATCH_MOVABLE(src.dtype(), T, {
      const T* xp = src.data<T>();
      T* op = out->data<T>();
      parallel_for(
          s.outer * m, std::max<int64_t>(1, kParallelGrain / s.inner), [&](int64_t b, int64_t e) {
            int64_t o = b / m, j = b % m;
            for (int64_t r = b; r < e; ++r) {
              copy_row(op + r * s.inner, xp + (o * s.n + wrap(idx[j], s.n)) * s.inner, s.inner);
              if (++j == m) {
                j = 0;
                ++o;
              }
            }
          });
    });
  });
}

void gather_grad(const Tensor& out_grad, const Tensor& index, const Shape& x_shape, int64_t axis,
                 Tensor* x_grad) {
  if (is_complex(out_grad.dtype()))
    return by_parts(out_grad, x_grad,
                    [&](const Tensor& g, Tensor* dx) { gather_grad(g, index, x_shape, axis, dx); });
  SKIFF_CHECK(gather_shape(x_shape, index.shape(), axis) == out_grad.shape(),
              "gather_grad: Out@GRAD ", out_grad.type_str(), " does not match X ", x_shape,
              " gathered by Index ", index.shape());
  const int a = resolve_axis("gather", axis, x_shape);
  const AxisDims s(x_shape, a);
  const Tensor dout = input_handle(out_grad);
  const int64_t m = index.numel();
  with_indices("gather_grad", index, [&](const auto* idx) {
    check_indices("gather_grad", idx, m, s.n, 1, x_shape, a);
    x_grad->resize(x_shape, dout.dtype());
    SKIFF_DISPATCH_FLOATING(dout.dtype(), T, {
      T* dx = x_grad->data<T>();
      const T* dy = dout.data<T>();
      std::fill(dx, dx + x_grad->numel(), T(0));
      for (int64_t o = 0; o < s.outer; ++o) {
        for (int64_t j = 0; j < m; ++j) {
          add_row(dx + (o * s.n + wrap(idx[j], s.n)) * s.inner, dy + (o * m + j) * s.inner,
                  s.inner);
        }
      }
    });
  });
}

Shape gather_nd_shape(const Shape& x, const Shape& index) {
  SKIFF_CHECK(index.rank() >= 1,
              "gather_nd: Index needs rank >= 1 (its last dim holds the "
              "index tuples), got shape ",
              index);
  const int64_t k = index[index.rank() - 1];
  SKIFF_CHECK(k >= 0 && k <= x.rank(), "gather_nd: the last dim of Index ", index,
              " must be known and at most the rank of X ", x);
  Shape out;
  for (int d = 0; d + 1 < index.rank(); ++d) out.push_back(index[d]);
  SKIFF_CHECK(out.rank() + x.rank() - k <= Shape::kMaxRank, "gather_nd: X ", x, " and Index ",
              index, " give a result above rank ", Shape::kMaxRank);
  for (int d = static_cast<int>(k); d < x.rank(); ++d) out.push_back(x[d]);
  return out;
}

void gather_nd(const Tensor& x, const Tensor& index, Tensor* out) {
  const Shape out_shape = gather_nd_shape(x.shape(), index.shape());
  const int k = static_cast<int>(index.dim(-1));
  const int64_t slice = dims_product(x.shape(), k, x.rank());
  const int64_t tuples = k ? index.numel() / k : dims_product(index.shape(), 0, index.rank() - 1);
  const Tensor src = input_handle(x), ids = input_handle(index);
  std::vector<int64_t> offsets;
  with_indices("gather_nd", ids,
               [&](const auto* idx) { tuple_offsets(idx, tuples, k, src.shape(), &offsets); });
  out->resize(out_shape, src.dtype());
  if (out->numel() == 0) return;
  SKIFF_DISPATCH_MOVABLE(src.dtype(), T, {
    const T* xp = src.data<T>();
    T* op = out->data<T>();
    parallel_for(tuples, std::max<int64_t>(1, kParallelGrain / slice), [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) copy_row(op + t * slice, xp + offsets[t], slice);
    });
  });
}

void gather_nd_grad(const Tensor& out_grad, const Tensor& index, const Shape& x_shape,
                    Tensor* x_grad) {
  if (is_complex(out_grad.dtype()))
    return by_parts(out_grad, x_grad,
                    [&](const Tensor& g, Tensor* dx) { gather_nd_grad(g, index, x_shape, dx); });
  SKIFF_CHECK(gather_nd_shape(x_shape, index.shape()) == out_grad.shape(),
              "gather_nd_grad: Out@GRAD ", out_grad.type_str(), " does not match X ", x_shape,
              " gathered by Index ", index.shape());
  const int k = static_cast<int>(index.dim(-1));
  const int64_t slice = dims_product(x_shape, k, x_shape.rank());
  const int64_t tuples = k ? index.numel() / k : dims_product(index.shape(), 0, index.rank() - 1);
  const Tensor dout = input_handle(out_grad);
  std::vector<int64_t> offsets;
  with_indices("gather_nd_grad", index,
               [&](const auto* idx) { tuple_offsets(idx, tuples, k, x_shape, &offsets); });
  x_grad->resize(x_shape, dout.dtype());
  SKIFF_DISPATCH_FLOATING(dout.dtype(), T, {
    T* dx = x_grad->data<T>();
    const T* dy = dout.data<T>();
    std::fill(dx, dx + x_grad->numel(), T(0));
    for (int64_t t = 0; t < tuples; ++t) add_row(dx + offsets[t], dy + t * slice, slice);
  });
}

void check_scatter_shapes(const Shape& x, const Shape& ids, const Shape& updates) {
  SKIFF_CHECK(ids.rank() == 1, "scatter: Ids must be 1-D, got shape ", ids);
  bool fits = x.rank() >= 1 && updates.rank() == x.rank();
  for (int d = 0; fits && d < x.rank(); ++d) {
    const int64_t want = d == 0 ? ids[0] : x[d];
    fits = want < 0 || updates[d] < 0 || updates[d] == want;
  }
  SKIFF_CHECK(fits, "scatter: Updates has shape ", updates, " but X ", x, " and Ids ", ids,
              " need [len(Ids)] + X.shape[1:]");
}

void scatter(const Tensor& x, const Tensor& ids, const Tensor& updates, bool overwrite,
             Tensor* out) {
  check_scatter_shapes(x.shape(), ids.shape(), updates.shape());
  SKIFF_CHECK(updates.dtype() == x.dtype(), "scatter: Updates is ", updates.type_str(),
              " but X is ", x.type_str());
  const Tensor src = input_handle(x), rows = input_handle(ids), upd = input_handle(updates);
  const int64_t n = src.dim(0), row = dims_product(src.shape(), 1, src.rank()), m = rows.numel();
  with_indices("scatter", rows, [&](const auto* idx) {
    check_indices("scatter", idx, m, n, 1, src.shape(), 0);
    out->resize(src.shape(), src.dtype());
    if (!out->shares_storage(src) && src.nbytes() > 0)
      std::memcpy(out->raw_data(), src.raw_data(), src.nbytes());
    if (overwrite) {
      SKIFF_DISPATCH_ALL(src.dtype(), T, {
        for (int64_t i = 0; i < m; ++i)
          copy_row(out->data<T>() + wrap(idx[i], n) * row, upd.data<T>() + i * row, row);
      });
      return;
    }
    SKIFF_DISPATCH_NUMERIC(src.dtype(), T, {
      T* op = out->data<T>();
      for (int64_t i = 0; i < m; ++i) std::fill_n(op + wrap(idx[i], n) * row, row, T(0));
      for (int64_t i = 0; i < m; ++i)
        add_row(op + wrap(idx[i], n) * row, upd.data<T>() + i * row, row);
    });
  });
}

void scatter_grad(const Tensor& out_grad, const Tensor& ids, bool overwrite,
                  const Shape& updates_shape, Tensor* x_grad, Tensor* updates_grad) {
  const Tensor dout = input_handle(out_grad);
  check_scatter_shapes(dout.shape(), ids.shape(), updates_shape);
  const int64_t n = dout.dim(0), row = dims_product(dout.shape(), 1, dout.rank()), m = ids.numel();
  with_indices("scatter_grad", ids, [&](const auto* idx) {
    check_indices("scatter_grad", idx, m, n, 1, dout.shape(), 0);
    SKIFF_DISPATCH_FLOATING(dout.dtype(), T, {
      const T* dy = dout.data<T>();
      if (updates_grad) {
        updates_grad->resize(updates_shape, dout.dtype());
        T* du = updates_grad->data<T>();
        std::vector<char> taken(overwrite ? n : 0, 0);  // rows a later update overwrites
        for (int64_t i = m - 1; i >= 0; --i) {
          const int64_t r = wrap(idx[i], n);
          if (overwrite && taken[r]) {
            std::fill_n(du + i * row, row, T(0));
            continue;
          }
          if (overwrite) taken[r] = 1;
          copy_row(du + i * row, dy + r * row, row);
        }
      }
      if (x_grad) {
        x_grad->resize(dout.shape(), dout.dtype());
        T* dx = x_grad->data<T>();
        if (dx != dy && dout.nbytes() > 0) std::memcpy(dx, dy, dout.nbytes());
        for (int64_t i = 0; i < m; ++i) std::fill_n(dx + wrap(idx[i], n) * row, row, T(0));
      }
    });
  });
}

}  // namespace skiff::kernels
