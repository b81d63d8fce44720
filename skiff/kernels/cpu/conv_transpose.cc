// conv2d_transpose as the adjoint of a convolution: its output plays the convolution's
// input, its input the convolution's output, and its filter [C, M / groups, KH, KW] is the
// convolution's filter. So forward is a backward-data pass, the input gradient a forward
// pass and the filter gradient a backward-weights pass, over one geometry.
#include "skiff/kernels/cpu/conv.h"
#include "skiff/kernels/cpu/conv_geometry.h"

namespace skiff::kernels {
namespace {

int64_t transposed_out_dim(const char* what, int64_t in, int64_t k, int64_t pad_lo, int64_t pad_hi,
                           int64_t dilation, int64_t stride, int64_t extra, const Shape& input,
                           const Shape& filter) {
  SKIFF_CHECK(extra < stride || extra < dilation, "conv2d_transpose: output_padding ", extra,
              " of the ", what, " must be below the stride (", stride, ") or the dilation (",
              dilation, ")");
  if (in < 0 || k < 0) return -1;
  const int64_t out = (in - 1) * stride - pad_lo - pad_hi + dilation * (k - 1) + 1 + extra;
  SKIFF_CHECK(out >= 1, "conv2d_transpose: Input ", input, " with Filter ", filter,
              " gives an output ", what, " of ", out, " after removing the paddings ", pad_lo,
              " and ", pad_hi);
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

}  // namespace

Shape conv2d_transpose_shape(const Shape& input, const Shape& filter, const ConvParams& p) {
  SKIFF_CHECK(input.rank() == 4, "conv2d_transpose: Input must be 4-D [N, C, H, W], got ", input);
  SKIFF_CHECK(filter.rank() == 4,
              "conv2d_transpose: Filter must be 4-D [C, M/groups, KH, KW], got ", filter);
  const int64_t c = input[1], filter_c = filter[0], g = p.groups;
  SKIFF_CHECK(c < 0 || c % g == 0, "conv2d_transpose: groups=", g, " does not divide the ", c,
              " channels of Input ", input);
  SKIFF_CHECK(c < 0 || filter_c < 0 || c == filter_c, "conv2d_transpose: Input ", input, " has ", c,
              " channels but Filter ", filter, " has ", filter_c, " (its first dim)");
  SKIFF_CHECK((filter[2] < 0 || filter[2] > 0) && (filter[3] < 0 || filter[3] > 0),
              "conv2d_transpose: Filter ", filter, " has an empty kernel");
  const int64_t m = filter[1] < 0 ? -1 : filter[1] * g;
  return Shape{input[0], m,
               transposed_out_dim("height", input[2], filter[2], p.pad_top, p.pad_bottom,
                                  p.dilation_h, p.stride_h, p.output_pad_h, input, filter),
               transposed_out_dim("width", input[3], filter[3], p.pad_left, p.pad_right,
                                  p.dilation_w, p.stride_w, p.output_pad_w, input, filter)};
}

void conv2d_transpose(const Tensor& input, const Tensor& filter, const ConvParams& p, Tensor* out) {
  check_conv_dtypes("conv2d_transpose", {&input, &filter}, {"Input", "Filter"});
  const Shape out_shape = conv2d_transpose_shape(input.shape(), filter.shape(), p);
  const ConvGeometry g = transposed_geometry(input.shape(), filter.shape(), out_shape, p);
  AliasSafeOutput dst(out, {&input, &filter});
  dst.get()->resize(out_shape, input.dtype());
  SKIFF_DISPATCH_FLOATING(
      input.dtype(), T,
      conv_backward_data(g, filter.data<T>(), input.data<T>(), dst.get()->data<T>()));
  dst.commit();
}

void conv2d_transpose_grad(const Tensor& input, const Tensor& filter, const Tensor& out_grad,
                           const ConvParams& p, Tensor* input_grad, Tensor* filter_grad) {
  check_conv_dtypes("conv2d_transpose_grad", {&input, &filter, &out_grad},
                    {"Input", "Filter", "Output@GRAD"});
  const Shape out_shape = conv2d_transpose_shape(input.shape(), filter.shape(), p);
  SKIFF_CHECK(out_grad.shape() == out_shape, "conv2d_transpose_grad: Output@GRAD is ",
              out_grad.shape(), " but conv2d_transpose of Input ", input.shape(), " and Filter ",
              filter.shape(), " gives ", out_shape);
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

}  // namespace skiff::kernels
