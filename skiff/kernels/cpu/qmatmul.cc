#include "skiff/kernels/cpu/qmatmul.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "skiff/core/cpu.h"
#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/int8_gemm.h"
#ifndef SKIFF_NO_ONEDNN
#include "skiff/kernels/cpu/onednn_cache.h"
#endif

namespace skiff::kernels {

namespace {

#ifndef SKIFF_NO_ONEDNN
struct Int8Matmul {
  dnnl::matmul primitive;
  dnnl::memory x, w, out;
  bool available = true;  // false: oneDNN has no int8 matmul here
};

Int8Matmul make_primitive(int64_t m, int64_t k, int64_t n) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  try {
    const dnnl::memory::desc x({m, k}, dt::s8, tag::ab), w({k, n}, dt::s8, tag::ab),
        out({m, n}, dt::s32, tag::ab);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(x, w, out), onednn_engine());
    dnnl::engine& eng = onednn_engine();
    return {dnnl::matmul(pd), dnnl::memory(x, eng, nullptr), dnnl::memory(w, eng, nullptr),
            dnnl::memory(out, eng, nullptr)};
  } catch (const dnnl::error& e) {
    if (e.status != dnnl_unimplemented)
      fail("oneDNN could not make an int8 matmul for m=", m, " k=", k, " n=", n, ": ", e.what());
    Int8Matmul none;
    none.available = false;
    return none;
  }
}

// oneDNN's int8 products are exact only with VNNI: without it (AVX2, AVX-512 before
// VNNI) they go through 16-bit sums of byte pairs, which saturate on full-range int8
// operands (measured: an element 0.43 where the exact product gives 0.90).
// The kernels' set caps oneDNN's too (SKIFF_MAX_CPU_ISA), so it is the set, not the CPU,
// that must have VNNI: avx512_bf16, whose CPUs all have it (core/cpu.cc checks both).
bool onednn_exact() { return kernel_isa() >= CpuIsa::kAvx512Bf16; }

// acc = x · w by oneDNN; false (nothing done) when it has no int8 matmul here.
bool onednn(const int8_t* x, const int8_t* w, int64_t m, int64_t k, int64_t n, int32_t* acc) {
  constexpr int64_t kTag = 0x716d61746d756c;  // "qmatmul"
  OnednnKey key(kTag);
  key.add(m).add(k).add(n);
  Int8Matmul& e = onednn_cache<Int8Matmul>().get(key, [&] { return make_primitive(m, k, n); });
  if (!e.available) return false;
  e.x.set_data_handle(const_cast<int8_t*>(x));
  e.w.set_data_handle(const_cast<int8_t*>(w));
  e.out.set_data_handle(acc);
  dnnl::stream& stream = onednn_stream();
  e.primitive.execute(stream,
                      {{DNNL_ARG_SRC, e.x}, {DNNL_ARG_WEIGHTS, e.w}, {DNNL_ARG_DST, e.out}});
  stream.wait();
  return true;
}
#endif

std::string type_of(const Tensor& t) {
  return t.initialized() ? t.type_str() : std::string("none");
}

float scalar_of(const char* op, const Tensor& t, const char* slot) {
  SKIFF_CHECK(t.initialized() && t.dtype() == DType::kF32 && t.numel() == 1, op, ": ", slot,
              " must be one float32, got ", type_of(t));
  return t.data<float>()[0];
}

}  // namespace

QuantizedScales quantized_scales(const char* op, const Tensor& x_scale, const char* x_slot,
                                 const Tensor& w_scale, const char* w_slot, int64_t channels,
                                 const Tensor& out_scale) {
  SKIFF_CHECK(w_scale.initialized() && w_scale.dtype() == DType::kF32 &&
                  (w_scale.numel() == 1 || w_scale.numel() == channels),
              op, ": ", w_slot, " must be float32 [1] or [", channels, "], got ", type_of(w_scale));
  QuantizedScales s;
  const float xs = scalar_of(op, x_scale, x_slot);
  const float* ws = w_scale.data<float>();
  s.channel.resize(static_cast<size_t>(channels));
  for (int64_t j = 0; j < channels; ++j) s.channel[j] = xs * ws[w_scale.numel() == 1 ? 0 : j];
  if (out_scale.initialized()) {
    s.out = scalar_of(op, out_scale, "OutScale");
    SKIFF_CHECK(s.out > 0 && s.out < std::numeric_limits<float>::infinity(), op, ": OutScale ",
                s.out, " is not a positive finite number");
  }
  return s;
}

void quantized_matmul(const Tensor& x, const Tensor& w, const Tensor& x_scale,
                      const Tensor& w_scale, const Tensor& bias, bool relu, const Tensor& out_scale,
                      Tensor* out) {
  SKIFF_CHECK(x.initialized() && x.dtype() == DType::kI8 && x.rank() >= 1,
              "quantized_matmul: X must be int8 [..., K], got ",
              x.initialized() ? x.type_str() : std::string("none"));
  SKIFF_CHECK(w.initialized() && w.dtype() == DType::kI8 && w.rank() == 2,
              "quantized_matmul: W must be int8 [K, N], got ",
              w.initialized() ? w.type_str() : std::string("none"));
  const int64_t k = w.shape()[0], n = w.shape()[1];
  SKIFF_CHECK(x.shape()[x.rank() - 1] == k, "quantized_matmul: X ", x.type_str(), " and W ",
              w.type_str(), " do not chain (", x.shape()[x.rank() - 1], " vs ", k, ")");
  const int64_t m = k ? x.numel() / k : 0;
  const QuantizedScales scales =
      quantized_scales("quantized_matmul", x_scale, "XScale", w_scale, "WScale", n, out_scale);
  const bool has_bias = bias.initialized();
  SKIFF_CHECK(!has_bias || (bias.dtype() == DType::kF32 && bias.numel() == n),
              "quantized_matmul: Bias must be float32 [", n, "], got ", bias.type_str());
  Int8Output o;
  o.out_scale = scales.out;
  Shape shape = x.shape();
  shape[shape.rank() - 1] = n;
  out->resize(shape, o.out_scale > 0 ? DType::kI8 : DType::kF32);
  if (m == 0 || n == 0) return;
  std::unique_ptr<int32_t[]> acc(new int32_t[m * n]);  // every element written below
  const int8_t* xd = x.data<int8_t>();
  const int8_t* wd = w.data<int8_t>();
  bool done = k == 0;
  if (done) std::fill(acc.get(), acc.get() + m * n, 0);
#ifndef SKIFF_NO_ONEDNN
  done = done || (onednn_exact() && onednn(xd, wd, m, k, n, acc.get()));
#endif
  if (!done && m < 4) {
    int8_gemm_rows(xd, m, k, wd, n, acc.get());
  } else if (!done) {
    // An input after relu (no negative value) takes the byte products.
    const Int8Signs signs = non_negative(xd, m * k) ? Int8Signs::kANonNegative : Int8Signs::kSigned;
    const Int8PackedB packed(wd, k, n, n, signs, /*parallel=*/true);
    int8_gemm(xd, k, m, packed, acc.get(), n, /*parallel=*/true);
  }
  o.scale = scales.channel.data();
  o.bias = has_bias ? bias.data<float>() : nullptr;
  o.relu = relu;
  int8_finish(o, m, n, acc.get(), out->raw_data());
}

}  // namespace skiff::kernels
