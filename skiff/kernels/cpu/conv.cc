// conv2d: attribute and shape checks, and the forward / gradient entry points over the
// geometry computations of conv_geometry.h.
#include "skiff/kernels/cpu/conv.h"

#include <sstream>
#include <string>

#include "skiff/kernels/cpu/bf16_convert.h"
#include "skiff/kernels/cpu/conv_geometry.h"

namespace skiff::kernels {
namespace {

std::string list_str(const std::vector<int64_t>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
  return os.str();
}

// One output dim of a convolution; -1 when the input dim is unknown. Throws when the padded
// input is smaller than the dilated kernel.
int64_t conv_out_dim(const char* what, int64_t in, int64_t k, int64_t pad_lo, int64_t pad_hi,
                     int64_t dilation, int64_t stride, const Shape& input, const Shape& filter) {
  if (in < 0 || k < 0) return -1;
  const int64_t padded = in + pad_lo + pad_hi, extent = dilation * (k - 1) + 1;
  SKIFF_CHECK(padded >= extent, "conv2d: Input ", input, " is too small for Filter ", filter,
              ": its ", what, " padded to ", padded, " is below the dilated kernel's ", extent);
  return (padded - extent) / stride + 1;
}

const float* widened_data(const Tensor* t, Tensor* widened) {
  if (!t) return nullptr;
  *widened = widen_bf16(*t);
  return widened->data<float>();
}

// conv2d over bfloat16 operands: oneDNN's bf16 primitive, or (where it has none) float32
// compute rounded once. `out` is sized.
void conv2d_bf16(const ConvGeometry& g, const Tensor& input, const Tensor& filter,
                 const Tensor* bias, bool relu, Tensor* out) {
  if (conv_forward(g, input.data<bfloat16>(), filter.data<bfloat16>(),
                   bias ? bias->data<bfloat16>() : nullptr, relu, out->data<bfloat16>())) {
    return;
  }
  Tensor x, w, b;
  Tensor y = Tensor::empty(out->shape(), DType::kF32);
  conv_forward(g, widened_data(&input, &x), widened_data(&filter, &w), widened_data(bias, &b), relu,
               y.data<float>());
  round_to_bf16(y, out);
}

// conv2d's gradients over bfloat16 operands, as conv2d_bf16 computes them; a null output is
// not computed.
void conv2d_grad_bf16(const ConvGeometry& g, const Tensor& input, const Tensor& filter,
                      const Tensor& out_grad, Tensor* dx, Tensor* dw, Tensor* db) {
  if (dx) dx->resize(input.shape(), DType::kBF16);
  if (dw) dw->resize(filter.shape(), DType::kBF16);
  if (db) db->resize(Shape{g.m}, DType::kBF16);
  const bfloat16* dout = out_grad.data<bfloat16>();
  const bool dx_done =
      !dx || conv_backward_data(g, filter.data<bfloat16>(), dout, dx->data<bfloat16>());
  const bool dw_done =
      !dw || conv_backward_weights(g, input.data<bfloat16>(), dout, dw->data<bfloat16>(),
                                   db ? db->data<bfloat16>() : nullptr);
  const bool db_done = !db || (dw && dw_done);
  if (dx_done && dw_done && db_done) return;
  Tensor wide_dout, wide_x, wide_w;
  const float* dout_f32 = widened_data(&out_grad, &wide_dout);
  if (!dx_done) {
    Tensor grad = Tensor::empty(input.shape(), DType::kF32);
    conv_backward_data(g, widened_data(&filter, &wide_w), dout_f32, grad.data<float>());
    round_to_bf16(grad, dx);
  }
  if (!dw_done || !db_done) {
    Tensor bias_grad = Tensor::empty(Shape{g.m}, DType::kF32);
    if (!dw_done) {
      Tensor grad = Tensor::empty(filter.shape(), DType::kF32);
      conv_backward_weights(g, widened_data(&input, &wide_x), dout_f32, grad.data<float>(),
                            db ? bias_grad.data<float>() : nullptr);
      round_to_bf16(grad, dw);
    } else {
      conv_bias_grad(g, dout_f32, bias_grad.data<float>());
    }
    if (db) round_to_bf16(bias_grad, db);
  }
}

}  // namespace

ConvParams conv_params(const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                       const std::vector<int64_t>& dilations, int64_t groups,
                       const std::vector<int64_t>& output_padding) {
  SKIFF_CHECK(strides.size() == 2 && strides[0] > 0 && strides[1] > 0,
              "conv: strides must be 2 positive values (height, width), got ", list_str(strides));
  SKIFF_CHECK(dilations.size() == 2 && dilations[0] > 0 && dilations[1] > 0,
              "conv: dilations must be 2 positive values (height, width), got ",
              list_str(dilations));
  SKIFF_CHECK(paddings.size() == 2 || paddings.size() == 4,
              "conv: paddings must be 2 values (height, width) or 4 (top, bottom, left, right), "
              "got ",
              list_str(paddings));
  for (int64_t v : paddings) {
    SKIFF_CHECK(v >= 0, "conv: paddings must be >= 0, got ", list_str(paddings));
  }
  SKIFF_CHECK(groups >= 1, "conv: groups must be >= 1, got ", groups);
  SKIFF_CHECK(output_padding.empty() || output_padding.size() == 2,
              "conv: output_padding must be empty or 2 values (height, width), got ",
              list_str(output_padding));
  for (int64_t v : output_padding) {
    SKIFF_CHECK(v >= 0, "conv: output_padding must be >= 0, got ", list_str(output_padding));
  }
  ConvParams p;
  p.stride_h = strides[0];
  p.stride_w = strides[1];
  p.dilation_h = dilations[0];
  p.dilation_w = dilations[1];
  const bool two = paddings.size() == 2;
  p.pad_top = paddings[0];
  p.pad_bottom = two ? paddings[0] : paddings[1];
  p.pad_left = two ? paddings[1] : paddings[2];
  p.pad_right = two ? paddings[1] : paddings[3];
  p.groups = groups;
  if (!output_padding.empty()) {
    p.output_pad_h = output_padding[0];
    p.output_pad_w = output_padding[1];
  }
  return p;
}

Shape conv2d_shape(const Shape& input, const Shape& filter, const ConvParams& p) {
  SKIFF_CHECK(input.rank() == 4, "conv2d: Input must be 4-D [N, C, H, W], got ", input);
  SKIFF_CHECK(filter.rank() == 4, "conv2d: Filter must be 4-D [M, C/groups, KH, KW], got ", filter);
  const int64_t c = input[1], m = filter[0], filter_c = filter[1], g = p.groups;
  SKIFF_CHECK(c < 0 || c % g == 0, "conv2d: groups=", g, " does not divide the ", c,
              " channels of Input ", input);
  SKIFF_CHECK(m < 0 || m % g == 0, "conv2d: groups=", g, " does not divide the ", m,
              " output channels of Filter ", filter);
  SKIFF_CHECK(c < 0 || filter_c < 0 || c == filter_c * g, "conv2d: Input ", input, " has ", c,
              " channels but Filter ", filter, " with groups=", g, " expects ", filter_c * g);
  SKIFF_CHECK((filter[2] < 0 || filter[2] > 0) && (filter[3] < 0 || filter[3] > 0),
              "conv2d: Filter ", filter, " has an empty kernel");
  return Shape{input[0], m,
               conv_out_dim("height", input[2], filter[2], p.pad_top, p.pad_bottom, p.dilation_h,
                            p.stride_h, input, filter),
               conv_out_dim("width", input[3], filter[3], p.pad_left, p.pad_right, p.dilation_w,
                            p.stride_w, input, filter)};
}

bool conv2d_bias_shape_ok(const Shape& bias, int64_t m) {
  auto matches = [&](int64_t d, int64_t want) { return d < 0 || want < 0 || d == want; };
  if (bias.rank() == 1) return matches(bias[0], m);
  return bias.rank() == 4 && matches(bias[0], 1) && matches(bias[1], m) && matches(bias[2], 1) &&
         matches(bias[3], 1);
}

ConvGeometry make_conv_geometry(const Shape& src, const Shape& weights, const Shape& dst,
                                const ConvParams& p) {
  ConvGeometry g;
  g.n = src[0], g.c = src[1], g.h = src[2], g.w = src[3];
  g.m = dst[1], g.oh = dst[2], g.ow = dst[3];
  g.kh = weights[2], g.kw = weights[3];
  g.groups = p.groups;
  g.stride_h = p.stride_h, g.stride_w = p.stride_w;
  g.pad_top = p.pad_top, g.pad_bottom = p.pad_bottom;
  g.pad_left = p.pad_left, g.pad_right = p.pad_right;
  g.dilation_h = p.dilation_h, g.dilation_w = p.dilation_w;
  return g;
}

void check_conv_dtypes(const char* op, std::initializer_list<const Tensor*> operands,
                       std::initializer_list<const char*> names) {
  const Tensor* first = *operands.begin();
  SKIFF_CHECK(is_floating(first->dtype()), op, ": ", *names.begin(),
              " must be float32, float64 or bfloat16, got ", first->type_str());
  auto name = names.begin();
  for (const Tensor* t : operands) {
    SKIFF_CHECK(!t || t->dtype() == first->dtype(), op, ": ", *name, " is ", t->type_str(), " but ",
                *names.begin(), " is ", first->type_str(), "; both need one dtype");
    ++name;
  }
}

void conv2d(const Tensor& input, const Tensor& filter, const Tensor* bias, const ConvParams& p,
            bool fuse_relu, Tensor* out) {
  check_conv_dtypes("conv2d", {&input, &filter, bias}, {"Input", "Filter", "Bias"});
  const Shape out_shape = conv2d_shape(input.shape(), filter.shape(), p);
  SKIFF_CHECK(!bias || conv2d_bias_shape_ok(bias->shape(), out_shape[1]), "conv2d: Bias must be [",
              out_shape[1], "] or [1, ", out_shape[1],
              ", 1, 1] (one value per output channel of Filter ", filter.shape(), "), got ",
              bias->shape());
  const ConvGeometry g = make_conv_geometry(input.shape(), filter.shape(), out_shape, p);
  AliasSafeOutput dst(out, {&input, &filter, bias});
  dst.get()->resize(out_shape, input.dtype());
  if (input.dtype() == DType::kBF16) {
    conv2d_bf16(g, input, filter, bias, fuse_relu, dst.get());
    dst.commit();
    return;
  }
  SKIFF_DISPATCH_FLOATING(
      input.dtype(), T,
      conv_forward(g, input.data<T>(), filter.data<T>(), bias ? bias->data<T>() : nullptr,
                   fuse_relu, dst.get()->data<T>()));
  dst.commit();
}

void conv2d_grad(const Tensor& input, const Tensor& filter, const Tensor& out_grad,
                 const ConvParams& p, Tensor* input_grad, Tensor* filter_grad, Tensor* bias_grad) {
  check_conv_dtypes("conv2d_grad", {&input, &filter, &out_grad},
                    {"Input", "Filter", "Output@GRAD"});
  const Shape out_shape = conv2d_shape(input.shape(), filter.shape(), p);
  SKIFF_CHECK(out_grad.shape() == out_shape, "conv2d_grad: Output@GRAD is ", out_grad.shape(),
              " but conv2d of Input ", input.shape(), " and Filter ", filter.shape(), " gives ",
              out_shape);
  const ConvGeometry g = make_conv_geometry(input.shape(), filter.shape(), out_shape, p);
  const std::initializer_list<const Tensor*> inputs = {&input, &filter, &out_grad};
  AliasSafeOutput dx(input_grad, inputs), dw(filter_grad, inputs), db(bias_grad, inputs);
  if (input.dtype() == DType::kBF16) {
    conv2d_grad_bf16(g, input, filter, out_grad, dx.get(), dw.get(), db.get());
    dx.commit();
    dw.commit();
    db.commit();
    return;
  }
  SKIFF_DISPATCH_FLOATING(input.dtype(), T, {
    T* db_data = nullptr;
    if (db.get()) {
      db.get()->resize(Shape{g.m}, input.dtype());
      db_data = db.get()->data<T>();
    }
    if (dw.get()) {
      dw.get()->resize(filter.shape(), input.dtype());
      conv_backward_weights(g, input.data<T>(), out_grad.data<T>(), dw.get()->data<T>(), db_data);
    } else if (db_data) {
      conv_bias_grad(g, out_grad.data<T>(), db_data);
    }
    if (dx.get()) {
      dx.get()->resize(input.shape(), input.dtype());
      conv_backward_data(g, filter.data<T>(), out_grad.data<T>(), dx.get()->data<T>());
    }
  });
  dx.commit();
  dw.commit();
  db.commit();
}

}  // namespace skiff::kernels
