#include "skiff/kernels/cpu/repeat.h"

#include <algorithm>

#include "skiff/kernels/cpu/axis.h"
#include "skiff/kernels/cpu/complex.h"
#include "skiff/kernels/cpu/input_handle.h"
#include "skiff/kernels/cpu/strided_walk.h"

namespace skiff::kernels {
namespace {

// x's shape padded with leading 1s to `rank`.
Shape padded_to(const Shape& x, int rank) {
  Shape out;
  for (int d = 0; d < rank - x.rank(); ++d) out.push_back(1);
  for (int64_t d : x) out.push_back(d);
  return out;
}

// The walk over the expanded output with x's strides (0 along broadcast dims).
StridedWalk<1> expand_walk(const Shape& x_shape, const Shape& out_shape) {
  int64_t stride[Shape::kMaxRank];
  broadcast_strides(x_shape, out_shape, stride);
  StridedWalk<1> w;
  for (int d = 0; d < out_shape.rank(); ++d) w.push(out_shape[d], {stride[d]});
  return w;
}

// The tiled output viewed as (repeat, dim) pairs per dim: copies along repeats read
// x again (stride 0), so this is a broadcast of x viewed as [1, d0, 1, d1, ...].
StridedWalk<1> tile_walk(const Shape& x_shape, const std::vector<int64_t>& repeat_times) {
  const int rank = std::max<int>(x_shape.rank(), static_cast<int>(repeat_times.size()));
  const Shape x = padded_to(x_shape, rank);
  const int pad = rank - static_cast<int>(repeat_times.size());
  int64_t stride[Shape::kMaxRank];
  dense_strides(x, stride);
  StridedWalk<1> w;
  for (int d = 0; d < rank; ++d) {
    w.push(d < pad ? 1 : repeat_times[d - pad], {0});
    w.push(x[d], {stride[d]});
  }
  return w;
}

// True when x (all dims known) broadcasts to out by expand's rule.
bool expands_to(const Shape& x, const Shape& out) {
  const int lead = out.rank() - x.rank();
  if (lead < 0) return false;
  for (int d = 0; d < x.rank(); ++d) {
    if (x[d] != 1 && x[d] != out[d + lead]) return false;
  }
  return true;
}

// out (out_shape) = x read along the walk.
void copy_walk(const StridedWalk<1>& w, const Tensor& x, const Shape& out_shape, Tensor* out) {
  const Tensor src = input_handle(x);
  out->resize(out_shape, src.dtype());
  if (out->numel() == 0) return;
  SKIFF_DISPATCH_MOVABLE(src.dtype(), T, copy_from_strided<T>(w, src.data<T>(), out->data<T>()));
}

// x_grad (x_shape) = zeros plus out_grad summed into x's elements along the walk.
void sum_walk(const StridedWalk<1>& w, const Tensor& out_grad, const Shape& x_shape,
              Tensor* x_grad) {
  const Tensor dout = input_handle(out_grad);
  x_grad->resize(x_shape, dout.dtype());
  SKIFF_DISPATCH_FLOATING(dout.dtype(), T, {
    T* dx = x_grad->data<T>();
    std::fill(dx, dx + x_grad->numel(), T(0));
    if (dout.numel() > 0) add_to_strided<T>(w, dout.data<T>(), dx);
  });
}

}  // namespace

Shape expand_shape(const Shape& x, const std::vector<int64_t>& shape) {
  const int rank = static_cast<int>(shape.size());
  SKIFF_CHECK(rank >= x.rank() && rank <= Shape::kMaxRank, "expand: cannot expand X ", x,
              " to shape ", list_str(shape), ": the target needs rank ", x.rank(), " to ",
              Shape::kMaxRank);
  const int lead = rank - x.rank();
  Shape out;
  for (int d = 0; d < rank; ++d) {
    const int64_t want = shape[d];
    if (d < lead) {
      SKIFF_CHECK(want >= 1, "expand: shape ", list_str(shape), " has ", want, " at dim ", d,
                  ", a new leading dim of X ", x, " (must be >= 1)");
      out.push_back(want);
      continue;
    }
    const int64_t have = x[d - lead];
    SKIFF_CHECK(want == -1 || want >= 1, "expand: shape ", list_str(shape), " has the invalid dim ",
                want, " (dims are >= 1, or -1 to keep X's)");
    if (want == -1) {
      out.push_back(have);
      continue;
    }
    SKIFF_CHECK(have == -1 || have == 1 || have == want, "expand: cannot expand X ", x,
                " to shape ", list_str(shape), ": dim ", d - lead, " of X is ", have,
                " (must be 1 or ", want, ")");
    out.push_back(want);
  }
  return out;
}

void expand(const Tensor& x, const Shape& out_shape, Tensor* out) {
  SKIFF_CHECK(out_shape.known() && expands_to(x.shape(), out_shape), "expand: cannot expand ",
              x.type_str(), " to ", out_shape);
  copy_walk(expand_walk(x.shape(), out_shape), x, out_shape, out);
}

void expand_grad(const Tensor& out_grad, const Shape& x_shape, Tensor* x_grad) {
  if (is_complex(out_grad.dtype()))
    return by_parts(out_grad, x_grad,
                    [&](const Tensor& g, Tensor* dx) { expand_grad(g, x_shape, dx); });
  SKIFF_CHECK(expands_to(x_shape, out_grad.shape()), "expand_grad: Out@GRAD ", out_grad.type_str(),
              " is not an expansion of X ", x_shape);
  sum_walk(expand_walk(x_shape, out_grad.shape()), out_grad, x_shape, x_grad);
}

Shape tile_shape(const Shape& x, const std::vector<int64_t>& repeat_times) {
  const int rank = std::max<int>(x.rank(), static_cast<int>(repeat_times.size()));
  SKIFF_CHECK(rank <= Shape::kMaxRank, "tile: repeat_times ", list_str(repeat_times),
              " has more than ", Shape::kMaxRank, " entries");
  for (int64_t r : repeat_times) {
    SKIFF_CHECK(r >= 1, "tile: repeat_times ", list_str(repeat_times), " for X ", x,
                " must all be >= 1");
  }
  const Shape xp = padded_to(x, rank);
  const int pad = rank - static_cast<int>(repeat_times.size());
  Shape out;
  for (int d = 0; d < rank; ++d) {
    const int64_t r = d < pad ? 1 : repeat_times[d - pad];
    out.push_back(xp[d] < 0 ? -1 : xp[d] * r);
  }
  return out;
}

void tile(const Tensor& x, const std::vector<int64_t>& repeat_times, Tensor* out) {
  const Shape out_shape = tile_shape(x.shape(), repeat_times);
  copy_walk(tile_walk(x.shape(), repeat_times), x, out_shape, out);
}

void tile_grad(const Tensor& out_grad, const Shape& x_shape,
               const std::vector<int64_t>& repeat_times, Tensor* x_grad) {
  if (is_complex(out_grad.dtype()))
    return by_parts(out_grad, x_grad,
                    [&](const Tensor& g, Tensor* dx) { tile_grad(g, x_shape, repeat_times, dx); });
  SKIFF_CHECK(tile_shape(x_shape, repeat_times) == out_grad.shape(), "tile_grad: Out@GRAD ",
              out_grad.type_str(), " is not X ", x_shape, " tiled by ", list_str(repeat_times));
  sum_walk(tile_walk(x_shape, repeat_times), out_grad, x_shape, x_grad);
}

}  // namespace skiff::kernels
