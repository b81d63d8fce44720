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
int64_t conv_out_dim(const char* op, const char* what, int64_t in, int64_t k, int64_t pad_lo,
                     int64_t pad_hi, int64_t dilation, int64_t stride, const Shape& input,
                     const Shape& filter) {
  if (in < 0 || k < 0) return -1;
  const int64_t padded = in + pad_lo + pad_hi, extent = dilation * (k - 1) + 1;
  SKIFF_CHECK(padded >= extent, op, ": Input ", input, " is too small for Filter ", filter,
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

// conv_params / conv3d_params: `rank` spatial dims (2 or 3).
ConvParams conv_params_of_rank(int rank, const std::vector<int64_t>& strides,
                               const std::vector<int64_t>& paddings,
                               const std::vector<int64_t>& dilations, int64_t groups,
                               const std::vector<int64_t>& output_padding) {
  const size_t r = static_cast<size_t>(rank);
  const char* dims = rank == 3 ? "(depth, height, width)" : "(height, width)";
  const char* sides =
      rank == 3 ? "(front, back, top, bottom, left, right)" : "(top, bottom, left, right)";
  auto positive = [](const std::vector<int64_t>& v) {
    for (int64_t x : v) {
      if (x <= 0) return false;
    }
    return true;
  };
  SKIFF_CHECK(strides.size() == r && positive(strides), "conv: strides must be ", rank,
              " positive values ", dims, ", got ", list_str(strides));
  SKIFF_CHECK(dilations.size() == r && positive(dilations), "conv: dilations must be ", rank,
              " positive values ", dims, ", got ", list_str(dilations));
  SKIFF_CHECK(paddings.size() == r || paddings.size() == 2 * r, "conv: paddings must be ", rank,
              " values ", dims, " or ", 2 * r, " ", sides, ", got ", list_str(paddings));
  for (int64_t v : paddings) {
    SKIFF_CHECK(v >= 0, "conv: paddings must be >= 0, got ", list_str(paddings));
  }
  SKIFF_CHECK(groups >= 1, "conv: groups must be >= 1, got ", groups);
  SKIFF_CHECK(output_padding.empty() || output_padding.size() == r,
              "conv: output_padding must be empty or ", rank, " values ", dims, ", got ",
              list_str(output_padding));
  for (int64_t v : output_padding) {
    SKIFF_CHECK(v >= 0, "conv: output_padding must be >= 0, got ", list_str(output_padding));
  }
  // Per spatial dim (depth first in 3-D): low and high padding.
  int64_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, stride[3] = {1, 1, 1}, dil[3] = {1, 1, 1},
          extra[3] = {0, 0, 0};
  const size_t skip = 3 - r;  // 2-D fills the height and width slots
  for (size_t i = 0; i < r; ++i) {
    const bool sym = paddings.size() == r;
    lo[skip + i] = sym ? paddings[i] : paddings[2 * i];
    hi[skip + i] = sym ? paddings[i] : paddings[2 * i + 1];
    stride[skip + i] = strides[i];
    dil[skip + i] = dilations[i];
    if (!output_padding.empty()) extra[skip + i] = output_padding[i];
  }
  ConvParams p;
  p.spatial_rank = rank;
  p.stride_d = stride[0], p.stride_h = stride[1], p.stride_w = stride[2];
  p.dilation_d = dil[0], p.dilation_h = dil[1], p.dilation_w = dil[2];
  p.pad_front = lo[0], p.pad_back = hi[0];
  p.pad_top = lo[1], p.pad_bottom = hi[1];
  p.pad_left = lo[2], p.pad_right = hi[2];
  p.output_pad_d = extra[0], p.output_pad_h = extra[1], p.output_pad_w = extra[2];
  p.groups = groups;
  return p;
}

// conv2d_shape / conv3d_shape: Input [N, C, (D,) H, W], Filter [M, C / groups, (KD,) KH, KW].
Shape conv_shape(const char* op, const Shape& input, const Shape& filter, const ConvParams& p) {
  const bool vol = p.spatial_rank == 3;
  const int rank = vol ? 5 : 4;
  SKIFF_CHECK(input.rank() == rank, op, ": Input must be ", rank,
              vol ? "-D [N, C, D, H, W], got " : "-D [N, C, H, W], got ", input);
  SKIFF_CHECK(filter.rank() == rank, op, ": Filter must be ", rank,
              vol ? "-D [M, C/groups, KD, KH, KW], got " : "-D [M, C/groups, KH, KW], got ",
              filter);
  const int64_t c = input[1], m = filter[0], filter_c = filter[1], g = p.groups;
  SKIFF_CHECK(c < 0 || c % g == 0, op, ": groups=", g, " does not divide the ", c,
              " channels of Input ", input);
  SKIFF_CHECK(m < 0 || m % g == 0, op, ": groups=", g, " does not divide the ", m,
              " output channels of Filter ", filter);
  SKIFF_CHECK(c < 0 || filter_c < 0 || c == filter_c * g, op, ": Input ", input, " has ", c,
              " channels but Filter ", filter, " with groups=", g, " expects ", filter_c * g);
  for (int i = 2; i < rank; ++i) {
    SKIFF_CHECK(filter[i] != 0, op, ": Filter ", filter, " has an empty kernel");
  }
  const int h = vol ? 3 : 2;
  Shape out{input[0], m};
  if (vol) {
    out.push_back(conv_out_dim(op, "depth", input[2], filter[2], p.pad_front, p.pad_back,
                               p.dilation_d, p.stride_d, input, filter));
  }
  out.push_back(conv_out_dim(op, "height", input[h], filter[h], p.pad_top, p.pad_bottom,
                             p.dilation_h, p.stride_h, input, filter));
  out.push_back(conv_out_dim(op, "width", input[h + 1], filter[h + 1], p.pad_left, p.pad_right,
                             p.dilation_w, p.stride_w, input, filter));
  return out;
}

// Bias [M] or [1, M, 1, ...] of `rank` dims.
bool bias_shape_ok(const Shape& bias, int64_t m, int rank) {
  auto matches = [&](int64_t d, int64_t want) { return d < 0 || want < 0 || d == want; };
  if (bias.rank() == 1) return matches(bias[0], m);
  if (bias.rank() != rank || !matches(bias[0], 1) || !matches(bias[1], m)) return false;
  for (int i = 2; i < rank; ++i) {
    if (!matches(bias[i], 1)) return false;
  }
  return true;
}

}  // namespace

ConvParams conv_params(const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                       const std::vector<int64_t>& dilations, int64_t groups,
                       const std::vector<int64_t>& output_padding) {
  return conv_params_of_rank(2, strides, paddings, dilations, groups, output_padding);
}

ConvParams conv3d_params(const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                         const std::vector<int64_t>& dilations, int64_t groups,
                         const std::vector<int64_t>& output_padding) {
  return conv_params_of_rank(3, strides, paddings, dilations, groups, output_padding);
}

Shape conv2d_shape(const Shape& input, const Shape& filter, const ConvParams& p) {
  return conv_shape("conv2d", input, filter, p);
}

Shape conv3d_shape(const Shape& input, const Shape& filter, const ConvParams& p) {
  return conv_shape("conv3d", input, filter, p);
}

bool conv2d_bias_shape_ok(const Shape& bias, int64_t m) { return bias_shape_ok(bias, m, 4); }

bool conv3d_bias_shape_ok(const Shape& bias, int64_t m) { return bias_shape_ok(bias, m, 5); }

ConvGeometry make_conv_geometry(const Shape& src, const Shape& weights, const Shape& dst,
                                const ConvParams& p) {
  ConvGeometry g;
  const bool vol = src.rank() == 5;
  const int h = vol ? 3 : 2;
  g.spatial_rank = vol ? 3 : 2;
  g.n = src[0], g.c = src[1], g.h = src[h], g.w = src[h + 1];
  g.m = dst[1], g.oh = dst[h], g.ow = dst[h + 1];
  g.kh = weights[h], g.kw = weights[h + 1];
  if (vol) {
    g.d = src[2], g.od = dst[2], g.kd = weights[2];
    g.stride_d = p.stride_d, g.dilation_d = p.dilation_d;
    g.pad_front = p.pad_front, g.pad_back = p.pad_back;
  }
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

namespace {

// conv2d / conv3d (op names the one).
void conv_nd(const char* op, const Tensor& input, const Tensor& filter, const Tensor* bias,
             const ConvParams& p, bool fuse_relu, Tensor* out) {
  check_conv_dtypes(op, {&input, &filter, bias}, {"Input", "Filter", "Bias"});
  const Shape out_shape = conv_shape(op, input.shape(), filter.shape(), p);
  SKIFF_CHECK(
      !bias || bias_shape_ok(bias->shape(), out_shape[1], out_shape.rank()), op, ": Bias must be [",
      out_shape[1], "] or [1, ", out_shape[1], p.spatial_rank == 3 ? ", 1, 1, 1]" : ", 1, 1]",
      " (one value per output channel of Filter ", filter.shape(), "), got ", bias->shape());
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

// conv2d_grad / conv3d_grad (op names the forward op).
void conv_nd_grad(const char* op, const Tensor& input, const Tensor& filter, const Tensor& out_grad,
                  const ConvParams& p, Tensor* input_grad, Tensor* filter_grad, Tensor* bias_grad) {
  const std::string grad_op = std::string(op) + "_grad";
  check_conv_dtypes(grad_op.c_str(), {&input, &filter, &out_grad},
                    {"Input", "Filter", "Output@GRAD"});
  const Shape out_shape = conv_shape(op, input.shape(), filter.shape(), p);
  SKIFF_CHECK(out_grad.shape() == out_shape, grad_op, ": Output@GRAD is ", out_grad.shape(),
              " but ", op, " of Input ", input.shape(), " and Filter ", filter.shape(), " gives ",
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

}  // namespace

void conv2d(const Tensor& input, const Tensor& filter, const Tensor* bias, const ConvParams& p,
            bool fuse_relu, Tensor* out) {
  conv_nd("conv2d", input, filter, bias, p, fuse_relu, out);
}

void conv3d(const Tensor& input, const Tensor& filter, const Tensor* bias, const ConvParams& p,
            bool fuse_relu, Tensor* out) {
  conv_nd("conv3d", input, filter, bias, p, fuse_relu, out);
}

void conv2d_grad(const Tensor& input, const Tensor& filter, const Tensor& out_grad,
                 const ConvParams& p, Tensor* input_grad, Tensor* filter_grad, Tensor* bias_grad) {
  conv_nd_grad("conv2d", input, filter, out_grad, p, input_grad, filter_grad, bias_grad);
}

void conv3d_grad(const Tensor& input, const Tensor& filter, const Tensor& out_grad,
                 const ConvParams& p, Tensor* input_grad, Tensor* filter_grad, Tensor* bias_grad) {
  conv_nd_grad("conv3d", input, filter, out_grad, p, input_grad, filter_grad, bias_grad);
}

}  // namespace skiff::kernels
