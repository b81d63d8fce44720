#include "skiff/kernels/cpu/int8_gemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "skiff/core/cpu.h"
#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/int8_gemm_isa.h"
#include "skiff/kernels/cpu/quantize.h"

namespace skiff::kernels {

namespace {

constexpr int64_t kPanel = Int8PackedB::kPanel;

// The portable loops. Each pair of a panel row is read as one int32 (little-endian: the
// first value in the low half) and split by shifts: the compiler vectorises that (the
// int16 lanes read directly it leaves scalar).
void int8_pairs(GenericIsa, const int16_t* a, int64_t m, int64_t groups, const int16_t* b,
                int64_t p0, int64_t p1, int64_t n, int32_t* c, int64_t ldc) {
  const int64_t lda = 2 * groups;
  for (int64_t p = p0; p < p1; ++p) {
    const int16_t* panel = b + p * groups * 2 * kPanel;
    const int64_t cols = std::min(kPanel, n - p * kPanel);
    for (int64_t i = 0; i < m; ++i) {
      int32_t acc[kPanel] = {};
      const int16_t* row = a + i * lda;
      for (int64_t g = 0; g < groups; ++g) {
        const int32_t a0 = row[2 * g], a1 = row[2 * g + 1];
        int32_t pairs[kPanel];
        std::memcpy(pairs, panel + g * 2 * kPanel, sizeof pairs);
        for (int64_t j = 0; j < kPanel; ++j) {
          const int32_t lo = static_cast<int32_t>(static_cast<uint32_t>(pairs[j]) << 16) >> 16;
          acc[j] += a0 * lo + a1 * (pairs[j] >> 16);
        }
      }
      std::copy(acc, acc + cols, c + i * ldc + p * kPanel);
    }
  }
}

void int8_quads(GenericIsa, const int8_t* a, int64_t m, int64_t groups, const int8_t* b, bool,
                int64_t p0, int64_t p1, int64_t n, int32_t* c, int64_t ldc) {
  const int64_t lda = 4 * groups;
  for (int64_t p = p0; p < p1; ++p) {
    const int8_t* panel = b + p * groups * 4 * kPanel;
    const int64_t cols = std::min(kPanel, n - p * kPanel);
    for (int64_t i = 0; i < m; ++i) {
      int32_t acc[kPanel] = {};
      const int8_t* row = a + i * lda;
      for (int64_t g = 0; g < groups; ++g) {
        const int8_t* quad = panel + g * 4 * kPanel;
        for (int64_t j = 0; j < kPanel; ++j)
          for (int64_t t = 0; t < 4; ++t) acc[j] += row[4 * g + t] * quad[4 * j + t];
      }
      std::copy(acc, acc + cols, c + i * ldc + p * kPanel);
    }
  }
}

void int8_pack_pairs(GenericIsa, const int8_t* b, int64_t k, int64_t n, int64_t ldb, int16_t* out) {
  const int64_t groups = (k + 1) / 2, panels = (n + kPanel - 1) / kPanel;
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t col = p * kPanel, cols = std::min(kPanel, n - col);
    int16_t* dst = out + p * groups * 2 * kPanel;
    for (int64_t r = 0; r < groups; ++r, dst += 2 * kPanel)
      for (int64_t j = 0; j < kPanel; ++j)
        for (int64_t t = 0; t < 2; ++t)
          dst[2 * j + t] = j < cols && 2 * r + t < k ? b[(2 * r + t) * ldb + col + j] : 0;
  }
}

void int8_pack_quads(GenericIsa, const int8_t* b, int64_t k, int64_t n, int64_t ldb, int8_t* out) {
  const int64_t groups = (k + 3) / 4, panels = (n + kPanel - 1) / kPanel;
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t col = p * kPanel, cols = std::min(kPanel, n - col);
    int8_t* dst = out + p * groups * 4 * kPanel;
    for (int64_t r = 0; r < groups; ++r, dst += 4 * kPanel)
      for (int64_t j = 0; j < kPanel; ++j)
        for (int64_t t = 0; t < 4; ++t)
          dst[4 * j + t] = j < cols && 4 * r + t < k ? b[(4 * r + t) * ldb + col + j] : 0;
  }
}

// C[r, j0:j1) for the rows of A: int32 loops over B's rows as they lie, which the compiler
// vectorises along the columns.
void int8_rows(GenericIsa, const int8_t* a, int64_t m, int64_t k, const int8_t* b, int64_t n,
               int64_t j0, int64_t j1, int32_t* c) {
  for (int64_t r = 0; r < m; ++r) {
    int32_t* out = c + r * n;
    std::fill(out + j0, out + j1, 0);
    for (int64_t i = 0; i < k; ++i) {
      const int32_t av = a[r * k + i];
      const int8_t* row = b + i * n;
      for (int64_t j = j0; j < j1; ++j) out[j] += av * static_cast<int32_t>(row[j]);
    }
  }
}

}  // namespace

void int8_gemm_rows(const int8_t* a, int64_t m, int64_t k, const int8_t* b, int64_t n, int32_t* c) {
  const int64_t chunks = (n + kPanel - 1) / kPanel;
  // About 2^16 multiply-adds a thread at least.
  const int64_t grain =
      std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(m * k * kPanel, 1));
  parallel_for(chunks, grain, [&](int64_t c0, int64_t c1) {
    const int64_t j0 = c0 * kPanel, j1 = std::min(n, c1 * kPanel);
    dispatch_isa([&](auto isa) { int8_rows(isa, a, m, k, b, n, j0, j1, c); });
  });
}

bool non_negative(const int8_t* x, int64_t n) {
  int8_t low = 0;
  for (int64_t i = 0; i < n; ++i) low = std::min(low, x[i]);
  return low >= 0;
}

void Int8PackedB::pack(const int8_t* b, int64_t k_, int64_t n_, int64_t ldb, Int8Signs signs_,
                       bool parallel) {
  SKIFF_CHECK(k_ < (int64_t{1} << 17), "int8_gemm: k = ", k_,
              " is too long for exact int32 sums of int8 products (at most 131071)");
  signs = signs_, k = k_, n = n_;
  depth = signs == Int8Signs::kSigned ? 2 : 4;
  groups = (k + depth - 1) / depth, panels = (n + kPanel - 1) / kPanel;
  const int64_t panel_size = groups * depth * kPanel;
  if (depth == 2) {
    pairs.resize(static_cast<size_t>(panels * panel_size));
  } else {
    quads.resize(static_cast<size_t>(panels * panel_size));
  }
  if (panels * panel_size == 0) return;
  auto run = [&](int64_t p0, int64_t p1) {
    const int8_t* from = b + p0 * kPanel;
    const int64_t cols = std::min(n, p1 * kPanel) - p0 * kPanel;
    dispatch_isa([&](auto isa) {
      if (depth == 2) {
        int8_pack_pairs(isa, from, k, cols, ldb, pairs.data() + p0 * panel_size);
      } else {
        int8_pack_quads(isa, from, k, cols, ldb, quads.data() + p0 * panel_size);
      }
    });
  };
  if (!parallel) return run(0, panels);
  parallel_for(panels, std::max<int64_t>(1, kParallelGrain / panel_size), run);
}

void int8_gemm(const int8_t* a, int64_t lda, int64_t m, const Int8PackedB& b, int32_t* c,
               int64_t ldc, bool parallel) {
  if (m == 0 || b.n == 0) return;
  // A's rows as the products read them: int16 pairs, or bytes, zeros past k (bytes whose
  // rows already end at a whole group are read where they lie).
  const int64_t width = b.groups * b.depth;
  std::vector<int16_t> a16;
  std::vector<int8_t> a8;
  const int8_t* bytes = a;
  if (b.depth == 2) {
    a16.assign(static_cast<size_t>(m * width), 0);
    for (int64_t i = 0; i < m; ++i) std::copy(a + i * lda, a + i * lda + b.k, &a16[i * width]);
  } else if (lda != width) {
    a8.assign(static_cast<size_t>(m * width), 0);
    for (int64_t i = 0; i < m; ++i) std::copy(a + i * lda, a + i * lda + b.k, &a8[i * width]);
    bytes = a8.data();
  }
  auto run = [&](int64_t p0, int64_t p1) {
    dispatch_isa([&](auto isa) {
      if (b.depth == 2) {
        int8_pairs(isa, a16.data(), m, b.groups, b.pairs.data(), p0, p1, b.n, c, ldc);
      } else {
        int8_quads(isa, bytes, m, b.groups, b.quads.data(), b.signs == Int8Signs::kBNonNegative, p0,
                   p1, b.n, c, ldc);
      }
    });
  };
  if (!parallel) return run(0, b.panels);
  // About 2^17 multiply-adds a thread at least.
  const int64_t macs_per_panel = std::max<int64_t>(1, m * b.k * kPanel);
  parallel_for(b.panels, std::max<int64_t>(1, (int64_t{1} << 17) / macs_per_panel), run);
}

namespace {

// int8_finish's loop for one combination of its options, branch-free inside a row so that
// it vectorises. The bias is added in the same rounding as the product (std::fma): one
// result on every CPU and in generated code, whatever the compiler contracts.
template <bool kPerRow, bool kBias, bool kRelu, bool kInt8>
void finish_rows(const Int8Output& o, int64_t r0, int64_t r1, int64_t n, const int32_t* acc,
                 void* out) {
  for (int64_t r = r0; r < r1; ++r) {
    const int32_t* in = acc + r * n;
    const float row_scale = kPerRow ? o.scale[r] : 0.f;
    const float row_bias = kPerRow && kBias ? o.bias[r] : 0.f;
    for (int64_t j = 0; j < n; ++j) {
      const float sum = static_cast<float>(in[j]), scale = kPerRow ? row_scale : o.scale[j];
      float v = kBias ? std::fma(sum, scale, kPerRow ? row_bias : o.bias[j]) : sum * scale;
      if (kRelu) v = v < 0 ? 0.f : v;
      if (kInt8) {
        static_cast<int8_t*>(out)[r * n + j] =
            static_cast<int8_t>(round_to_grid(v / o.out_scale, 0.f, -128.f, 127.f));
      } else {
        static_cast<float*>(out)[r * n + j] = v;
      }
    }
  }
}

using FinishRows = void (*)(const Int8Output&, int64_t, int64_t, int64_t, const int32_t*, void*);

template <bool... kFlags>
FinishRows pick_finish(const Int8Output& o) {
  constexpr size_t kChosen = sizeof...(kFlags);
  if constexpr (kChosen == 4) {
    return finish_rows<kFlags...>;
  } else {
    const bool flags[] = {o.per_row, o.bias != nullptr, o.relu, o.out_scale > 0};
    return flags[kChosen] ? pick_finish<kFlags..., true>(o) : pick_finish<kFlags..., false>(o);
  }
}

// out[j, r0 + t] = tile[t, j] for t < count: a tile of finished rows put in place.
template <typename T>
void transpose_tile(const T* tile, int64_t count, int64_t n, int64_t rows, int64_t r0, T* out) {
  for (int64_t j = 0; j < n; ++j) {
    T* column = out + j * rows + r0;
    for (int64_t t = 0; t < count; ++t) column[t] = tile[t * n + j];
  }
}

void int8_finish_rows(GenericIsa, const Int8Output& o, int64_t r0, int64_t r1, int64_t n,
                      const int32_t* acc, void* out) {
  pick_finish<>(o)(o, r0, r1, n, acc, out);
}

// The portable form: 16 rows finished as int8_finish finishes them, then put in place.
void int8_finish_transposed(GenericIsa, const Int8Output& o, int64_t rows, int64_t n, int64_t r0,
                            int64_t r1, const int32_t* acc, void* out) {
  constexpr int64_t kTile = 16;
  Int8Output by_column = o;
  by_column.per_row = false;
  const FinishRows finish = pick_finish<>(by_column);
  const bool int8 = o.out_scale > 0;
  std::vector<float> tile(static_cast<size_t>(kTile * n));  // int8 results use its first bytes
  for (int64_t r = r0; r < r1; r += kTile) {
    const int64_t count = std::min(kTile, r1 - r);
    finish(by_column, 0, count, n, acc + (r - r0) * n, tile.data());
    if (int8) {
      transpose_tile(reinterpret_cast<const int8_t*>(tile.data()), count, n, rows, r,
                     static_cast<int8_t*>(out));
    } else {
      transpose_tile(tile.data(), count, n, rows, r, static_cast<float*>(out));
    }
  }
}

}  // namespace

void int8_finish(const Int8Output& o, int64_t m, int64_t n, const int32_t* acc, void* out) {
  // A few thousand elements a thread at least (a division and a conversion each).
  parallel_for(m, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)),
               [&](int64_t r0, int64_t r1) {
                 dispatch_isa([&](auto isa) { int8_finish_rows(isa, o, r0, r1, n, acc, out); });
               });
}

void int8_finish_transposed(const Int8Output& o, int64_t rows, int64_t n, int64_t r0, int64_t r1,
                            const int32_t* acc, void* out) {
  if (r0 >= r1 || n == 0) return;
  dispatch_isa([&](auto isa) { int8_finish_transposed(isa, o, rows, n, r0, r1, acc, out); });
}

}  // namespace skiff::kernels
