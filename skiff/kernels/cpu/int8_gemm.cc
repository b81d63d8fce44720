#include "skiff/kernels/cpu/int8_gemm.h"

#include <algorithm>
#include <cstring>

#include "skiff/core/cpu.h"
#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/int8_gemm_isa.h"
#include "skiff/kernels/cpu/quantize.h"

namespace skiff::kernels {

namespace {

constexpr int64_t kPanel = Int8PackedB::kPanel;

// The portable loops. Each pair of a panel row is read as one int32 (little-endian: the
// first value in the low half) and split by shifts:
// the compiler vectorises that (the int16 lanes read directly it leaves scalar).
void int8_panels(GenericIsa, const int16_t* a, int64_t m, int64_t k2, const int16_t* b, int64_t p0,
                 int64_t p1, int64_t n, int32_t* c, int64_t ldc) {
  const int64_t lda = 2 * k2;
  for (int64_t p = p0; p < p1; ++p) {
    const int16_t* panel = b + p * k2 * 2 * kPanel;
    const int64_t cols = std::min(kPanel, n - p * kPanel);
    for (int64_t i = 0; i < m; ++i) {
      int32_t acc[kPanel] = {};
      const int16_t* row = a + i * lda;
      for (int64_t kk = 0; kk < k2; ++kk) {
        const int32_t a0 = row[2 * kk], a1 = row[2 * kk + 1];
        int32_t pairs[kPanel];
        std::memcpy(pairs, panel + kk * 2 * kPanel, sizeof pairs);
        for (int64_t j = 0; j < kPanel; ++j) {
          const int32_t lo = static_cast<int32_t>(static_cast<uint32_t>(pairs[j]) << 16) >> 16;
          acc[j] += a0 * lo + a1 * (pairs[j] >> 16);
        }
      }
      std::copy(acc, acc + cols, c + i * ldc + p * kPanel);
    }
  }
}

void int8_pack(GenericIsa, const int8_t* b, int64_t k, int64_t n, int64_t ldb, int16_t* out) {
  const int64_t k2 = (k + 1) / 2, panels = (n + kPanel - 1) / kPanel;
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t col = p * kPanel, cols = std::min(kPanel, n - col);
    int16_t* dst = out + p * k2 * 2 * kPanel;
    for (int64_t r = 0; r < k2; ++r, dst += 2 * kPanel) {
      const int8_t* r0 = b + 2 * r * ldb + col;
      const int8_t* r1 = 2 * r + 1 < k ? r0 + ldb : nullptr;
      for (int64_t j = 0; j < kPanel; ++j) {
        dst[2 * j] = j < cols ? r0[j] : 0;
        dst[2 * j + 1] = j < cols && r1 ? r1[j] : 0;
      }
    }
  }
}

}  // namespace

void Int8PackedB::pack(const int8_t* b, int64_t k_, int64_t n_, int64_t ldb) {
  SKIFF_CHECK(k_ < (int64_t{1} << 17), "int8_gemm: k = ", k_,
              " is too long for exact int32 sums of int8 products (at most 131071)");
  k = k_, n = n_, k2 = (k + 1) / 2, panels = (n + kPanel - 1) / kPanel;
  data.resize(static_cast<size_t>(panels * k2 * 2 * kPanel));
  if (!data.empty()) dispatch_isa([&](auto isa) { int8_pack(isa, b, k, n, ldb, data.data()); });
}

void int8_gemm(const int8_t* a, int64_t lda, int64_t m, const Int8PackedB& b, int32_t* c,
               int64_t ldc, bool parallel) {
  if (m == 0 || b.n == 0) return;
  // A's rows as int16 pairs (a zero after an odd k).
  const int64_t width = 2 * b.k2;
  std::vector<int16_t> a16(static_cast<size_t>(m * width));
  for (int64_t i = 0; i < m; ++i) {
    int16_t* row = a16.data() + i * width;
    std::copy(a + i * lda, a + i * lda + b.k, row);
    if (b.k < width) row[b.k] = 0;
  }
  auto run = [&](int64_t p0, int64_t p1) {
    dispatch_isa([&](auto isa) {
      int8_panels(isa, a16.data(), m, b.k2, b.data.data(), p0, p1, b.n, c, ldc);
    });
  };
  if (!parallel) return run(0, b.panels);
  // About 2^17 multiply-adds a thread at least.
  const int64_t macs_per_panel = std::max<int64_t>(1, m * b.k * kPanel);
  parallel_for(b.panels, std::max<int64_t>(1, (int64_t{1} << 17) / macs_per_panel), run);
}

void int8_finish(const Int8Output& o, int64_t m, int64_t n, const int32_t* acc, void* out) {
  const bool to_int8 = o.out_scale > 0;
  parallel_for(m, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t r = lo; r < hi; ++r) {
                   const int32_t* in = acc + r * n;
                   // Per row: one scale and bias for the whole row; per column: the vectors.
                   const float* scale = o.per_row ? nullptr : o.scale;
                   const float* bias = o.per_row ? nullptr : o.bias;
                   const float row_scale = o.per_row ? o.scale[r] : 0.f;
                   const float row_bias = o.per_row && o.bias ? o.bias[r] : 0.f;
                   for (int64_t j = 0; j < n; ++j) {
                     float v = static_cast<float>(in[j]) * (scale ? scale[j] : row_scale);
                     if (o.bias) v += bias ? bias[j] : row_bias;
                     if (o.relu) v = v < 0 ? 0.f : v;
                     if (to_int8) {
                       static_cast<int8_t*>(out)[r * n + j] =
                           static_cast<int8_t>(round_to_grid(v / o.out_scale, 0.f, -128.f, 127.f));
                     } else {
                       static_cast<float*>(out)[r * n + j] = v;
                     }
                   }
                 }
               });
}

}  // namespace skiff::kernels
