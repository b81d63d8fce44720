#include "skiff/kernels/cpu/qmatmul.h"

#include <algorithm>
#include <vector>

#include "skiff/core/cpu.h"
#include "skiff/core/parallel.h"
#ifndef SKIFF_NO_ONEDNN
#include "skiff/kernels/cpu/onednn_cache.h"
#endif

namespace skiff::kernels {

namespace {

// out[m, n] = acc[m, n] * scale[n] by int32 loops (rows in parallel).
void loops(const int8_t* x, const int8_t* w, const float* scale, int64_t m, int64_t k, int64_t n,
           float* out) {
  parallel_for(m, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(k * n, 1)),
               [&](int64_t b, int64_t e) {
                 std::vector<int32_t> acc(n);
                 for (int64_t r = b; r < e; ++r) {
                   std::fill(acc.begin(), acc.end(), 0);
                   const int8_t* xr = x + r * k;
                   for (int64_t i = 0; i < k; ++i) {
                     const int32_t xv = xr[i];
                     const int8_t* wr = w + i * n;
                     for (int64_t j = 0; j < n; ++j) acc[j] += xv * static_cast<int32_t>(wr[j]);
                   }
                   for (int64_t j = 0; j < n; ++j)
                     out[r * n + j] = static_cast<float>(acc[j]) * scale[j];
                 }
               });
}

#ifndef SKIFF_NO_ONEDNN
struct QuantizedMatmul {
  dnnl::matmul primitive;
  dnnl::memory x, w, out, scales;
  bool available = true;  // false: oneDNN has no int8 matmul here
};

QuantizedMatmul make_primitive(int64_t m, int64_t k, int64_t n) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  try {
    const dnnl::memory::desc x({m, k}, dt::s8, tag::ab), w({k, n}, dt::s8, tag::ab),
        out({m, n}, dt::f32, tag::ab), scales({n}, dt::f32, tag::a);
    dnnl::primitive_attr attr;
    attr.set_output_scales(1 << 1, {DNNL_RUNTIME_F32_VAL});  // one per column of out
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(x, w, out), attr, onednn_engine());
    dnnl::engine& eng = onednn_engine();
    return {dnnl::matmul(pd), dnnl::memory(x, eng, nullptr), dnnl::memory(w, eng, nullptr),
            dnnl::memory(out, eng, nullptr), dnnl::memory(scales, eng, nullptr)};
  } catch (const dnnl::error& e) {
    if (e.status != dnnl_unimplemented)
      fail("oneDNN could not make an int8 matmul for m=", m, " k=", k, " n=", n, ": ", e.what());
    QuantizedMatmul none;
    none.available = false;
    return none;
  }
}

// oneDNN's int8 products are exact only with VNNI: without it (AVX2, AVX-512 before
// VNNI) they go through 16-bit sums of byte pairs, which saturate on full-range int8
// operands (measured: an element 0.43 where the exact product gives 0.90).
bool onednn_exact() {
  static const bool vnni = cpu_has("avx512_vnni");
  return vnni && kernel_isa() >= CpuIsa::kAvx512;
}

// out = acc * scale by oneDNN; false (nothing done) when it has no exact int8 matmul here.
bool onednn(const int8_t* x, const int8_t* w, const float* scale, int64_t m, int64_t k, int64_t n,
            float* out) {
  constexpr int64_t kTag = 0x716d61746d756c;  // "qmatmul"
  OnednnKey key(kTag);
  key.add(m).add(k).add(n);
  QuantizedMatmul& e =
      onednn_cache<QuantizedMatmul>().get(key, [&] { return make_primitive(m, k, n); });
  if (!e.available) return false;
  e.x.set_data_handle(const_cast<int8_t*>(x));
  e.w.set_data_handle(const_cast<int8_t*>(w));
  e.out.set_data_handle(out);
  e.scales.set_data_handle(const_cast<float*>(scale));
  dnnl::stream& stream = onednn_stream();
  e.primitive.execute(stream, {{DNNL_ARG_SRC, e.x},
                               {DNNL_ARG_WEIGHTS, e.w},
                               {DNNL_ARG_DST, e.out},
                               {DNNL_ARG_ATTR_OUTPUT_SCALES, e.scales}});
  stream.wait();
  return true;
}
#endif

float scalar_of(const Tensor& t, const char* what) {
  SKIFF_CHECK(t.initialized() && t.dtype() == DType::kF32 && t.numel() == 1,
              "quantized_matmul: ", what, " must be one float32, got ",
              t.initialized() ? t.type_str() : std::string("none"));
  return t.data<float>()[0];
}

}  // namespace

void quantized_matmul(const Tensor& x, const Tensor& w, const Tensor& x_scale,
                      const Tensor& w_scale, const Tensor& bias, bool relu, Tensor* out) {
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
  SKIFF_CHECK(w_scale.initialized() && w_scale.dtype() == DType::kF32 &&
                  (w_scale.numel() == 1 || w_scale.numel() == n),
              "quantized_matmul: WScale must be float32 [1] or [", n, "], got ",
              w_scale.initialized() ? w_scale.type_str() : std::string("none"));
  const bool has_bias = bias.initialized();
  SKIFF_CHECK(!has_bias || (bias.dtype() == DType::kF32 && bias.numel() == n),
              "quantized_matmul: Bias must be float32 [", n, "], got ", bias.type_str());
  const float xs = scalar_of(x_scale, "XScale");
  std::vector<float> scale(n);
  const float* ws = w_scale.data<float>();
  for (int64_t j = 0; j < n; ++j) scale[j] = xs * ws[w_scale.numel() == 1 ? 0 : j];
  Shape shape = x.shape();
  shape[shape.rank() - 1] = n;
  out->resize(shape, DType::kF32);
  float* o = out->data<float>();
  if (m == 0 || n == 0) return;
  bool done = false;
#ifndef SKIFF_NO_ONEDNN
  done = k > 0 && onednn_exact() &&
         onednn(x.data<int8_t>(), w.data<int8_t>(), scale.data(), m, k, n, o);
#endif
  if (!done) loops(x.data<int8_t>(), w.data<int8_t>(), scale.data(), m, k, n, o);
  if (has_bias || relu) {
    const float* b = has_bias ? bias.data<float>() : nullptr;
    parallel_for(m, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        float* row = o + r * n;
        for (int64_t j = 0; j < n; ++j) {
          const float v = b ? row[j] + b[j] : row[j];
          row[j] = relu && v < 0 ? 0.f : v;
        }
      }
    });
  }
}

}  // namespace skiff::kernels
