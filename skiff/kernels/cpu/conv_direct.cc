// Convolution by im2col + gemm (float64's implementation; float32 takes it for degenerate
// geometries): each image's receptive fields are laid out as
// columns ([c * kd * kh * kw, od * oh * ow], group after group), so the convolution is one batched
// product per image with the groups as the batch.
#include <algorithm>
#include <vector>

#include "skiff/kernels/cpu/conv_geometry.h"
#include "skiff/kernels/cpu/gemm.h"

namespace skiff::kernels {
namespace {

// Rows of the column matrix per group: (c / groups) * kd * kh * kw.
int64_t col_rows_per_group(const ConvGeometry& g) { return (g.c / g.groups) * g.kernel_volume(); }

// One product per image, batched over the groups.
GemmProblem group_problem(const ConvGeometry& g, int64_t m, int64_t n, int64_t k) {
  GemmProblem p;
  p.a_batch = p.b_batch = p.c_batch = Shape{g.groups};
  p.m = m;
  p.n = n;
  p.k = k;
  return p;
}

// ceil(a / b) for b > 0 and any a.
int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// Strides of 1 and an output row as wide as the input's (a "same" padding): then a column
// row of im2col is the input plane shifted by a constant offset, zeros where the window
// leaves the image.
bool same_width_unit_strides(const ConvGeometry& g) {
  return g.stride_h == 1 && g.stride_w == 1 && g.ow == g.w;
}

// One plane of im2col's row (ki, kj) under same_width_unit_strides: the rows of the plane
// that the window reads copied at once, then the columns outside the image zeroed.
template <typename T>
void shifted_plane(const ConvGeometry& g, const T* plane, int64_t ki, int64_t kj, T* out) {
  const int64_t w = g.w, out_hw = g.oh * g.ow, in_hw = g.h * g.w;
  const int64_t dy = ki * g.dilation_h - g.pad_top, dx = kj * g.dilation_w - g.pad_left;
  // Output rows whose input row lies in the image: [y0, y1).
  const int64_t y0 = std::clamp(-dy, int64_t{0}, g.oh);
  const int64_t y1 = std::clamp(g.h - dy, y0, g.oh);
  const int64_t shift = dy * w + dx;  // input index of output index i: i + shift
  const int64_t c0 = std::clamp(-shift, y0 * w, y1 * w);
  const int64_t c1 = std::clamp(in_hw - shift, c0, y1 * w);
  std::fill(out, out + c0, T(0));
  std::copy(plane + c0 + shift, plane + c1 + shift, out + c0);
  std::fill(out + c1, out + out_hw, T(0));
  // Columns whose input column lies outside the image: [0, lo) and [hi, w) of each row.
  const int64_t lo = std::clamp(-dx, int64_t{0}, w), hi = std::clamp(w - dx, lo, w);
  for (int64_t y = y0; y < y1; ++y) {
    std::fill(out + y * w, out + y * w + lo, T(0));
    std::fill(out + y * w + hi, out + (y + 1) * w, T(0));
  }
}

}  // namespace

// col[((ci * kd + kz) * kh + ki) * kw + kj][(oz * oh + oy) * ow + ox] = src[ci][iz][iy][ix]
// (0 outside the image), with iz = oz * stride_d - pad_front + kz * dilation_d, iy and ix
// alike. A 2-D geometry has one plane (d = od = kd = 1, no depth padding).
template <typename T>
void im2col(const ConvGeometry& g, const T* src, T* col) {
  const int64_t out_spatial = g.dst_spatial(), out_hw = g.oh * g.ow, in_hw = g.h * g.w;
  for (int64_t ci = 0; ci < g.c; ++ci) {
    const T* volume = src + ci * g.src_spatial();
    for (int64_t kz = 0; kz < g.kd; ++kz) {
      for (int64_t ki = 0; ki < g.kh; ++ki) {
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          T* row = col + (((ci * g.kd + kz) * g.kh + ki) * g.kw + kj) * out_spatial;
          for (int64_t oz = 0; oz < g.od; ++oz) {
            T* slab = row + oz * out_hw;
            const int64_t iz = oz * g.stride_d - g.pad_front + kz * g.dilation_d;
            if (iz < 0 || iz >= g.d) {
              std::fill(slab, slab + out_hw, T(0));
              continue;
            }
            const T* plane = volume + iz * in_hw;
            if (same_width_unit_strides(g)) {
              shifted_plane(g, plane, ki, kj, slab);
              continue;
            }
            for (int64_t oy = 0; oy < g.oh; ++oy) {
              T* out = slab + oy * g.ow;
              const int64_t iy = oy * g.stride_h - g.pad_top + ki * g.dilation_h;
              if (iy < 0 || iy >= g.h) {
                std::fill(out, out + g.ow, T(0));
                continue;
              }
              // The columns reading inside the image are [lo, hi); zeros around them.
              const int64_t first = kj * g.dilation_w - g.pad_left;  // ix of ox = 0
              const int64_t lo = std::clamp(ceil_div(-first, g.stride_w), int64_t{0}, g.ow);
              const int64_t hi = std::clamp(ceil_div(g.w - first, g.stride_w), lo, g.ow);
              const T* line = plane + iy * g.w;
              std::fill(out, out + lo, T(0));
              if (g.stride_w == 1) {
                std::copy(line + first + lo, line + first + hi, out + lo);
              } else {
                for (int64_t ox = lo; ox < hi; ++ox) out[ox] = line[first + ox * g.stride_w];
              }
              std::fill(out + hi, out + g.ow, T(0));
            }
          }
        }
      }
    }
  }
}

// The adjoint of im2col: src[ci][iz][iy][ix] += every column entry that im2col read from it.
template <typename T>
void col2im_add(const ConvGeometry& g, const T* col, T* src) {
  const int64_t out_spatial = g.dst_spatial(), out_hw = g.oh * g.ow, in_hw = g.h * g.w;
  for (int64_t ci = 0; ci < g.c; ++ci) {
    T* volume = src + ci * g.src_spatial();
    for (int64_t kz = 0; kz < g.kd; ++kz) {
      for (int64_t ki = 0; ki < g.kh; ++ki) {
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          const T* row = col + (((ci * g.kd + kz) * g.kh + ki) * g.kw + kj) * out_spatial;
          for (int64_t oz = 0; oz < g.od; ++oz) {
            const int64_t iz = oz * g.stride_d - g.pad_front + kz * g.dilation_d;
            if (iz < 0 || iz >= g.d) continue;
            T* plane = volume + iz * in_hw;
            const T* slab = row + oz * out_hw;
            for (int64_t oy = 0; oy < g.oh; ++oy) {
              const int64_t iy = oy * g.stride_h - g.pad_top + ki * g.dilation_h;
              if (iy < 0 || iy >= g.h) continue;
              T* line = plane + iy * g.w;
              const T* in = slab + oy * g.ow;
              for (int64_t ox = 0; ox < g.ow; ++ox) {
                const int64_t ix = ox * g.stride_w - g.pad_left + kj * g.dilation_w;
                if (ix >= 0 && ix < g.w) line[ix] += in[ox];
              }
            }
          }
        }
      }
    }
  }
}

template void im2col(const ConvGeometry&, const float*, float*);
template void im2col(const ConvGeometry&, const double*, double*);
template void im2col(const ConvGeometry&, const int8_t*, int8_t*);  // quantized convolutions
template void col2im_add(const ConvGeometry&, const float*, float*);
template void col2im_add(const ConvGeometry&, const double*, double*);

template <typename T>
void conv_bias_grad(const ConvGeometry& g, const T* dst_grad, T* bias_grad) {
  const int64_t out_hw = g.dst_spatial();
  std::fill(bias_grad, bias_grad + g.m, T(0));
  for (int64_t b = 0; b < g.n; ++b) {
    for (int64_t mi = 0; mi < g.m; ++mi) {
      const T* plane = dst_grad + (b * g.m + mi) * out_hw;
      T sum = 0;
#pragma omp simd reduction(+ : sum)
      for (int64_t i = 0; i < out_hw; ++i) sum += plane[i];
      bias_grad[mi] += sum;
    }
  }
}
template void conv_bias_grad(const ConvGeometry&, const float*, float*);
template void conv_bias_grad(const ConvGeometry&, const double*, double*);

template <typename T>
void direct_conv_forward(const ConvGeometry& g, const T* src, const T* weights, const T* bias,
                         bool relu, T* dst) {
  const int64_t out_hw = g.dst_spatial(), k = col_rows_per_group(g);
  std::vector<T> col(static_cast<size_t>(g.c * g.kernel_volume() * out_hw));
  const GemmProblem p = group_problem(g, g.m / g.groups, out_hw, k);
  for (int64_t b = 0; b < g.n; ++b) {
    T* out = dst + b * g.m * out_hw;
    im2col(g, src + b * g.c * g.src_spatial(), col.data());
    gemm(p, weights, col.data(), out);
    if (!bias && !relu) continue;
    for (int64_t mi = 0; mi < g.m; ++mi) {
      T* plane = out + mi * out_hw;
      const T add = bias ? bias[mi] : T(0);
      for (int64_t i = 0; i < out_hw; ++i) {
        const T v = plane[i] + add;
        plane[i] = relu && v < 0 ? T(0) : v;
      }
    }
  }
}

template <typename T>
void direct_conv_backward_data(const ConvGeometry& g, const T* weights, const T* dst_grad,
                               T* src_grad) {
  const int64_t out_hw = g.dst_spatial(), k = col_rows_per_group(g);
  std::fill(src_grad, src_grad + g.src_numel(), T(0));
  std::vector<T> col(static_cast<size_t>(g.c * g.kernel_volume() * out_hw));
  GemmProblem p = group_problem(g, k, out_hw, g.m / g.groups);
  p.trans_a = true;  // weights stored [groups, m / groups, k]
  for (int64_t b = 0; b < g.n; ++b) {
    gemm(p, weights, dst_grad + b * g.m * out_hw, col.data());
    col2im_add(g, col.data(), src_grad + b * g.c * g.src_spatial());
  }
}

template <typename T>
void direct_conv_backward_weights(const ConvGeometry& g, const T* src, const T* dst_grad,
                                  T* weights_grad, T* bias_grad) {
  const int64_t out_hw = g.dst_spatial(), k = col_rows_per_group(g);
  const int64_t count = g.weights_numel();
  std::fill(weights_grad, weights_grad + count, T(0));
  std::vector<T> col(static_cast<size_t>(g.c * g.kernel_volume() * out_hw));
  std::vector<T> image_grad(static_cast<size_t>(count));
  GemmProblem p = group_problem(g, g.m / g.groups, k, out_hw);
  p.trans_b = true;  // columns stored [groups, k, oh * ow]
  for (int64_t b = 0; b < g.n; ++b) {
    im2col(g, src + b * g.c * g.src_spatial(), col.data());
    gemm(p, dst_grad + b * g.m * out_hw, col.data(), image_grad.data());
    for (int64_t i = 0; i < count; ++i) weights_grad[i] += image_grad[i];
  }
  if (bias_grad) conv_bias_grad(g, dst_grad, bias_grad);
}

template void direct_conv_forward(const ConvGeometry&, const float*, const float*, const float*,
                                  bool, float*);
template void direct_conv_forward(const ConvGeometry&, const double*, const double*, const double*,
                                  bool, double*);
template void direct_conv_backward_data(const ConvGeometry&, const float*, const float*, float*);
template void direct_conv_backward_data(const ConvGeometry&, const double*, const double*, double*);
template void direct_conv_backward_weights(const ConvGeometry&, const float*, const float*, float*,
                                           float*);
template void direct_conv_backward_weights(const ConvGeometry&, const double*, const double*,
                                           double*, double*);

void conv_forward(const ConvGeometry& g, const double* src, const double* weights,
                  const double* bias, bool relu, double* dst) {
  direct_conv_forward(g, src, weights, bias, relu, dst);
}

void conv_backward_data(const ConvGeometry& g, const double* weights, const double* dst_grad,
                        double* src_grad) {
  direct_conv_backward_data(g, weights, dst_grad, src_grad);
}

void conv_backward_weights(const ConvGeometry& g, const double* src, const double* dst_grad,
                           double* weights_grad, double* bias_grad) {
  direct_conv_backward_weights(g, src, dst_grad, weights_grad, bias_grad);
}

}  // namespace skiff::kernels
