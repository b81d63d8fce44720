// The windows of a pool2d call, shared by pool.cc (options, oneDNN) and pool_planes.cc
// (the direct loops), and the per-axis window rules pool3d.cc uses too. Internal to the
// pooling kernels.
#pragma once

#include <algorithm>
#include <cstdint>

#include "skiff/core/error.h"

namespace skiff::kernels {

// Output extent of one spatial dim of `op` (pool2d, pool3d); `in` >= 0 is known. Ceil mode
// rounds up but drops a last window that would start in the end padding. Throws naming
// `dim` when a padding is not below the window or the window exceeds the padded input.
inline int64_t pooled_extent(const char* op, const char* dim, int64_t in, int64_t k, int64_t s,
                             int64_t pad_begin, int64_t pad_end, bool ceil_mode) {
  SKIFF_CHECK(pad_begin < k && pad_end < k, op, ": paddings (", pad_begin, ", ", pad_end,
              ") along ", dim, " must be smaller than the window ", k);
  const int64_t padded = in + pad_begin + pad_end;
  SKIFF_CHECK(padded >= k, op, ": the window ", k, " along ", dim,
              " is larger than the padded input (", in, " + ", pad_begin, " + ", pad_end, ")");
  int64_t n = (padded - k + (ceil_mode ? s - 1 : 0)) / s + 1;
  if (ceil_mode && (n - 1) * s >= in + pad_begin) --n;
  return n;
}

// The input cells [*b, *e) of output cell i along one axis of extent `in` (`out` outputs),
// clipped to the input: adaptive bins [floor(i*in/out), ceil((i+1)*in/out)), or windows of
// k at stride s after `pad` leading padding cells.
inline void pool_window(int64_t i, int64_t in, int64_t out, int64_t k, int64_t s, int64_t pad,
                        bool adaptive, int64_t* b, int64_t* e) {
  if (adaptive) {
    *b = i * in / out;
    *e = ((i + 1) * in + out - 1) / out;
    return;
  }
  const int64_t start = i * s - pad;
  *b = std::max<int64_t>(start, 0);
  *e = std::min(start + k, in);
}

// Output cell i's window length counting padding but not what lies past the end padding
// (the divisor of an inclusive average).
inline int64_t pool_padded_window(int64_t i, int64_t in, int64_t k, int64_t s, int64_t pad_begin,
                                  int64_t pad_end) {
  const int64_t start = i * s - pad_begin;
  return std::min(start + k, in + pad_end) - start;
}

// The windows of one call on a known input shape.
struct PoolGeometry {
  int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1;
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;  // top, bottom, left, right
  bool max = true, adaptive = false, exclusive = true;

  // The input rows [*b, *e) of output row i, clipped to the input.
  void rows(int64_t i, int64_t* b, int64_t* e) const { span(i, h, oh, kh, sh, pt, b, e); }
  void cols(int64_t j, int64_t* b, int64_t* e) const { span(j, w, ow, kw, sw, pl, b, e); }
  // What the average of output (i, j) divides by: its `cells` input cells, or with
  // padding counted (inclusive) its cells within the padded input.
  int64_t divisor(int64_t i, int64_t j, int64_t cells) const {
    if (exclusive || adaptive) return cells;
    return padded_span(i, h, kh, sh, pt, pb) * padded_span(j, w, kw, sw, pl, pr);
  }
  // True when ceil mode adds windows that reach past the end padding.
  bool overhangs() const {
    return (oh - 1) * sh + kh > h + pt + pb || (ow - 1) * sw + kw > w + pl + pr;
  }
  // 2x2 windows at stride 2 lying inside the input: the vectorised paths.
  bool unpadded_2x2() const {
    return !adaptive && kh == 2 && kw == 2 && sh == 2 && sw == 2 && pt == 0 && pl == 0 &&
           2 * oh <= h && 2 * ow <= w;
  }

 private:
  void span(int64_t i, int64_t in, int64_t out, int64_t k, int64_t s, int64_t pad, int64_t* b,
            int64_t* e) const {
    pool_window(i, in, out, k, s, pad, adaptive, b, e);
  }
  static int64_t padded_span(int64_t i, int64_t in, int64_t k, int64_t s, int64_t pad_begin,
                             int64_t pad_end) {
    return pool_padded_window(i, in, k, s, pad_begin, pad_end);
  }
};

// pool2d over every plane of x with the direct loops; `mask` (max pooling) may be null.
void pool_planes(const PoolGeometry& g, const float* x, float* y, int32_t* mask);
void pool_planes(const PoolGeometry& g, const double* x, double* y, int32_t* mask);
// Max pooling only (an int8 tensor on its quantization grid: the max commutes with it).
void pool_planes(const PoolGeometry& g, const int8_t* x, int8_t* y, int32_t* mask);
// pool2d_grad over every plane; false when `mask` holds an index outside its plane.
bool pool_planes_grad(const PoolGeometry& g, const float* x, const float* dy, const int32_t* mask,
                      float* dx);
bool pool_planes_grad(const PoolGeometry& g, const double* x, const double* dy, const int32_t* mask,
                      double* dx);

}  // namespace skiff::kernels
