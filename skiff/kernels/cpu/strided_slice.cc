#include "skiff/kernels/cpu/strided_slice.h"

#include <algorithm>

#include "skiff/kernels/cpu/complex.h"
#include "skiff/kernels/cpu/elementwise.h"
#include "skiff/kernels/cpu/input_handle.h"
#include "skiff/kernels/cpu/strided_walk.h"

namespace skiff::kernels {
namespace {

// Where the box starts, its step and its length along every dim of x.
struct Box {
  int rank = 0;
  int64_t begin[Shape::kMaxRank] = {};
  int64_t step[Shape::kMaxRank] = {};
  int64_t count[Shape::kMaxRank] = {};
  bool dropped[Shape::kMaxRank] = {};
};

// Python's slice.indices(dim): the first index and the element count.
void clamp_range(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t* first,
                 int64_t* count) {
  const int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? dim : dim - 1;
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  start = std::clamp(start, lo, hi);
  end = std::clamp(end, lo, hi);
  *first = start;
  if (step > 0) {
    *count = end > start ? (end - start + step - 1) / step : 0;
  } else {
    *count = start > end ? (start - end - step - 1) / -step : 0;
  }
}

Box make_box(const Shape& x, const StridedSpec& s) {
  const size_t n = s.axes.size();
  SKIFF_CHECK(s.starts.size() == n && s.ends.size() == n && s.steps.size() == n,
              "strided slice of ", x, ": axes, starts, ends and steps need one entry each, got ", n,
              ", ", s.starts.size(), ", ", s.ends.size(), " and ", s.steps.size());
  Box b;
  b.rank = x.rank();
  for (int d = 0; d < x.rank(); ++d) {
    b.step[d] = 1;
    b.count[d] = x[d];
  }
  bool seen[Shape::kMaxRank] = {};
  for (size_t i = 0; i < n; ++i) {
    int64_t a = s.axes[i];
    SKIFF_CHECK(a >= -x.rank() && a < x.rank(), "strided slice of ", x, ": axis ", a,
                " is out of range");
    if (a < 0) a += x.rank();
    SKIFF_CHECK(!seen[a], "strided slice of ", x, ": axis ", a, " is given twice");
    SKIFF_CHECK(s.steps[i] != 0, "strided slice of ", x, ": the step of axis ", a, " is 0");
    seen[a] = true;
    b.step[a] = s.steps[i];
    if (x[a] < 0) {
      b.count[a] = -1;
    } else {
      clamp_range(x[a], s.starts[i], s.ends[i], s.steps[i], &b.begin[a], &b.count[a]);
    }
  }
  for (int64_t a : s.decrease) {
    SKIFF_CHECK(a >= -x.rank() && a < x.rank(), "strided slice of ", x, ": decreased axis ", a,
                " is out of range");
    if (a < 0) a += x.rank();
    SKIFF_CHECK(b.count[a] == 1 || b.count[a] == -1, "strided slice of ", x, ": decreased axis ", a,
                " must select one entry, it selects ", b.count[a]);
    b.dropped[a] = true;
  }
  return b;
}

Shape kept_dims(const Box& b) {
  Shape out;
  for (int d = 0; d < b.rank; ++d)
    if (!b.dropped[d]) out.push_back(b.count[d]);
  return out;
}

bool box_empty(const Box& b) {
  for (int d = 0; d < b.rank; ++d)
    if (b.count[d] == 0) return true;
  return false;
}

// The walk over the box (dense, in box order) with operand 0 = x's elements; *base
// is the element offset of the box's first element in x.
StridedWalk<1> box_walk(const Box& b, const Shape& x, int64_t* base) {
  int64_t xs[Shape::kMaxRank];
  dense_strides(x, xs);
  *base = 0;
  StridedWalk<1> w;
  for (int d = 0; d < b.rank; ++d) {
    *base += b.begin[d] * xs[d];
    w.push(b.count[d], {xs[d] * b.step[d]});
  }
  return w;
}

// The box walk with operand 1 = a tensor of shape `v` broadcast to the kept box dims.
StridedWalk<2> box_value_walk(const Box& b, const Shape& x, const Shape& v, int64_t* base) {
  const Shape kept = kept_dims(b);
  SKIFF_CHECK(broadcast_shape(v, kept) == kept, "set_value: the value of shape ", v,
              " cannot be broadcast to the selected box ", kept, " of ", x);
  int64_t xs[Shape::kMaxRank], vs_kept[Shape::kMaxRank];
  dense_strides(x, xs);
  broadcast_strides(v, kept, vs_kept);
  *base = 0;
  StridedWalk<2> w;
  int k = 0;
  for (int d = 0; d < b.rank; ++d) {
    *base += b.begin[d] * xs[d];
    w.push(b.count[d], {xs[d] * b.step[d], b.dropped[d] ? 0 : vs_kept[k++]});
  }
  return w;
}

}  // namespace

Shape strided_slice_shape(const Shape& x, const StridedSpec& spec) {
  return kept_dims(make_box(x, spec));
}

void strided_slice(const Tensor& x, const StridedSpec& spec, Tensor* out) {
  const Box b = make_box(x.shape(), spec);
  const Tensor src = input_handle(x);
  out->resize(kept_dims(b), src.dtype());
  if (box_empty(b)) return;
  int64_t base;
  const StridedWalk<1> w = box_walk(b, src.shape(), &base);
  SKIFF_DISPATCH_MOVABLE(src.dtype(), T,
                         { copy_from_strided<T>(w, src.data<T>() + base, out->data<T>()); });
}

void strided_slice_grad(const Tensor& out_grad, const Shape& x_shape, const StridedSpec& spec,
                        Tensor* x_grad) {
  if (is_complex(out_grad.dtype()))
    return by_parts(out_grad, x_grad,
                    [&](const Tensor& g, Tensor* dx) { strided_slice_grad(g, x_shape, spec, dx); });
  const Box b = make_box(x_shape, spec);
  *x_grad = Tensor::zeros(x_shape, out_grad.dtype());
  if (box_empty(b)) return;
  int64_t base;
  const StridedWalk<1> w = box_walk(b, x_shape, &base);
  SKIFF_DISPATCH_FLOATING(out_grad.dtype(), T,
                          { add_to_strided<T>(w, out_grad.data<T>(), x_grad->data<T>() + base); });
}

void set_strided(const Tensor& x, const Tensor& value, const StridedSpec& spec, Tensor* out) {
  SKIFF_CHECK(value.dtype() == x.dtype(), "set_value: the value is ", value.type_str(),
              " but the tensor is ", x.type_str());
  const Box b = make_box(x.shape(), spec);
  const Tensor v = input_handle(value);
  out->copy_from(x);
  out->resize(x.shape(), x.dtype());  // its own storage, never one shared with another tensor
  if (box_empty(b)) return;
  int64_t base;
  const StridedWalk<2> w = box_value_walk(b, x.shape(), v.shape(), &base);
  SKIFF_DISPATCH_MOVABLE(x.dtype(), T, {
    T* o = out->data<T>() + base;
    const T* src = v.data<T>();
    const int64_t len = w.row_length(), os = w.inner_stride(0), vs = w.inner_stride(1);
    walk_rows(w, 0, w.rows(), [&](int64_t, const int64_t* off) {
      for (int64_t i = 0; i < len; ++i) o[off[0] + i * os] = src[off[1] + i * vs];
    });
  });
}

void set_strided_grad(const Tensor& out_grad, const Shape& value_shape, const StridedSpec& spec,
                      Tensor* x_grad, Tensor* value_grad) {
  const Box b = make_box(out_grad.shape(), spec);
  if (x_grad) {
    x_grad->copy_from(out_grad);
    x_grad->resize(out_grad.shape(), out_grad.dtype());
  }
  if (value_grad) *value_grad = Tensor::zeros(value_shape, out_grad.dtype());
  if (box_empty(b)) return;
  int64_t base;
  const StridedWalk<2> w = box_value_walk(b, out_grad.shape(), value_shape, &base);
  SKIFF_DISPATCH_FLOATING(out_grad.dtype(), T, {
    const T* g = out_grad.data<T>() + base;
    T* dx = x_grad ? x_grad->data<T>() + base : nullptr;
    T* dv = value_grad ? value_grad->data<T>() : nullptr;
    const int64_t len = w.row_length(), gs = w.inner_stride(0), vs = w.inner_stride(1);
    walk_rows(w, 0, w.rows(), [&](int64_t, const int64_t* off) {
      for (int64_t i = 0; i < len; ++i) {
        if (dv) dv[off[1] + i * vs] += g[off[0] + i * gs];
        if (dx) dx[off[0] + i * gs] = T(0);
      }
    });
  });
}

}  // namespace skiff::kernels
