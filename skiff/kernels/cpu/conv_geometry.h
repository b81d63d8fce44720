// The shapes of one 2-D or 3-D convolution (NCHW / NCDHW input, OIHW / OIDHW filter) and the three
// computations over it that conv2d and conv2d_transpose are made of: forward, backward
// data and backward weights. float32 and bfloat16 run oneDNN (conv_onednn.cc), float64
// skiff's own im2col + gemm loops (conv_direct.cc). Used by conv.cc, conv_transpose.cc and
// unfold.cc (im2col / col2im_add).
//
//   ConvGeometry g = ...;                          // src [n, c, h, w] -> dst [n, m, oh, ow]
//   conv_forward(g, src, weights, bias, /*relu=*/false, dst);
//   conv_backward_data(g, weights, dst_grad, src_grad);
#pragma once

#include <cstdint>
#include <initializer_list>

#include "skiff/kernels/cpu/conv.h"

namespace skiff::kernels {

// Filter [m, c / groups, (kd,) kh, kw]; dilation 1 is a dense kernel (PaddlePaddle's rule).
// pad_back / pad_bottom / pad_right may be negative (a transposed convolution's output
// padding): then the last planes / rows / columns of src feed no output. A 2-D convolution
// (spatial_rank 2) keeps the depth fields at their defaults (one plane, no padding).
struct ConvGeometry {
  int spatial_rank = 2;                       // 2: NCHW, 3: NCDHW
  int64_t n = 0, c = 0, d = 1, h = 0, w = 0;  // src
  int64_t m = 0, od = 1, oh = 0, ow = 0;      // dst channels and spatial size
  int64_t kd = 1, kh = 0, kw = 0;
  int64_t groups = 1;
  int64_t stride_d = 1, stride_h = 1, stride_w = 1;
  int64_t pad_front = 0, pad_back = 0;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  int64_t dilation_d = 1, dilation_h = 1, dilation_w = 1;

  int64_t src_spatial() const { return d * h * w; }
  int64_t dst_spatial() const { return od * oh * ow; }
  int64_t kernel_volume() const { return kd * kh * kw; }
  int64_t src_numel() const { return n * c * src_spatial(); }
  int64_t dst_numel() const { return n * m * dst_spatial(); }
  int64_t weights_numel() const { return m * (c / groups) * kernel_volume(); }
  // True when some dim is 0 (the result is the bias, or zeros).
  bool degenerate() const {
    return n == 0 || c == 0 || src_spatial() == 0 || m == 0 || dst_spatial() == 0;
  }
};

// The geometry of src [n, c, (d,) h, w] * weights [m, c / groups, (kd,) kh, kw] ->
// dst [n, m, (od,) oh, ow] with the strides, paddings, dilations and groups of `p` (shapes
// already checked; their rank, 4 or 5, gives the spatial rank).
ConvGeometry make_conv_geometry(const Shape& src, const Shape& weights, const Shape& dst,
                                const ConvParams& p);

// Throws unless `first` is floating (float32, float64 or bfloat16) and every other operand
// (nullptr: absent) has its dtype; the message names `op` and the operands by `names`.
void check_conv_dtypes(const char* op, std::initializer_list<const Tensor*> operands,
                       std::initializer_list<const char*> names);

// An output that may be the same tensor as one of the kernel's inputs (an in-place op):
// the result is then written to a fresh tensor and moved into place by commit().
class AliasSafeOutput {
 public:
  AliasSafeOutput(Tensor* out, std::initializer_list<const Tensor*> inputs) : out_(out) {
    target_ = out;
    for (const Tensor* in : inputs) {
      if (out && in == out) target_ = &own_;
    }
  }
  // Where to write; nullptr when the output is not wanted.
  Tensor* get() { return target_; }
  void commit() {
    if (target_ == &own_) *out_ = own_;
  }

 private:
  Tensor* out_;
  Tensor* target_ = nullptr;
  Tensor own_;
};

// dst = conv(src, weights) (+ bias[m] when bias is not null), then max(0, .) when relu.
void conv_forward(const ConvGeometry& g, const float* src, const float* weights, const float* bias,
                  bool relu, float* dst);
void conv_forward(const ConvGeometry& g, const double* src, const double* weights,
                  const double* bias, bool relu, double* dst);

// src_grad (overwritten) = the gradient of <dst_grad, conv(src, weights)> by src.
void conv_backward_data(const ConvGeometry& g, const float* weights, const float* dst_grad,
                        float* src_grad);
void conv_backward_data(const ConvGeometry& g, const double* weights, const double* dst_grad,
                        double* src_grad);

// weights_grad (overwritten) = the gradient by the weights; bias_grad[m] (overwritten, when
// not null) = dst_grad summed over n, oh, ow.
void conv_backward_weights(const ConvGeometry& g, const float* src, const float* dst_grad,
                           float* weights_grad, float* bias_grad);
void conv_backward_weights(const ConvGeometry& g, const double* src, const double* dst_grad,
                           double* weights_grad, double* bias_grad);

// bfloat16 forms of the three passes through oneDNN (float32 accumulation, each result
// rounded once). They return false, writing nothing, where oneDNN offers no bfloat16
// primitive (an older CPU, or a degenerate geometry): the caller computes in float32.
bool conv_forward(const ConvGeometry& g, const bfloat16* src, const bfloat16* weights,
                  const bfloat16* bias, bool relu, bfloat16* dst);
bool conv_backward_data(const ConvGeometry& g, const bfloat16* weights, const bfloat16* dst_grad,
                        bfloat16* src_grad);
bool conv_backward_weights(const ConvGeometry& g, const bfloat16* src, const bfloat16* dst_grad,
                           bfloat16* weights_grad, bfloat16* bias_grad);

// bias_grad[m] = dst_grad summed over n and the output's spatial dims (overwritten).
template <typename T>
void conv_bias_grad(const ConvGeometry& g, const T* dst_grad, T* bias_grad);

// The columns of one image src [c, (d,) h, w] (groups ignored):
// col[((ci * kd + kz) * kh + ki) * kw + kj][(oz * oh + oy) * ow + ox] =
// src[ci][oz * stride_d - pad_front + kz * dilation_d][oy alike][ox alike], 0 outside the
// image. Also unfold's kernel.
template <typename T>
void im2col(const ConvGeometry& g, const T* src, T* col);
// The adjoint of im2col: adds each column entry into the src cell it was read from.
template <typename T>
void col2im_add(const ConvGeometry& g, const T* col, T* src);

// The im2col + gemm implementations behind the float64 overloads above (float or double),
// also float32's path for degenerate geometries.
template <typename T>
void direct_conv_forward(const ConvGeometry& g, const T* src, const T* weights, const T* bias,
                         bool relu, T* dst);
template <typename T>
void direct_conv_backward_data(const ConvGeometry& g, const T* weights, const T* dst_grad,
                               T* src_grad);
template <typename T>
void direct_conv_backward_weights(const ConvGeometry& g, const T* src, const T* dst_grad,
                                  T* weights_grad, T* bias_grad);

}  // namespace skiff::kernels
