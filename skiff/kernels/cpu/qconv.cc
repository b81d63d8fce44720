#include "skiff/kernels/cpu/qconv.h"

#include <algorithm>
#include <vector>

#include "skiff/core/cpu.h"
#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/conv_geometry.h"
#include "skiff/kernels/cpu/int8_gemm.h"
#include "skiff/kernels/cpu/pool_geometry.h"
#include "skiff/kernels/cpu/qmatmul.h"
#ifndef SKIFF_NO_ONEDNN
#include <cstring>
#include <unordered_map>

#include "skiff/kernels/cpu/onednn_cache.h"
#endif

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

#ifndef SKIFF_NO_ONEDNN
// oneDNN's int8 convolution (its VNNI and AMX kernels) for the int32 sums: NHWC int8 in,
// NHWC int32 out, which int8_finish_transposed scales into skiff's NCHW output, so the
// results are the ones skiff's own products give, bit for bit. One entry a thread and
// geometry (its image count included), owning the filter in oneDNN's layout (made again
// when the filter's bytes change) and the buffers of a chunk of images.
struct Int8ConvEntry {
  dnnl::convolution_forward primitive;
  dnnl::memory src, dst, weights;  // src and dst: handles set per call
  dnnl::memory plain_weights;      // OIHW (a handle set per call)
  dnnl::reorder to_weights;
  std::unordered_map<int, dnnl::memory> args;
  std::vector<int8_t> weights_from;  // the filter bytes `weights` was made from
  std::vector<int32_t> acc;          // the chunk's sums [images, plane, m]
  bool available = true;             // false: oneDNN has only its reference loops for it
};

// NCHW and NHWC differ only with several channels and several pixels.
bool needs_nhwc(const ConvGeometry& g) { return g.c > 1 && g.src_spatial() > 1; }

// A whole input's NHWC copy: the reorder (oneDNN's, all threads) and the buffer.
struct NhwcCopy {
  dnnl::memory plain, nhwc;
  dnnl::reorder to_nhwc;
};

// The NHWC copy of src [n, c, h, w] (int8 or, as its bits, uint8), made on this thread's
// stream; valid until the next call with the same shape.
const int8_t* nhwc_copy(const ConvGeometry& g, const int8_t* src) {
  using dnnl::memory;
  constexpr int64_t kTag = 0x6e687763;  // "nhwc"
  OnednnKey key(kTag);
  key.add(g.n).add(g.c).add(g.h).add(g.w);
  NhwcCopy& e = onednn_cache<NhwcCopy>().get(key, [&] {
    const memory::dims dims{g.n, g.c, g.h, g.w};
    NhwcCopy made;
    made.plain = memory({dims, memory::data_type::s8, memory::format_tag::nchw}, onednn_engine(),
                        DNNL_MEMORY_NONE);
    made.nhwc = memory({dims, memory::data_type::s8, memory::format_tag::nhwc}, onednn_engine());
    made.to_nhwc = dnnl::reorder(made.plain, made.nhwc);
    return made;
  });
  e.plain.set_data_handle(const_cast<int8_t*>(src));
  dnnl::stream& s = onednn_stream();
  e.to_nhwc.execute(s, e.plain, e.nhwc);
  s.wait();
  return static_cast<const int8_t*>(e.nhwc.get_data_handle());
}

Int8ConvEntry make_int8_conv(const ConvGeometry& g, int64_t images, bool src_unsigned) {
  using dnnl::memory;
  using Tag = memory::format_tag;
  using Type = memory::data_type;
  const memory::dims src{images, g.c, g.h, g.w}, dst{images, g.m, g.oh, g.ow};
  const memory::dims weights =
      g.groups == 1 ? memory::dims{g.m, g.c, g.kh, g.kw}
                    : memory::dims{g.groups, g.m / g.groups, g.c / g.groups, g.kh, g.kw};
  const memory::desc src_md(src, src_unsigned ? Type::u8 : Type::s8, Tag::nhwc);
  const memory::desc dst_md(dst, Type::s32, Tag::nhwc);
  const memory::desc plain(weights, Type::s8, g.groups == 1 ? Tag::oihw : Tag::goihw);
  Int8ConvEntry e;
  try {
    dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(
            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
            memory::desc(weights, Type::s8, Tag::any), dst_md, {g.stride_h, g.stride_w},
            {g.dilation_h - 1, g.dilation_w - 1}, {g.pad_top, g.pad_left},
            {g.pad_bottom, g.pad_right}),
        onednn_engine());
    if (std::strncmp(pd.impl_info_str(), "ref", 3) == 0) {  // slower than skiff's own loops
      e.available = false;
      return e;
    }
    dnnl::engine& eng = onednn_engine();
    e.primitive = dnnl::convolution_forward(pd);
    e.src = memory(src_md, eng, DNNL_MEMORY_NONE);
    e.dst = memory(dst_md, eng, DNNL_MEMORY_NONE);
    e.weights = memory(pd.weights_desc(), eng);
    e.plain_weights = memory(plain, eng, DNNL_MEMORY_NONE);
    e.to_weights = dnnl::reorder(e.plain_weights, e.weights);
    e.args = {{DNNL_ARG_SRC, e.src}, {DNNL_ARG_WEIGHTS, e.weights}, {DNNL_ARG_DST, e.dst}};
    e.acc.resize(static_cast<size_t>(images * g.m * g.dst_spatial()));
  } catch (const dnnl::error& err) {
    if (err.status != dnnl_unimplemented) {
      fail("oneDNN could not make an int8 convolution for input [", images, ", ", g.c, ", ", g.h,
           ", ", g.w, "], filter [", g.m, ", ", g.c / g.groups, ", ", g.kh, ", ", g.kw,
           "], groups ", g.groups, ": ", err.what());
    }
    e.available = false;
  }
  return e;
}

Int8ConvEntry& int8_conv_entry(const ConvGeometry& g, int64_t images, bool src_unsigned) {
  constexpr int64_t kTag = 0x71636f6e76;  // "qconv"
  OnednnKey key(kTag);
  key.add(images).add(src_unsigned).add(g.c).add(g.h).add(g.w).add(g.m).add(g.oh).add(g.ow);
  key.add(g.kh).add(g.kw).add(g.groups).add(g.stride_h).add(g.stride_w).add(g.pad_top);
  key.add(g.pad_bottom).add(g.pad_left).add(g.pad_right).add(g.dilation_h).add(g.dilation_w);
  return onednn_cache<Int8ConvEntry>().get(key,
                                           [&] { return make_int8_conv(g, images, src_unsigned); });
}

// acc [images, plane, m] of the images at `src` (NHWC).
void int8_conv_sums(const ConvGeometry& g, const int8_t* src, int64_t images, const int8_t* filter,
                    Int8ConvEntry& e) {
  dnnl::stream& s = onednn_stream();
  const size_t filter_bytes = static_cast<size_t>(g.weights_numel());
  if (e.weights_from.size() != filter_bytes ||
      std::memcmp(e.weights_from.data(), filter, filter_bytes) != 0) {
    e.weights_from.assign(filter, filter + filter_bytes);
    e.plain_weights.set_data_handle(e.weights_from.data());
    e.to_weights.execute(s, e.plain_weights, e.weights);
  }
  e.src.set_data_handle(const_cast<int8_t*>(src));
  e.dst.set_data_handle(e.acc.data());
  e.primitive.execute(s, e.args);
  s.wait();
}

// Exact through oneDNN: with VNNI any operands; without it, products of bytes pair up in
// 16 bits (vpmaddubsw), exact only while the unsigned operand stays below 128, as an input
// after relu does (a signed one would be shifted by 128 and saturate). The kernels' cap
// (SKIFF_MAX_CPU_ISA) caps oneDNN too, so the set decides, not the CPU.
bool onednn_exact(bool src_unsigned) {
  return kernel_isa() >= CpuIsa::kAvx512Bf16 || (src_unsigned && kernel_isa() >= CpuIsa::kAvx2);
}

// 2x2 max pooling at stride 2 of one row pair of NHWC sums (rows `width` pixels of m
// channels apart) into pooled [width / 2, m]. What is pooled is the sums, not the finished
// values: the finish is monotone in the sum per channel (non-decreasing for a non-negative
// scale, non-increasing for a negative one, `descending` -1), so the window's largest
// (smallest) sum gives its largest finished value, exactly.
template <bool kAnyDescending>
void pool_sums_2x2(const int32_t* acc, int64_t width, int64_t m, const int32_t* descending,
                   int32_t* pooled) {
  for (int64_t j = 0; j < width / 2; ++j) {
    const int32_t* a = acc + 2 * j * m;
    const int32_t* b = a + m;
    const int32_t* c = a + width * m;
    const int32_t* d = c + m;
    int32_t* out = pooled + j * m;
    for (int64_t k = 0; k < m; ++k) {
      const int32_t high = std::max(std::max(a[k], b[k]), std::max(c[k], d[k]));
      if (!kAnyDescending) {  // the common case: half the work
        out[k] = high;
        continue;
      }
      const int32_t low = std::min(std::min(a[k], b[k]), std::min(c[k], d[k]));
      out[k] = (high & ~descending[k]) | (low & descending[k]);
    }
  }
}

// The convolution through oneDNN (then 2x2 max pooling at stride 2 when `pool`): returns
// how many of the first images it wrote, all but where oneDNN offers only its reference
// loops (none, or a last chunk's image count that the caller then computes). Images go in
// chunks whose sums stay in the caches: oneDNN's threads share a chunk's products, then
// skiff's share its finish (oneDNN primitives are only run outside skiff's parallel
// regions: run inside one, signed inputs' sums came out wrong).
int64_t onednn_quantized_conv2d(const ConvGeometry& g, const int8_t* src, const int8_t* filter,
                                bool src_unsigned, const Int8Output& o, bool pool, char* dst,
                                size_t out_bytes) {
  if (g.degenerate() || g.pad_bottom < 0 || g.pad_right < 0 || !onednn_exact(src_unsigned))
    return 0;
  const int64_t plane = g.dst_spatial(), image_in = g.c * g.src_spatial();
  const int64_t image_out = g.m * plane;
  // Rows of the output plane: pooled ones with `pool`, finished a task in groups of about
  // 64 pixels.
  const int64_t out_w = pool ? g.ow / 2 : g.ow, out_h = pool ? g.oh / 2 : g.oh;
  const int64_t out_plane = out_h * out_w, dst_image = g.m * out_plane;
  const int64_t group = std::max<int64_t>(1, 64 / out_w);
  const int64_t tasks = (out_h + group - 1) / group;
  std::vector<int32_t> descending(static_cast<size_t>(g.m));
  for (int64_t k = 0; k < g.m; ++k) descending[k] = o.scale[k] < 0 ? -1 : 0;
  const bool any_descending = std::count(descending.begin(), descending.end(), -1) > 0;
  if (needs_nhwc(g)) src = nhwc_copy(g, src);
  // Sums of about 512 KiB a chunk, and every chunk but the last of the same size.
  const int64_t chunk = std::clamp<int64_t>((512 << 10) / (image_out * 4), 1, g.n);
  for (int64_t b = 0; b < g.n; b += chunk) {
    const int64_t images = std::min(chunk, g.n - b);
    Int8ConvEntry& e = int8_conv_entry(g, images, src_unsigned);
    if (!e.available) return b;
    int8_conv_sums(g, src + b * image_in, images, filter, e);
    parallel_for(images * tasks, 1, [&](int64_t lo, int64_t hi) {
      std::vector<int32_t> pooled(pool ? static_cast<size_t>(group * out_w * g.m) : 0);
      for (int64_t t = lo; t < hi; ++t) {
        const int64_t i = t / tasks, y0 = t % tasks * group, y1 = std::min(out_h, y0 + group);
        const int32_t* sums = e.acc.data() + i * image_out + y0 * out_w * g.m;
        if (pool) {
          for (int64_t y = y0; y < y1; ++y) {
            const int32_t* rows = e.acc.data() + i * image_out + 2 * y * g.ow * g.m;
            int32_t* to = pooled.data() + (y - y0) * out_w * g.m;
            if (any_descending) {
              pool_sums_2x2<true>(rows, g.ow, g.m, descending.data(), to);
            } else {
              pool_sums_2x2<false>(rows, g.ow, g.m, descending.data(), to);
            }
          }
          sums = pooled.data();
        }
        int8_finish_transposed(o, out_plane, g.m, y0 * out_w, y1 * out_w, sums,
                               dst + (b + i) * dst_image * static_cast<int64_t>(out_bytes));
      }
    });
  }
  return g.n;
}
#endif

}  // namespace

void quantized_conv2d(const Tensor& input, const Tensor& filter, const Tensor& input_scale,
                      const Tensor& filter_scale, const Tensor& bias, const ConvParams& p,
                      bool relu, bool max_pool_2x2, const Tensor& out_scale, Tensor* out) {
  SKIFF_CHECK(input.initialized() && input.dtype() == DType::kI8 && input.rank() == 4,
              "quantized_conv2d: Input must be int8 [N, C, H, W], got ", type_of(input));
  SKIFF_CHECK(filter.initialized() && filter.dtype() == DType::kI8 && filter.rank() == 4,
              "quantized_conv2d: Filter must be int8 [M, C / groups, KH, KW], got ",
              type_of(filter));
  const Shape conv_shape = conv2d_shape(input.shape(), filter.shape(), p);
  const ConvGeometry g = make_conv_geometry(input.shape(), filter.shape(), conv_shape, p);
  const QuantizedScales scales = quantized_scales("quantized_conv2d", input_scale, "InputScale",
                                                  filter_scale, "FilterScale", g.m, out_scale);
  const bool has_bias = bias.initialized();
  SKIFF_CHECK(!has_bias || (bias.dtype() == DType::kF32 && bias.numel() == g.m &&
                            conv2d_bias_shape_ok(bias.shape(), g.m)),
              "quantized_conv2d: Bias must be float32 [", g.m, "] or [1, ", g.m, ", 1, 1], got ",
              type_of(bias));
  Shape out_shape = conv_shape;
  if (max_pool_2x2) {
    SKIFF_CHECK(out_scale.initialized(),
                "quantized_conv2d: fuse_max_pool_2x2 pools int8 outputs only (give OutScale)");
    SKIFF_CHECK(g.oh >= 2 && g.ow >= 2, "quantized_conv2d: fuse_max_pool_2x2 needs a 2x2 window: ",
                "the convolution's output ", conv_shape, " is smaller");
    out_shape[2] = g.oh / 2;
    out_shape[3] = g.ow / 2;
  }
  Int8Output o;
  o.out_scale = scales.out;
  o.scale = scales.channel.data();
  o.per_row = true;
  o.bias = has_bias ? bias.data<float>() : nullptr;
  o.relu = relu;
  out->resize(out_shape, o.out_scale > 0 ? DType::kI8 : DType::kF32);
  const int64_t plane = g.dst_spatial();
  const size_t out_bytes = o.out_scale > 0 ? 1 : sizeof(float);
  if (g.n == 0 || g.m == 0 || plane == 0) return;
  const int8_t* src = input.data<int8_t>();
  const int8_t* w = filter.data<int8_t>();
  // An input after relu (no negative value) takes the byte products; its columns (B) are
  // then the unsigned operand.
  const Int8Signs signs =
      g.c > 0 && non_negative(src, input.numel()) ? Int8Signs::kBNonNegative : Int8Signs::kSigned;
  int64_t first = 0;  // the first image left to skiff's own products
#ifndef SKIFF_NO_ONEDNN
  if (g.c > 0) {
    first = onednn_quantized_conv2d(g, src, w, signs == Int8Signs::kBNonNegative, o, max_pool_2x2,
                                    static_cast<char*>(out->raw_data()), out_bytes);
  }
#endif
  if (first == g.n) return;
  // Skiff's products write the output where it goes, or, to be pooled, images
  // [first, n) of `full`.
  Tensor full;
  if (max_pool_2x2) full.resize(conv_shape, DType::kI8);
  char* dst = static_cast<char*>(max_pool_2x2 ? full.raw_data() : out->raw_data());
  auto pool_rest = [&] {
    if (!max_pool_2x2) return;
    PoolGeometry pg;
    pg.planes = (g.n - first) * g.m;
    pg.h = g.oh, pg.w = g.ow, pg.oh = out_shape[2], pg.ow = out_shape[3];
    pg.kh = pg.kw = pg.sh = pg.sw = 2;
    pool_planes(pg, full.data<int8_t>() + first * g.m * plane,
                out->data<int8_t>() + first * g.m * pg.oh * pg.ow, nullptr);
  };
  if (g.c == 0) {  // no products: the bias alone
    std::vector<int32_t> zeros(static_cast<size_t>(g.m * plane), 0);
    for (int64_t b = 0; b < g.n; ++b)
      int8_finish(o, g.m, plane, zeros.data(), dst + b * g.m * plane * out_bytes);
    return pool_rest();
  }
  auto image = [&](int64_t b, bool parallel, ImageWork* work) {
    image_products(g, src + b * g.c * g.src_spatial(), w, signs, parallel, work);
    int8_finish(o, g.m, plane, work->acc.data(), dst + b * g.m * plane * out_bytes);
  };
  if (g.n - first == 1) {
    ImageWork work;
    image(first, /*parallel=*/true, &work);
  } else {
    parallel_for(g.n - first, 1, [&](int64_t lo, int64_t hi) {
      ImageWork work;
      for (int64_t b = first + lo; b < first + hi; ++b) image(b, /*parallel=*/false, &work);
    });
  }
  pool_rest();
}

}  // namespace skiff::kernels
