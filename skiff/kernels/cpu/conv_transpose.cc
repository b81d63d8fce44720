// conv2d_transpose and conv3d_transpose as the adjoint of a convolution: its output plays the
// convolution's input, its input the convolution's output, and its filter [C, M / groups, KH, KW]
// is the convolution's filter. So forward is a backward-data pass, the input gradient a forward
// pass and the filter gradient a backward-weights pass, over one geometry.
#include <string>

#include "skiff/kernels/cpu/conv.h"
#include "skiff/kernels/cpu/conv_geometry.h"

namespace skiff::kernels {
namespace {

int64_t transposed_out_dim(const char* op, const char* what, int64_t in, int64_t k, int64_t pad_lo,
                           int64_t pad_hi, int64_t dilation, int64_t stride, int64_t extra,
                           const Shape& input, const Shape& filter) {
  SKIFF_CHECK(extra < stride || extra < dilation, op, ": output_padding ", extra, " of the ", what,
              " must be below the stride (", stride, ") or the dilation (", dilation, ")");
  if (in < 0 || k < 0) return -1;
  const int64_t out = (in - 1) * stride - pad_lo - pad_hi + dilation * (k - 1) + 1 + extra;
  SKIFF_CHECK(out >= 1, op, ": Input ", input, " with Filter ", filter, " gives an output ", what,
              " of ", out, " after removing the paddings ", pad_lo, " and ", pad_hi);
  return out;
}

// The convolution whose backward-data pass is conv2d_transpose(input) -> output.
ConvGeometry transposed_geometry(const Shape& input, const Shape& filter, const Shape& output,
                                 const ConvParams& p) {
  ConvParams conv = p;
  // The output padding rows are beyond the last window of the adjoint convolution.
  conv.pad_back -= p.output_pad_d;
  conv.pad_bottom -= p.output_pad_h;
  conv.pad_right -= p.output_pad_w;
  return make_conv_geometry(output, filter, input, conv);
}

// conv2d_transpose_shape / conv3d_transpose_shape (op names the one).
Shape transpose_shape(const char* op, const Shape& input, const Shape& filter,
                      const ConvParams& p) {
  const bool vol = p.spatial_rank == 3;
  const int rank = vol ? 5 : 4;
  SKIFF_CHECK(input.rank() == rank, op, ": Input must be ", rank,
              vol ? "-D [N, C, D, H, W], got " : "-D [N, C, H, W], got ", input);
  SKIFF_CHECK(filter.rank() == rank, op, ": Filter must be ", rank,
              vol ? "-D [C, M/groups, KD, KH, KW], got " : "-D [C, M/groups, KH, KW], got ",
              filter);
  const int64_t c = input[1], filter_c = filter[0], g = p.groups;
  SKIFF_CHECK(c < 0 || c % g == 0, op, ": groups=", g, " does not divide the ", c,
              " channels of Input ", input);
  SKIFF_CHECK(c < 0 || filter_c < 0 || c == filter_c, op, ": Input ", input, " has ", c,
              " channels but Filter ", filter, " has ", filter_c, " (its first dim)");
  for (int i = 2; i < rank; ++i) {
    SKIFF_CHECK(filter[i] != 0, op, ": Filter ", filter, " has an empty kernel");
  }
  const int h = vol ? 3 : 2;
  Shape out{input[0], filter[1] < 0 ? -1 : filter[1] * g};
  if (vol) {
    out.push_back(transposed_out_dim(op, "depth", input[2], filter[2], p.pad_front, p.pad_back,
                                     p.dilation_d, p.stride_d, p.output_pad_d, input, filter));
  }
  out.push_back(transposed_out_dim(op, "height", input[h], filter[h], p.pad_top, p.pad_bottom,
                                   p.dilation_h, p.stride_h, p.output_pad_h, input, filter));
  out.push_back(transposed_out_dim(op, "width", input[h + 1], filter[h + 1], p.pad_left,
                                   p.pad_right, p.dilation_w, p.stride_w, p.output_pad_w, input,
                                   filter));
  return out;
}

// conv2d_transpose / conv3d_transpose.
void transpose_nd(const char* op, const Tensor& input, const Tensor& filter, const ConvParams& p,
                  Tensor* out) {
  check_conv_dtypes(op, {&input, &filter}, {"Input", "Filter"});
  const Shape out_shape = transpose_shape(op, input.shape(), filter.shape(), p);
  const ConvGeometry g = transposed_geometry(input.shape(), filter.shape(), out_shape, p);
  AliasSafeOutput dst(out, {&input, &filter});
  dst.get()->resize(out_shape, input.dtype());
  SKIFF_DISPATCH_FLOATING(
      input.dtype(), T,
      conv_backward_data(g, filter.data<T>(), input.data<T>(), dst.get()->data<T>()));
  dst.commit();
}

// conv2d_transpose_grad / conv3d_transpose_grad (op names the forward op).
void transpose_nd_grad(const char* op, const Tensor& input, const Tensor& filter,
                       const Tensor& out_grad, const ConvParams& p, Tensor* input_grad,
                       Tensor* filter_grad) {
  const std::string grad_op = std::string(op) + "_grad";
  check_conv_dtypes(grad_op.c_str(), {&input, &filter, &out_grad},
                    {"Input", "Filter", "Output@GRAD"});
  const Shape out_shape = transpose_shape(op, input.shape(), filter.shape(), p);
  SKIFF_CHECK(out_grad.shape() == out_shape, grad_op, ": Output@GRAD is ", out_grad.shape(),
              " but ", op, " of Input ", input.shape(), " and Filter ", filter.shape(), " gives ",
              out_shape);
  const ConvGeometry g = transposed_geometry(input.shape(), filter.shape(), out_shape, p);
  const std::initializer_list<const Tensor*> inputs = {&input, &filter, &out_grad};
  AliasSafeOutput dx(input_grad, inputs), dw(filter_grad, inputs);
  SKIFF_DISPATCH_FLOATING(input.dtype(), T, {
    if (dw.get()) {
      dw.get()->resize(filter.shape(), input.dtype());
      conv_backward_weights(g, out_grad.data<T>(), input.data<T>(), dw.get()->data<T>(),
                            static_cast<T*>(nullptr));
    }
    if (dx.get()) {
      dx.get()->resize(input.shape(), input.dtype());
      conv_forward(g, out_grad.data<T>(), filter.data<T>(), static_cast<const T*>(nullptr),
                   /*relu=*/false, dx.get()->data<T>());
    }
  });
  dx.commit();
  dw.commit();
}

}  // namespace

Shape conv2d_transpose_shape(const Shape& input, const Shape& filter, const ConvParams& p) {
  return transpose_shape("conv2d_transpose", input, filter, p);
}

Shape conv3d_transpose_shape(const Shape& input, const Shape& filter, const ConvParams& p) {
  return transpose_shape("conv3d_transpose", input, filter, p);
}

void conv2d_transpose(const Tensor& input, const Tensor& filter, const ConvParams& p, Tensor* out) {
  transpose_nd("conv2d_transpose", input, filter, p, out);
}

void conv3d_transpose(const Tensor& input, const Tensor& filter, const ConvParams& p, Tensor* out) {
  transpose_nd("conv3d_transpose", input, filter, p, out);
}

void conv2d_transpose_grad(const Tensor& input, const Tensor& filter, const Tensor& out_grad,
                           const ConvParams& p, Tensor* input_grad, Tensor* filter_grad) {
  transpose_nd_grad("conv2d_transpose", input, filter, out_grad, p, input_grad, filter_grad);
}

void conv3d_transpose_grad(const Tensor& input, const Tensor& filter, const Tensor& out_grad,
                           const ConvParams& p, Tensor* input_grad, Tensor* filter_grad) {
  transpose_nd_grad("conv3d_transpose", input, filter, out_grad, p, input_grad, filter_grad);
}

}  // namespace skiff::kernels
