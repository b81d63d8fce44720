#include "skiff/kernels/cpu/bf16_convert.h"

#include <cstring>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/bf16_convert_isa.h"

namespace skiff::kernels {

// The portable loop: integer rounding on the float bits, branch-free, so the compiler
// vectorises it on any target.
void float_to_bf16(GenericIsa, const float* x, bfloat16* out, int64_t n) {
  const uint32_t* in = reinterpret_cast<const uint32_t*>(x);
  uint16_t* o = reinterpret_cast<uint16_t*>(out);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = bfloat16::round_from_float_bits(in[i]);
}

namespace {

// Calls fn(begin, end) over [0, n), on threads for large arrays.
template <typename Fn>
void chunks(int64_t n, Fn&& fn) {
  parallel_for(n, kParallelGrain, fn);
}

}  // namespace

void float_to_bf16(const float* x, bfloat16* out, int64_t n) {
  dispatch_isa([&](auto isa) { float_to_bf16(isa, x, out, n); });
}

void bf16_to_float(const bfloat16* x, float* out, int64_t n) {
  const uint16_t* in = reinterpret_cast<const uint16_t*>(x);
  uint32_t* o = reinterpret_cast<uint32_t*>(out);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<uint32_t>(in[i]) << 16;
}

void double_to_bf16(const double* x, bfloat16* out, int64_t n) {
  uint16_t* o = reinterpret_cast<uint16_t*>(out);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = bf16_from_double(x[i]).bits;
}

void bf16_to_double(const bfloat16* x, double* out, int64_t n) {
  const uint16_t* in = reinterpret_cast<const uint16_t*>(x);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t u = static_cast<uint32_t>(in[i]) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    out[i] = f;
  }
}

Tensor widen_bf16(const Tensor& x) {
  SKIFF_CHECK(x.dtype() == DType::kBF16, "widen_bf16: expected a bfloat16 tensor, got ",
              x.type_str());
  Tensor out = Tensor::empty(x.shape(), DType::kF32);
  const bfloat16* in = x.data<bfloat16>();
  float* o = out.data<float>();
  chunks(x.numel(), [&](int64_t b, int64_t e) { bf16_to_float(in + b, o + b, e - b); });
  return out;
}

void round_to_bf16(const Tensor& x, Tensor* out) {
  SKIFF_CHECK(x.dtype() == DType::kF32, "round_to_bf16: expected a float32 tensor, got ",
              x.type_str());
  if (out == &x) {
    Tensor rounded;
    round_to_bf16(x, &rounded);
    *out = std::move(rounded);
    return;
  }
  out->resize(x.shape(), DType::kBF16);
  const float* in = x.data<float>();
  bfloat16* o = out->data<bfloat16>();
  chunks(x.numel(), [&](int64_t b, int64_t e) { float_to_bf16(in + b, o + b, e - b); });
}

}  // namespace skiff::kernels
