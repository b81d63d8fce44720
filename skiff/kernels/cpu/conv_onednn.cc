// float32 and bfloat16 convolution through oneDNN: forward (with bias and relu fused as a
// post-op), backward data and backward weights (with the bias gradient). Primitives are
// cached per thread by geometry and data type; skiff's tensors stay NCHW / OIHW (NCDHW /
// OIDHW in 3-D), and when the chosen primitive wants another layout the cache entry owns a
// buffer in that layout and the reorders to and from it. bfloat16 primitives take and give bfloat16
// (float32 accumulation inside); where oneDNN has none on this CPU the bf16 entry points say so.
#include <unordered_map>

#include "skiff/core/error.h"
#include "skiff/kernels/cpu/conv_geometry.h"
#include "skiff/kernels/cpu/onednn_cache.h"

namespace skiff::kernels {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using DataType = memory::data_type;

enum class ConvPass { kForward, kBackwardData, kBackwardWeights };

// Whether the activations (src, dst and their gradients) take oneDNN's blocked layouts
// (16 channels a block, reordered from / to NCHW on every call); the weights always may.
// With NCHW activations oneDNN 2.6 runs its im2col + gemm kernels whatever the weights'
// layout, so "blocked weights only" changes nothing. Measured on W3's layers (batch 64,
// 2 threads, reorders included), blocked vs NCHW in µs: 1->32 on 28x28: forward 594 vs
// 1054, backward weights 672 vs 1498, backward data 2775 vs 349 (a 1-channel gradient
// padded to 16); 32->64 on 14x14: forward 2314 vs 3438, backward data 2868 vs 16019,
// backward weights 2615 vs 16785. Few channels on both sides stay NCHW.
bool use_blocked_layouts(const ConvGeometry& g, ConvPass pass) {
  constexpr int64_t kBlock = 16;
  if (pass == ConvPass::kBackwardData) return g.c >= kBlock;
  return g.c >= kBlock || g.m >= kBlock;
}

// One primitive argument: `user` wraps skiff's plain buffer (its data handle is set per
// call); `inner` is what the primitive runs on, the same memory unless a reorder is needed.
struct OnednnArg {
  memory user, inner;
  dnnl::reorder to_inner, to_user;
  bool reordered = false;

  OnednnArg() = default;
  OnednnArg(const memory::desc& plain, const memory::desc& wanted, bool is_output) {
    dnnl::engine& eng = onednn_engine();
    user = memory(plain, eng, DNNL_MEMORY_NONE);
    reordered = wanted != plain;
    if (!reordered) {
      inner = user;
      return;
    }
    inner = memory(wanted, eng);
    if (is_output) {
      to_user = dnnl::reorder(inner, user);
    } else {
      to_inner = dnnl::reorder(user, inner);
    }
  }
  // Points at an input held at `data` (and reorders it into `inner`).
  void input(const void* data, dnnl::stream& s) {
    user.set_data_handle(const_cast<void*>(data));
    if (reordered) to_inner.execute(s, user, inner);
  }
  // Points at where an output is to land (call finish_output after the primitive).
  void output(void* data) { user.set_data_handle(data); }
  void finish_output(dnnl::stream& s) {
    if (reordered) to_user.execute(s, inner, user);
  }
};

struct ConvDescs {
  memory::desc src, weights, bias, dst;        // skiff's plain layouts
  memory::desc src_any, weights_any, dst_any;  // what the primitive may choose
  memory::dims strides, dilates, pad_l, pad_r;
};

// Every operand (bias included) of data type `f32` (float32 or bfloat16).
ConvDescs make_descs(const ConvGeometry& g, ConvPass pass, DataType type) {
  const bool blocked = use_blocked_layouts(g, pass);
  ConvDescs d;
  const bool vol = g.spatial_rank == 3;
  const memory::dims src_dims =
      vol ? memory::dims{g.n, g.c, g.d, g.h, g.w} : memory::dims{g.n, g.c, g.h, g.w};
  const memory::dims dst_dims =
      vol ? memory::dims{g.n, g.m, g.od, g.oh, g.ow} : memory::dims{g.n, g.m, g.oh, g.ow};
  memory::dims w_dims{g.m, g.c / g.groups};
  if (g.groups > 1) w_dims = {g.groups, g.m / g.groups, g.c / g.groups};
  if (vol) w_dims.push_back(g.kd);
  w_dims.push_back(g.kh);
  w_dims.push_back(g.kw);
  const Tag w_tag =
      g.groups == 1 ? (vol ? Tag::oidhw : Tag::oihw) : (vol ? Tag::goidhw : Tag::goihw);
  d.src = memory::desc(src_dims, type, vol ? Tag::ncdhw : Tag::nchw);
  d.dst = memory::desc(dst_dims, type, vol ? Tag::ncdhw : Tag::nchw);
  d.weights = memory::desc(w_dims, type, w_tag);
  d.bias = memory::desc({g.m}, type, Tag::x);
  d.src_any = blocked ? memory::desc(src_dims, type, Tag::any) : d.src;
  d.dst_any = blocked ? memory::desc(dst_dims, type, Tag::any) : d.dst;
  d.weights_any = memory::desc(w_dims, type, Tag::any);
  d.strides = {g.stride_h, g.stride_w};
  d.dilates = {g.dilation_h - 1, g.dilation_w - 1};  // oneDNN counts the holes
  d.pad_l = {g.pad_top, g.pad_left};
  d.pad_r = {g.pad_bottom, g.pad_right};
  if (vol) {
    d.strides.insert(d.strides.begin(), g.stride_d);
    d.dilates.insert(d.dilates.begin(), g.dilation_d - 1);
    d.pad_l.insert(d.pad_l.begin(), g.pad_front);
    d.pad_r.insert(d.pad_r.begin(), g.pad_back);
  }
  return d;
}

// The forward primitive_desc backward primitives take as a hint.
dnnl::convolution_forward::primitive_desc training_hint(const ConvDescs& d) {
  return dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                      dnnl::algorithm::convolution_direct, d.src_any, d.weights_any,
                                      d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r),
      onednn_engine());
}

OnednnKey geometry_key(int64_t tag, const ConvGeometry& g, DataType type) {
  OnednnKey key(tag);
  key.add(static_cast<int64_t>(type));
  key.add(g.n).add(g.c).add(g.h).add(g.w).add(g.m).add(g.oh).add(g.ow).add(g.kh).add(g.kw);
  key.add(g.groups).add(g.stride_h).add(g.stride_w).add(g.pad_top).add(g.pad_bottom);
  key.add(g.pad_left).add(g.pad_right).add(g.dilation_h).add(g.dilation_w);
  key.add(g.spatial_rank).add(g.d).add(g.od).add(g.kd).add(g.stride_d).add(g.pad_front);
  key.add(g.pad_back).add(g.dilation_d);
  return key;
}

// True when a failure to make a primitive means "not offered here" rather than a bug: a
// bfloat16 primitive oneDNN does not implement on this CPU.
bool unavailable(DataType type, const dnnl::error& e) {
  return type == DataType::bf16 && e.status == dnnl_unimplemented;
}

[[noreturn]] void onednn_failed(const char* what, const ConvGeometry& g, const dnnl::error& e) {
  fail("oneDNN could not make a ", g.spatial_rank, "-D convolution ", what, " for input [", g.n,
       ", ", g.c, ", ", g.d, ", ", g.h, ", ", g.w, "], filter [", g.m, ", ", g.c / g.groups, ", ",
       g.kd, ", ", g.kh, ", ", g.kw, "], groups ", g.groups, ", output [", g.n, ", ", g.m, ", ",
       g.od, ", ", g.oh, ", ", g.ow, "] (depth 1 in 2-D): ", e.what());
}

// ---------------------------------------------------------------- forward

// Each entry keeps its argument map: the memories in it are handles shared with the
// OnednnArgs, so a call only sets data pointers.
// `available` is false when oneDNN offers no primitive for the data type here.
struct ForwardEntry {
  dnnl::convolution_forward primitive;
  OnednnArg src, weights, dst;
  memory bias;
  std::unordered_map<int, memory> args;
  bool available = true;
};

ForwardEntry make_forward(const ConvGeometry& g, bool with_bias, bool relu, DataType type) {
  const ConvDescs d = make_descs(g, ConvPass::kForward, type);
  try {
    dnnl::primitive_attr attr;
    if (relu) {
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      attr.set_post_ops(ops);
    }
    const auto prop = dnnl::prop_kind::forward_training;
    const auto algo = dnnl::algorithm::convolution_direct;
    auto desc =
        with_bias
            ? dnnl::convolution_forward::desc(prop, algo, d.src_any, d.weights_any, d.bias,
                                              d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r)
            : dnnl::convolution_forward::desc(prop, algo, d.src_any, d.weights_any, d.dst_any,
                                              d.strides, d.dilates, d.pad_l, d.pad_r);
    dnnl::convolution_forward::primitive_desc pd(desc, attr, onednn_engine());
    ForwardEntry e;
    e.primitive = dnnl::convolution_forward(pd);
    e.src = OnednnArg(d.src, pd.src_desc(), false);
    e.weights = OnednnArg(d.weights, pd.weights_desc(), false);
    e.dst = OnednnArg(d.dst, pd.dst_desc(), true);
    e.args = {{DNNL_ARG_SRC, e.src.inner},
              {DNNL_ARG_WEIGHTS, e.weights.inner},
              {DNNL_ARG_DST, e.dst.inner}};
    if (with_bias) {
      e.bias = memory(d.bias, onednn_engine(), DNNL_MEMORY_NONE);
      e.args.emplace(DNNL_ARG_BIAS, e.bias);
    }
    return e;
  } catch (const dnnl::error& err) {
    if (!unavailable(type, err)) onednn_failed("forward", g, err);
    ForwardEntry none;
    none.available = false;
    return none;
  }
}

// ---------------------------------------------------------------- backward data

struct BackwardDataEntry {
  dnnl::convolution_backward_data primitive;
  OnednnArg weights, dst_grad, src_grad;
  std::unordered_map<int, memory> args;
  bool available = true;
};

BackwardDataEntry make_backward_data(const ConvGeometry& g, DataType type) {
  const ConvDescs d = make_descs(g, ConvPass::kBackwardData, type);
  try {
    dnnl::convolution_backward_data::primitive_desc pd(
        dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct, d.src_any,
                                              d.weights_any, d.dst_any, d.strides, d.dilates,
                                              d.pad_l, d.pad_r),
        onednn_engine(), training_hint(d));
    BackwardDataEntry e;
    e.primitive = dnnl::convolution_backward_data(pd);
    e.weights = OnednnArg(d.weights, pd.weights_desc(), false);
    e.dst_grad = OnednnArg(d.dst, pd.diff_dst_desc(), false);
    e.src_grad = OnednnArg(d.src, pd.diff_src_desc(), true);
    e.args = {{DNNL_ARG_WEIGHTS, e.weights.inner},
              {DNNL_ARG_DIFF_DST, e.dst_grad.inner},
              {DNNL_ARG_DIFF_SRC, e.src_grad.inner}};
    return e;
  } catch (const dnnl::error& err) {
    if (!unavailable(type, err)) onednn_failed("backward data", g, err);
    BackwardDataEntry none;
    none.available = false;
    return none;
  }
}

// ---------------------------------------------------------------- backward weights

struct BackwardWeightsEntry {
  dnnl::convolution_backward_weights primitive;
  OnednnArg src, dst_grad, weights_grad;
  memory bias_grad;
  std::unordered_map<int, memory> args;
  bool available = true;
};

BackwardWeightsEntry make_backward_weights(const ConvGeometry& g, bool with_bias, DataType type) {
  const ConvDescs d = make_descs(g, ConvPass::kBackwardWeights, type);
  try {
    const auto algo = dnnl::algorithm::convolution_direct;
    auto desc = with_bias ? dnnl::convolution_backward_weights::desc(algo, d.src_any, d.weights_any,
                                                                     d.bias, d.dst_any, d.strides,
                                                                     d.dilates, d.pad_l, d.pad_r)
                          : dnnl::convolution_backward_weights::desc(algo, d.src_any, d.weights_any,
                                                                     d.dst_any, d.strides,
                                                                     d.dilates, d.pad_l, d.pad_r);
    dnnl::convolution_backward_weights::primitive_desc pd(desc, onednn_engine(), training_hint(d));
    BackwardWeightsEntry e;
    e.primitive = dnnl::convolution_backward_weights(pd);
    e.src = OnednnArg(d.src, pd.src_desc(), false);
    e.dst_grad = OnednnArg(d.dst, pd.diff_dst_desc(), false);
    e.weights_grad = OnednnArg(d.weights, pd.diff_weights_desc(), true);
    e.args = {{DNNL_ARG_SRC, e.src.inner},
              {DNNL_ARG_DIFF_DST, e.dst_grad.inner},
              {DNNL_ARG_DIFF_WEIGHTS, e.weights_grad.inner}};
    if (with_bias) {
      e.bias_grad = memory(d.bias, onednn_engine(), DNNL_MEMORY_NONE);
      e.args.emplace(DNNL_ARG_DIFF_BIAS, e.bias_grad);
    }
    return e;
  } catch (const dnnl::error& err) {
    if (!unavailable(type, err)) onednn_failed("backward weights", g, err);
    BackwardWeightsEntry none;
    none.available = false;
    return none;
  }
}

// oneDNN rejects empty dims and negative padding (a transposed convolution's output padding
// beyond its stride); those take the direct loops.
bool onednn_supports(const ConvGeometry& g) {
  return !g.degenerate() && g.pad_back >= 0 && g.pad_bottom >= 0 && g.pad_right >= 0;
}

constexpr int64_t kForwardTag = 0x636f6e7666;          // "convf"
constexpr int64_t kBackwardDataTag = 0x636f6e7664;     // "convd"
constexpr int64_t kBackwardWeightsTag = 0x636f6e7677;  // "convw"

// The three passes over any data type oneDNN takes; false (nothing written) when it has no
// primitive for that type here.
bool onednn_forward(const ConvGeometry& g, DataType type, const void* src, const void* weights,
                    const void* bias, bool relu, void* dst) {
  OnednnKey key = geometry_key(kForwardTag, g, type);
  key.add(bias != nullptr).add(relu);
  ForwardEntry& e = onednn_cache<ForwardEntry>().get(
      key, [&] { return make_forward(g, bias != nullptr, relu, type); });
  if (!e.available) return false;
  dnnl::stream& s = onednn_stream();
  e.src.input(src, s);
  e.weights.input(weights, s);
  e.dst.output(dst);
  if (bias) e.bias.set_data_handle(const_cast<void*>(bias));
  e.primitive.execute(s, e.args);
  e.dst.finish_output(s);
  s.wait();
  return true;
}

bool onednn_backward_data(const ConvGeometry& g, DataType type, const void* weights,
                          const void* dst_grad, void* src_grad) {
  const OnednnKey key = geometry_key(kBackwardDataTag, g, type);
  BackwardDataEntry& e =
      onednn_cache<BackwardDataEntry>().get(key, [&] { return make_backward_data(g, type); });
  if (!e.available) return false;
  dnnl::stream& s = onednn_stream();
  e.weights.input(weights, s);
  e.dst_grad.input(dst_grad, s);
  e.src_grad.output(src_grad);
  e.primitive.execute(s, e.args);
  e.src_grad.finish_output(s);
  s.wait();
  return true;
}

bool onednn_backward_weights(const ConvGeometry& g, DataType type, const void* src,
                             const void* dst_grad, void* weights_grad, void* bias_grad) {
  OnednnKey key = geometry_key(kBackwardWeightsTag, g, type);
  key.add(bias_grad != nullptr);
  BackwardWeightsEntry& e = onednn_cache<BackwardWeightsEntry>().get(
      key, [&] { return make_backward_weights(g, bias_grad != nullptr, type); });
  if (!e.available) return false;
  dnnl::stream& s = onednn_stream();
  e.src.input(src, s);
  e.dst_grad.input(dst_grad, s);
  e.weights_grad.output(weights_grad);
  if (bias_grad) e.bias_grad.set_data_handle(bias_grad);
  e.primitive.execute(s, e.args);
  e.weights_grad.finish_output(s);
  s.wait();
  return true;
}

}  // namespace

void conv_forward(const ConvGeometry& g, const float* src, const float* weights, const float* bias,
                  bool relu, float* dst) {
  if (!onednn_supports(g)) return direct_conv_forward(g, src, weights, bias, relu, dst);
  onednn_forward(g, DataType::f32, src, weights, bias, relu, dst);
}

void conv_backward_data(const ConvGeometry& g, const float* weights, const float* dst_grad,
                        float* src_grad) {
  if (!onednn_supports(g)) return direct_conv_backward_data(g, weights, dst_grad, src_grad);
  onednn_backward_data(g, DataType::f32, weights, dst_grad, src_grad);
}

void conv_backward_weights(const ConvGeometry& g, const float* src, const float* dst_grad,
                           float* weights_grad, float* bias_grad) {
  if (!onednn_supports(g)) {
    return direct_conv_backward_weights(g, src, dst_grad, weights_grad, bias_grad);
  }
  onednn_backward_weights(g, DataType::f32, src, dst_grad, weights_grad, bias_grad);
}

bool conv_forward(const ConvGeometry& g, const bfloat16* src, const bfloat16* weights,
                  const bfloat16* bias, bool relu, bfloat16* dst) {
  return onednn_supports(g) && onednn_forward(g, DataType::bf16, src, weights, bias, relu, dst);
}

bool conv_backward_data(const ConvGeometry& g, const bfloat16* weights, const bfloat16* dst_grad,
                        bfloat16* src_grad) {
  return onednn_supports(g) && onednn_backward_data(g, DataType::bf16, weights, dst_grad, src_grad);
}

bool conv_backward_weights(const ConvGeometry& g, const bfloat16* src, const bfloat16* dst_grad,
                           bfloat16* weights_grad, bfloat16* bias_grad) {
  return onednn_supports(g) &&
         onednn_backward_weights(g, DataType::bf16, src, dst_grad, weights_grad, bias_grad);
}

}  // namespace skiff::kernels
