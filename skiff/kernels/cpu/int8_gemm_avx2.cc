// int8_gemm_isa.h for AVX2 (compiled with -march=x86-64-v3). A block of 4 rows x one panel
// of 16 columns keeps 8 accumulators (8 int32 columns each) in registers; each step
// broadcasts a row's group of A values and multiplies it into the panel's group of rows:
//   pairs  vpmaddwd: 16 int16 products, each pair summed into an int32 lane (exact for
//          int8 values: a pair sums to at most 2 x 128 x 128);
//   quads  vpmaddubsw (unsigned bytes x signed bytes, pairs summed in int16: exact, as the
//          unsigned operand is at most 127) then vpmaddwd by ones: 32 products into 8 lanes.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "skiff/kernels/cpu/int8_gemm.h"
#include "skiff/kernels/cpu/int8_gemm_isa.h"

namespace skiff::kernels {
namespace {

constexpr int64_t kPanel = Int8PackedB::kPanel;

template <int kRows>
void store(const __m256i (&acc)[kRows][2], int32_t* c, int64_t ldc, int64_t cols) {
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
    int32_t* row = c + r * ldc;
    if (cols == kPanel) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(row), acc[r][0]);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + 8), acc[r][1]);
    } else {
      alignas(32) int32_t tmp[kPanel];
      _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), acc[r][0]);
      _mm256_store_si256(reinterpret_cast<__m256i*>(tmp + 8), acc[r][1]);
      std::copy(tmp, tmp + cols, row);
    }
  }
}

// The row loops are unrolled so that the accumulators live in registers.
template <int kRows>
void pair_block(const int16_t* a, int64_t lda, int64_t groups, const int16_t* b, int32_t* c,
                int64_t ldc, int64_t cols) {
  __m256i acc[kRows][2];
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (int64_t g = 0; g < groups; ++g) {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + g * 2 * kPanel));
    const __m256i hi =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + g * 2 * kPanel + kPanel));
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      int32_t pair;
      std::memcpy(&pair, a + r * lda + 2 * g, sizeof pair);
      const __m256i av = _mm256_set1_epi32(pair);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(av, lo));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(av, hi));
    }
  }
  store<kRows>(acc, c, ldc, cols);
}

template <int kRows, bool kBUnsigned>
void quad_block(const int8_t* a, int64_t lda, int64_t groups, const int8_t* b, int32_t* c,
                int64_t ldc, int64_t cols) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i acc[kRows][2];
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (int64_t g = 0; g < groups; ++g) {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + g * 4 * kPanel));
    const __m256i hi =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + g * 4 * kPanel + 2 * kPanel));
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      int32_t quad;
      std::memcpy(&quad, a + r * lda + 4 * g, sizeof quad);
      const __m256i av = _mm256_set1_epi32(quad);
      const __m256i p0 = kBUnsigned ? _mm256_maddubs_epi16(lo, av) : _mm256_maddubs_epi16(av, lo);
      const __m256i p1 = kBUnsigned ? _mm256_maddubs_epi16(hi, av) : _mm256_maddubs_epi16(av, hi);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(p0, ones));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(p1, ones));
    }
  }
  store<kRows>(acc, c, ldc, cols);
}

template <int kRows>
using Rows = std::integral_constant<int, kRows>;

// Calls block(Rows<rows>(), i) for the row blocks of [0, m): 4 rows, then 3, 2 or 1 for
// the rest.
template <typename Block>
void row_blocks(int64_t m, Block&& block) {
  int64_t i = 0;
  for (; i + 4 <= m; i += 4) block(Rows<4>(), i);
  switch (m - i) {
    case 3:
      return block(Rows<3>(), i);
    case 2:
      return block(Rows<2>(), i);
    case 1:
      return block(Rows<1>(), i);
    default:
      return;
  }
}

}  // namespace

void int8_pairs(Avx2Isa, const int16_t* a, int64_t m, int64_t groups, const int16_t* b, int64_t p0,
                int64_t p1, int64_t n, int32_t* c, int64_t ldc) {
  const int64_t lda = 2 * groups;
  for (int64_t p = p0; p < p1; ++p) {
    const int16_t* panel = b + p * groups * 2 * kPanel;
    const int64_t cols = std::min(kPanel, n - p * kPanel);
    int32_t* cp = c + p * kPanel;
    row_blocks(m, [&](auto rows, int64_t i) {
      pair_block<decltype(rows)::value>(a + i * lda, lda, groups, panel, cp + i * ldc, ldc, cols);
    });
  }
}

void int8_quads(Avx2Isa, const int8_t* a, int64_t m, int64_t groups, const int8_t* b,
                bool b_unsigned, int64_t p0, int64_t p1, int64_t n, int32_t* c, int64_t ldc) {
  const int64_t lda = 4 * groups;
  for (int64_t p = p0; p < p1; ++p) {
    const int8_t* panel = b + p * groups * 4 * kPanel;
    const int64_t cols = std::min(kPanel, n - p * kPanel);
    int32_t* cp = c + p * kPanel;
    row_blocks(m, [&](auto rows, int64_t i) {
      constexpr int kRows = decltype(rows)::value;
      if (b_unsigned) {
        quad_block<kRows, true>(a + i * lda, lda, groups, panel, cp + i * ldc, ldc, cols);
      } else {
        quad_block<kRows, false>(a + i * lda, lda, groups, panel, cp + i * ldc, ldc, cols);
      }
    });
  }
}

// Two rows of 16 int8 columns become 16 interleaved int16 pairs: sign-extended, then
// unpacked (within 128-bit lanes, hence the permutes).
void int8_pack_pairs(Avx2Isa, const int8_t* b, int64_t k, int64_t n, int64_t ldb, int16_t* out) {
  const int64_t groups = (k + 1) / 2, panels = (n + kPanel - 1) / kPanel;
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t col = p * kPanel, cols = std::min(kPanel, n - col);
    int16_t* dst = out + p * groups * 2 * kPanel;
    for (int64_t r = 0; r < groups; ++r, dst += 2 * kPanel) {
      const int8_t* r0 = b + 2 * r * ldb + col;
      const int8_t* r1 = 2 * r + 1 < k ? r0 + ldb : nullptr;
      if (cols == kPanel && r1) {
        const __m256i x0 =
            _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r0)));
        const __m256i x1 =
            _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r1)));
        const __m256i lo = _mm256_unpacklo_epi16(x0, x1);  // columns 0-3 | 8-11
        const __m256i hi = _mm256_unpackhi_epi16(x0, x1);  // columns 4-7 | 12-15
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst),
                            _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + kPanel),
                            _mm256_permute2x128_si256(lo, hi, 0x31));
        continue;
      }
      for (int64_t j = 0; j < kPanel; ++j) {
        dst[2 * j] = j < cols ? r0[j] : 0;
        dst[2 * j + 1] = j < cols && r1 ? r1[j] : 0;
      }
    }
  }
}

// Four rows of 16 int8 columns become 16 quads: bytes interleaved, then byte pairs.
void int8_pack_quads(Avx2Isa, const int8_t* b, int64_t k, int64_t n, int64_t ldb, int8_t* out) {
  const int64_t groups = (k + 3) / 4, panels = (n + kPanel - 1) / kPanel;
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t col = p * kPanel, cols = std::min(kPanel, n - col);
    int8_t* dst = out + p * groups * 4 * kPanel;
    for (int64_t r = 0; r < groups; ++r, dst += 4 * kPanel) {
      if (cols == kPanel && 4 * r + 3 < k) {
        __m128i x[4];
        for (int t = 0; t < 4; ++t)
          x[t] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + (4 * r + t) * ldb + col));
        const __m128i lo01 = _mm_unpacklo_epi8(x[0], x[1]), lo23 = _mm_unpacklo_epi8(x[2], x[3]);
        const __m128i hi01 = _mm_unpackhi_epi8(x[0], x[1]), hi23 = _mm_unpackhi_epi8(x[2], x[3]);
        __m128i* d = reinterpret_cast<__m128i*>(dst);
        _mm_storeu_si128(d, _mm_unpacklo_epi16(lo01, lo23));      // columns 0-3
        _mm_storeu_si128(d + 1, _mm_unpackhi_epi16(lo01, lo23));  // 4-7
        _mm_storeu_si128(d + 2, _mm_unpacklo_epi16(hi01, hi23));  // 8-11
        _mm_storeu_si128(d + 3, _mm_unpackhi_epi16(hi01, hi23));  // 12-15
        continue;
      }
      for (int64_t j = 0; j < kPanel; ++j)
        for (int64_t t = 0; t < 4; ++t)
          dst[4 * j + t] = j < cols && 4 * r + t < k ? b[(4 * r + t) * ldb + col + j] : 0;
    }
  }
}

namespace {

// Rows of B are read two at a time, 16 columns each: widened to int16 and interleaved into
// pairs (within 128-bit lanes: the sums come out as columns 0-3, 8-11 and 4-7, 12-15 and
// are put back in order at the end), multiplied by each row's pair of A values.
template <int kRows>
void rows_16(const int8_t* a, int64_t k, const int8_t* b, int64_t n, int32_t* c) {
  __m256i lo[kRows], hi[kRows];
#pragma GCC unroll 3
  for (int r = 0; r < kRows; ++r) lo[r] = hi[r] = _mm256_setzero_si256();
  for (int64_t i = 0; i < k; i += 2) {
    const __m256i b0 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i * n)));
    const __m256i b1 = i + 1 < k ? _mm256_cvtepi8_epi16(_mm_loadu_si128(
                                       reinterpret_cast<const __m128i*>(b + (i + 1) * n)))
                                 : _mm256_setzero_si256();
    const __m256i pairs_lo = _mm256_unpacklo_epi16(b0, b1),
                  pairs_hi = _mm256_unpackhi_epi16(b0, b1);
#pragma GCC unroll 3
    for (int r = 0; r < kRows; ++r) {
      const int16_t a0 = a[r * k + i], a1 = i + 1 < k ? a[r * k + i + 1] : 0;
      const __m256i av = _mm256_set1_epi32(static_cast<int32_t>(static_cast<uint16_t>(a0)) |
                                           (static_cast<int32_t>(a1) << 16));
      lo[r] = _mm256_add_epi32(lo[r], _mm256_madd_epi16(av, pairs_lo));
      hi[r] = _mm256_add_epi32(hi[r], _mm256_madd_epi16(av, pairs_hi));
    }
  }
#pragma GCC unroll 3
  for (int r = 0; r < kRows; ++r) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * n),
                        _mm256_permute2x128_si256(lo[r], hi[r], 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * n + 8),
                        _mm256_permute2x128_si256(lo[r], hi[r], 0x31));
  }
}

}  // namespace

void int8_rows(Avx2Isa, const int8_t* a, int64_t m, int64_t k, const int8_t* b, int64_t n,
               int64_t j0, int64_t j1, int32_t* c) {
  int64_t j = j0;
  for (; j + kPanel <= j1; j += kPanel) {
    row_blocks(m, [&](auto rows, int64_t i) {
      rows_16<decltype(rows)::value>(a + i * k, k, b + j, n, c + i * n + j);
    });
  }
  for (int64_t r = 0; r < m; ++r) {  // the last columns
    for (int64_t jj = j; jj < j1; ++jj) {
      int32_t sum = 0;
      for (int64_t i = 0; i < k; ++i) sum += a[r * k + i] * b[i * n + jj];
      c[r * n + jj] = sum;
    }
  }
}

}  // namespace skiff::kernels
