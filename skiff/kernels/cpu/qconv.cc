#include "skiff/kernels/cpu/qconv.h"

#include <algorithm>
#include <vector>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/conv_geometry.h"
#include "skiff/kernels/cpu/int8_gemm.h"
#include "skiff/kernels/cpu/qmatmul.h"

namespace skiff::kernels {

namespace {

std::string type_of(const Tensor& t) {
  return t.initialized() ? t.type_str() : std::string("none");
}

// Buffers one image's products need: its columns, their packed form, the int32 sums.
struct ImageWork {
  std::vector<int8_t> col;
  Int8PackedB packed;
  std::vector<int32_t> acc;
};

// acc [M, P] of image `src`: per group, the filter rows times the group's columns.
void image_products(const ConvGeometry& g, const int8_t* src, const int8_t* filter, Int8Signs signs,
                    bool parallel, ImageWork* w) {
  const int64_t p = g.dst_spatial(), mg = g.m / g.groups, cg = g.c / g.groups;
  const int64_t kg = cg * g.kernel_volume();
  const bool direct = g.kh == 1 && g.kw == 1 && g.stride_h == 1 && g.stride_w == 1 &&
                      g.pad_top == 0 && g.pad_bottom == 0 && g.pad_left == 0 && g.pad_right == 0;
  const int8_t* col = src;  // a 1x1 kernel of stride 1: the image is its own columns
  if (!direct) {
    w->col.resize(static_cast<size_t>(g.c * g.kernel_volume() * p));
    im2col(g, src, w->col.data());
    col = w->col.data();
  }
  w->acc.resize(static_cast<size_t>(g.m * p));
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    w->packed.pack(col + gi * kg * p, kg, p, p, signs, parallel);
    int8_gemm(filter + gi * mg * kg, kg, mg, w->packed, w->acc.data() + gi * mg * p, p, parallel);
  }
}

}  // namespace

void quantized_conv2d(const Tensor& input, const Tensor& filter, const Tensor& input_scale,
                      const Tensor& filter_scale, const Tensor& bias, const ConvParams& p,
                      bool relu, const Tensor& out_scale, Tensor* out) {
  SKIFF_CHECK(input.initialized() && input.dtype() == DType::kI8 && input.rank() == 4,
              "quantized_conv2d: Input must be int8 [N, C, H, W], got ", type_of(input));
  SKIFF_CHECK(filter.initialized() && filter.dtype() == DType::kI8 && filter.rank() == 4,
              "quantized_conv2d: Filter must be int8 [M, C / groups, KH, KW], got ",
              type_of(filter));
  const Shape out_shape = conv2d_shape(input.shape(), filter.shape(), p);
  const ConvGeometry g = make_conv_geometry(input.shape(), filter.shape(), out_shape, p);
  const QuantizedScales scales = quantized_scales("quantized_conv2d", input_scale, "InputScale",
                                                  filter_scale, "FilterScale", g.m, out_scale);
  const bool has_bias = bias.initialized();
  SKIFF_CHECK(!has_bias || (bias.dtype() == DType::kF32 && bias.numel() == g.m &&
                            conv2d_bias_shape_ok(bias.shape(), g.m)),
              "quantized_conv2d: Bias must be float32 [", g.m, "] or [1, ", g.m, ", 1, 1], got ",
              type_of(bias));
  Int8Output o;
  o.out_scale = scales.out;
  o.scale = scales.channel.data();
  o.per_row = true;
  o.bias = has_bias ? bias.data<float>() : nullptr;
  o.relu = relu;
  out->resize(out_shape, o.out_scale > 0 ? DType::kI8 : DType::kF32);
  const int64_t plane = g.dst_spatial();
  const size_t out_bytes = o.out_scale > 0 ? 1 : sizeof(float);
  char* dst = static_cast<char*>(out->raw_data());
  if (g.n == 0 || g.m == 0 || plane == 0) return;
  if (g.c == 0) {  // no products: the bias alone
    std::vector<int32_t> zeros(static_cast<size_t>(g.m * plane), 0);
    for (int64_t b = 0; b < g.n; ++b)
      int8_finish(o, g.m, plane, zeros.data(), dst + b * g.m * plane * out_bytes);
    return;
  }
  const int8_t* src = input.data<int8_t>();
  const int8_t* w = filter.data<int8_t>();
  // An input after relu (no negative value) takes the byte products; its columns (B) are
  // then the unsigned operand.
  const Int8Signs signs =
      non_negative(src, input.numel()) ? Int8Signs::kBNonNegative : Int8Signs::kSigned;
  auto image = [&](int64_t b, bool parallel, ImageWork* work) {
    image_products(g, src + b * g.c * g.src_spatial(), w, signs, parallel, work);
    int8_finish(o, g.m, plane, work->acc.data(), dst + b * g.m * plane * out_bytes);
  };
  if (g.n == 1) {
    ImageWork work;
    image(0, /*parallel=*/true, &work);
    return;
  }
  parallel_for(g.n, 1, [&](int64_t lo, int64_t hi) {
    ImageWork work;
    for (int64_t b = lo; b < hi; ++b) image(b, /*parallel=*/false, &work);
  });
}

}  // namespace skiff::kernels
