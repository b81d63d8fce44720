#include "skiff/kernels/cpu/slice.h"

#include <algorithm>

#include "skiff/kernels/cpu/axis.h"
#include "skiff/kernels/cpu/complex.h"
#include "skiff/kernels/cpu/input_handle.h"
#include "skiff/kernels/cpu/strided_walk.h"

namespace skiff::kernels {
namespace {

// The box per dim of x: first index and length (-1 when the dim is unknown).
struct Box {
  int64_t begin[Shape::kMaxRank] = {};
  int64_t size[Shape::kMaxRank] = {};
  bool decreased[Shape::kMaxRank] = {};
};

Box slice_box(const Shape& x, const SliceSpec& spec) {
  const size_t n = spec.axes.size();
  SKIFF_CHECK(spec.starts.size() == n && spec.ends.size() == n, "slice: axes ", list_str(spec.axes),
              ", starts ", list_str(spec.starts), " and ends ", list_str(spec.ends),
              " must have the same length");
  Box box;
  bool sliced[Shape::kMaxRank] = {};
  for (int d = 0; d < x.rank(); ++d) box.size[d] = x[d];
  for (size_t i = 0; i < n; ++i) {
    const int a = resolve_axis("slice", spec.axes[i], x);
    SKIFF_CHECK(!sliced[a], "slice: axes ", list_str(spec.axes), " name axis ", a, " twice");
    sliced[a] = true;
    const int64_t dim = x[a];
    if (dim < 0) continue;  // unknown until run time
    int64_t start = spec.starts[i] < 0 ? spec.starts[i] + dim : spec.starts[i];
    int64_t end = spec.ends[i] < 0 ? spec.ends[i] + dim : spec.ends[i];
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    box.begin[a] = start;
    box.size[a] = std::max<int64_t>(end - start, 0);
  }
  for (int64_t axis : spec.decrease_axis) {
    const int a = resolve_axis("slice (decrease_axis)", axis, x);
    SKIFF_CHECK(box.size[a] == 1 || box.size[a] == -1, "slice: decrease_axis drops axis ", a,
                " of X ", x, ", but the slice keeps ", box.size[a], " entries of it (must be 1)");
    box.decreased[a] = true;
  }
  return box;
}

Shape box_shape(const Shape& x, const Box& box) {
  Shape out;
  for (int d = 0; d < x.rank(); ++d)
    if (!box.decreased[d]) out.push_back(box.size[d]);
  return out;
}

// The walk over the box (dense, in x's dim order) with x's strides; `offset` gets
// x's offset of the box's first element.
StridedWalk<1> box_walk(const Shape& x, const Box& box, int64_t* offset) {
  int64_t stride[Shape::kMaxRank];
  dense_strides(x, stride);
  StridedWalk<1> w;
  *offset = 0;
  for (int d = 0; d < x.rank(); ++d) {
    w.push(box.size[d], {stride[d]});
    *offset += box.begin[d] * stride[d];
  }
  return w;
}

}  // namespace

Shape slice_shape(const Shape& x, const SliceSpec& spec) {
  return box_shape(x, slice_box(x, spec));
}

void slice(const Tensor& x, const SliceSpec& spec, Tensor* out) {
  const Box box = slice_box(x.shape(), spec);
  const Tensor src = input_handle(x);
  out->resize(box_shape(src.shape(), box), src.dtype());
  if (out->numel() == 0) return;
  int64_t offset = 0;
  const StridedWalk<1> w = box_walk(src.shape(), box, &offset);
  SKIFF_DISPATCH_MOVABLE(src.dtype(), T,
                         copy_from_strided<T>(w, src.data<T>() + offset, out->data<T>()));
}

void slice_grad(const Tensor& out_grad, const Shape& x_shape, const SliceSpec& spec,
                Tensor* x_grad) {
  if (is_complex(out_grad.dtype()))
    return by_parts(out_grad, x_grad,
                    [&](const Tensor& g, Tensor* dx) { slice_grad(g, x_shape, spec, dx); });
  const Box box = slice_box(x_shape, spec);
  SKIFF_CHECK(box_shape(x_shape, box).numel() == out_grad.numel(), "slice_grad: Out@GRAD ",
              out_grad.type_str(), " does not match the slice of X ", x_shape);
  const Tensor dout = input_handle(out_grad);
  x_grad->resize(x_shape, dout.dtype());
  SKIFF_DISPATCH_FLOATING(dout.dtype(), T, {
    T* dx = x_grad->data<T>();
    std::fill(dx, dx + x_grad->numel(), T(0));
    if (dout.numel() > 0) {
      int64_t offset = 0;
      const StridedWalk<1> w = box_walk(x_shape, box, &offset);
      add_to_strided<T>(w, dout.data<T>(), dx + offset);
    }
  });
}

}  // namespace skiff::kernels
