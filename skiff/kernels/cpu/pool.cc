#include "skiff/kernels/cpu/pool.h"

#include <algorithm>
#include <limits>

#include "skiff/kernels/cpu/bf16_convert.h"
#ifndef SKIFF_NO_ONEDNN
#include "skiff/kernels/cpu/onednn_cache.h"
#endif
#include "skiff/kernels/cpu/pool_geometry.h"

namespace skiff::kernels {
namespace {

// The geometry of one call, from the (known) input shape.
PoolGeometry geometry(const Shape& x, const Pool2dOptions& o) {
  const Shape out = pool2d_output_shape(x, o);
  PoolGeometry g;
  g.planes = x[0] * x[1];
  g.h = x[2];
  g.w = x[3];
  g.oh = out[2];
  g.ow = out[3];
  g.max = o.max;
  g.exclusive = o.exclusive;
  SKIFF_CHECK(g.h * g.w <= std::numeric_limits<int32_t>::max(), "pool2d: X ", x,
              " has planes too large for int32 argmax indices");
  if (o.global_pooling) {
    g.kh = g.h;
    g.kw = g.w;
  } else if (o.adaptive) {
    // Bins of equal size are plain windows (and take the fast paths).
    g.adaptive = g.h % g.oh != 0 || g.w % g.ow != 0;
    if (!g.adaptive) {
      g.kh = g.sh = g.h / g.oh;
      g.kw = g.sw = g.w / g.ow;
    }
  } else {
    g.kh = o.ksize[0];
    g.kw = o.ksize[1];
    g.sh = o.strides[0];
    g.sw = o.strides[1];
    g.pt = o.paddings[0];
    g.pb = o.paddings[1];
    g.pl = o.paddings[2];
    g.pr = o.paddings[3];
  }
  return g;
}

// ---------------------------------------------------------------- oneDNN (float32)

// Built with SKIFF_NO_ONEDNN (the portable kernel set of generated code), every window
// takes the direct loops.
#ifdef SKIFF_NO_ONEDNN
bool use_onednn(const PoolGeometry&, DType, bool) { return false; }
void onednn_pool(const PoolGeometry& g, bool, const float*, float*) {
  fail("pool2d: no oneDNN in this build (", g.planes, " planes)");
}
#else
// Below this many input elements the direct loops win over oneDNN's fixed cost.
constexpr int64_t kOnednnMinElements = 1 << 14;

struct OnednnPool {
  dnnl::primitive primitive;
  dnnl::memory src, dst;  // backward: diff_src, diff_dst
};

dnnl::algorithm onednn_algorithm(const PoolGeometry& g) {
  if (g.max) return dnnl::algorithm::pooling_max;
  return g.exclusive ? dnnl::algorithm::pooling_avg_exclude_padding
                     : dnnl::algorithm::pooling_avg_include_padding;
}

// oneDNN wants the end padding that makes (in + begin + end - k) / s + 1 the output size.
int64_t onednn_end_pad(int64_t in, int64_t out, int64_t k, int64_t s, int64_t begin, int64_t end) {
  if ((in + begin + end - k) / s + 1 == out) return end;
  return (out - 1) * s + k - in - begin;
}

OnednnPool make_onednn_pool(const PoolGeometry& g, bool backward) {
  using dims = dnnl::memory::dims;
  const auto f32 = dnnl::memory::data_type::f32;
  const auto nchw = dnnl::memory::format_tag::nchw;
  const dnnl::memory::desc src({1, g.planes, g.h, g.w}, f32, nchw);
  const dnnl::memory::desc dst({1, g.planes, g.oh, g.ow}, f32, nchw);
  const dims strides{g.sh, g.sw}, kernel{g.kh, g.kw}, pad_l{g.pt, g.pl};
  const dims pad_r{onednn_end_pad(g.h, g.oh, g.kh, g.sh, g.pt, g.pb),
                   onednn_end_pad(g.w, g.ow, g.kw, g.sw, g.pl, g.pr)};
  dnnl::engine& eng = onednn_engine();
  try {
    dnnl::pooling_forward::primitive_desc fwd(
        {dnnl::prop_kind::forward_inference, onednn_algorithm(g), src, dst, strides, kernel, pad_l,
         pad_r},
        eng);
    if (!backward) {
      return {dnnl::pooling_forward(fwd), dnnl::memory(src, eng, nullptr),
              dnnl::memory(dst, eng, nullptr)};
    }
    dnnl::pooling_backward::primitive_desc bwd(
        {onednn_algorithm(g), src, dst, strides, kernel, pad_l, pad_r}, eng, fwd);
    return {dnnl::pooling_backward(bwd), dnnl::memory(src, eng, nullptr),
            dnnl::memory(dst, eng, nullptr)};
  } catch (const dnnl::error& e) {
    fail("oneDNN could not make a pooling for ", g.planes, " planes of ", g.h, "x", g.w, " -> ",
         g.oh, "x", g.ow, ": ", e.what());
  }
}

// Runs the cached pooling forward (x -> y) or average backward (dy -> dx).
void onednn_pool(const PoolGeometry& g, bool backward, const float* in, float* out) {
  constexpr int64_t kPoolTag = 0x706f6f6c32;  // "pool2"
  OnednnKey key(kPoolTag);
  key.add(backward).add(g.max).add(g.exclusive).add(g.planes).add(g.h).add(g.w).add(g.oh);
  key.add(g.ow).add(g.kh).add(g.kw).add(g.sh).add(g.sw).add(g.pt).add(g.pl).add(g.pb).add(g.pr);
  OnednnPool& e =
      onednn_cache<OnednnPool>().get(key, [&] { return make_onednn_pool(g, backward); });
  dnnl::stream& stream = onednn_stream();
  if (backward) {
    e.dst.set_data_handle(const_cast<float*>(in));
    e.src.set_data_handle(out);
    e.primitive.execute(stream, {{DNNL_ARG_DIFF_DST, e.dst}, {DNNL_ARG_DIFF_SRC, e.src}});
  } else {
    e.src.set_data_handle(const_cast<float*>(in));
    e.dst.set_data_handle(out);
    e.primitive.execute(stream, {{DNNL_ARG_SRC, e.src}, {DNNL_ARG_DST, e.dst}});
  }
  stream.wait();
}

// oneDNN takes large float32 windows the direct loops handle only element by element
// (not inclusive averages over windows past the padding: it would count cells there).
bool use_onednn(const PoolGeometry& g, DType dtype, bool wants_argmax) {
  return dtype == DType::kF32 && !g.adaptive && !wants_argmax && !g.unpadded_2x2() &&
         (g.max || g.exclusive || !g.overhangs()) && g.planes * g.h * g.w >= kOnednnMinElements;
}
#endif  // SKIFF_NO_ONEDNN

// A result computed aside when the output tensor is also an input.
struct Destination {
  Tensor own;
  Tensor* out;
  Tensor* dst;
  Destination(Tensor* out, std::initializer_list<const Tensor*> inputs) : out(out), dst(out) {
    for (const Tensor* in : inputs)
      if (in == out) dst = &own;
  }
  void finish() {
    if (dst == &own) *out = own;
  }
};

}  // namespace

Pool2dOptions pool2d_options(const std::string& pooling_type, const std::vector<int64_t>& ksize,
                             const std::vector<int64_t>& strides,
                             const std::vector<int64_t>& paddings, bool global_pooling,
                             bool adaptive, bool exclusive, bool ceil_mode) {
  SKIFF_CHECK(pooling_type == "max" || pooling_type == "avg", "pool2d: pooling_type must be ",
              "\"max\" or \"avg\", got \"", pooling_type, "\"");
  SKIFF_CHECK(ksize.size() == 2 && ksize[0] > 0 && ksize[1] > 0,
              "pool2d: ksize must hold 2 positive values, got ", Shape(ksize));
  SKIFF_CHECK(strides.size() == 2 && strides[0] > 0 && strides[1] > 0,
              "pool2d: strides must hold 2 positive values, got ", Shape(strides));
  SKIFF_CHECK((paddings.size() == 2 || paddings.size() == 4) &&
                  std::all_of(paddings.begin(), paddings.end(), [](int64_t p) { return p >= 0; }),
              "pool2d: paddings must hold 2 (H, W) or 4 (top, bottom, left, right) ",
              "non-negative values, got ", Shape(paddings));
  Pool2dOptions o;
  o.max = pooling_type == "max";
  for (int d = 0; d < 2; ++d) {
    o.ksize[d] = ksize[d];
    o.strides[d] = strides[d];
  }
  const bool both_sides = paddings.size() == 2;
  o.paddings[0] = paddings[0];
  o.paddings[1] = both_sides ? paddings[0] : paddings[1];
  o.paddings[2] = both_sides ? paddings[1] : paddings[2];
  o.paddings[3] = both_sides ? paddings[1] : paddings[3];
  o.global_pooling = global_pooling;
  o.adaptive = adaptive;
  o.exclusive = exclusive;
  o.ceil_mode = ceil_mode;
  return o;
}

Shape pool2d_output_shape(const Shape& x, const Pool2dOptions& o) {
  SKIFF_CHECK(x.rank() == 4, "pool2d: X must be [N, C, H, W], got ", x);
  SKIFF_CHECK(x[2] != 0 && x[3] != 0, "pool2d: X ", x, " has empty planes");
  Shape out{x[0], x[1], 1, 1};
  if (o.global_pooling) return out;
  for (int d = 0; d < 2; ++d) {
    const int64_t in = x[2 + d];
    if (o.adaptive) {
      out[2 + d] = o.ksize[d];
    } else {
      out[2 + d] = in < 0
                       ? -1
                       : pooled_extent("pool2d", d == 0 ? "H" : "W", in, o.ksize[d], o.strides[d],
                                       o.paddings[2 * d], o.paddings[2 * d + 1], o.ceil_mode);
    }
  }
  return out;
}

void pool2d(const Tensor& x, const Pool2dOptions& o, Tensor* out, Tensor* mask) {
  if (x.dtype() == DType::kBF16) {  // in float32 on the exact values, rounded once
    Tensor y;
    pool2d(widen_bf16(x), o, &y, mask);
    return round_to_bf16(y, out);
  }
  SKIFF_CHECK(is_floating(x.dtype()) || (x.dtype() == DType::kI8 && o.max),
              "pool2d: X must be float32 or float64 (or int8, for max pooling), got ",
              x.type_str());
  SKIFF_CHECK(o.max || !mask, "pool2d: Mask (argmax indices) is only made by max pooling");
  const PoolGeometry g = geometry(x.shape(), o);
  const Shape out_shape{x.dim(0), x.dim(1), g.oh, g.ow};
  Destination y(out, {&x});
  y.dst->resize(out_shape, x.dtype());
  if (mask) mask->resize(out_shape, DType::kI32);
  if (g.planes == 0) return y.finish();
  if (use_onednn(g, x.dtype(), mask != nullptr)) {
    onednn_pool(g, /*backward=*/false, x.data<float>(), y.dst->data<float>());
  } else if (x.dtype() == DType::kI8) {
    pool_planes(g, x.data<int8_t>(), y.dst->data<int8_t>(), mask ? mask->data<int32_t>() : nullptr);
  } else {
    SKIFF_DISPATCH_FLOATING(
        x.dtype(), T,
        pool_planes(g, x.data<T>(), y.dst->data<T>(), mask ? mask->data<int32_t>() : nullptr));
  }
  y.finish();
}

void pool2d_grad(const Tensor& x, const Tensor& out_grad, const Tensor* mask,
                 const Pool2dOptions& o, Tensor* x_grad) {
  if (x.dtype() == DType::kBF16 && out_grad.dtype() == DType::kBF16) {  // as pool2d
    Tensor dx;
    pool2d_grad(widen_bf16(x), widen_bf16(out_grad), mask, o, &dx);
    return round_to_bf16(dx, x_grad);
  }
  SKIFF_CHECK(is_floating(x.dtype()) && out_grad.dtype() == x.dtype(), "pool2d_grad: X ",
              x.type_str(), " and Out@GRAD ", out_grad.type_str(), " must share a floating dtype");
  const PoolGeometry g = geometry(x.shape(), o);
  const Shape out_shape{x.dim(0), x.dim(1), g.oh, g.ow};
  SKIFF_CHECK(out_grad.shape() == out_shape, "pool2d_grad: Out@GRAD ", out_grad.shape(),
              " should be ", out_shape, " for X ", x.shape());
  if (mask && !o.max) mask = nullptr;
  if (mask) {
    SKIFF_CHECK(mask->dtype() == DType::kI32 && mask->shape() == out_shape, "pool2d_grad: Mask ",
                mask->type_str(), " should be int32", out_shape);
  }
  Destination dx(x_grad, {&x, &out_grad, mask});
  dx.dst->resize(x.shape(), x.dtype());
  if (g.planes == 0) return dx.finish();
  if (!g.max && use_onednn(g, x.dtype(), false)) {
    onednn_pool(g, /*backward=*/true, out_grad.data<float>(), dx.dst->data<float>());
  } else {
    bool mask_ok = true;
    SKIFF_DISPATCH_FLOATING(
        x.dtype(), T,
        mask_ok = pool_planes_grad(g, x.data<T>(), out_grad.data<T>(),
                                   mask ? mask->data<int32_t>() : nullptr, dx.dst->data<T>()));
    SKIFF_CHECK(mask_ok, "pool2d_grad: Mask holds an index outside its ", g.h, "x", g.w,
                " plane (it must come from the forward pool2d of this X)");
  }
  dx.finish();
}

}  // namespace skiff::kernels
