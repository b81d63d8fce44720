// The loops of int8_gemm_isa.h on 512-bit vectors, for int8_gemm_avx512.cc (AVX-512:
// multiply-adds then adds) and int8_gemm_avx512bf16.cc (with AVX512_VNNI, which every CPU
// of that set has: one fused instruction). Included by those two files only: each compiles
// it for its own instruction set.
//
// A panel of 16 int32 columns is one vector, so a block of up to 8 rows keeps one
// accumulator a row; each step broadcasts a row's group of A values and multiplies it into
// the panel's group of B rows:
//   pairs  int16 pairs (vpmaddwd + vpaddd, or VNNI's vpdpwssd): 32 products;
//   quads  unsigned bytes x signed bytes, four into each int32 lane (vpmaddubsw + vpmaddwd
//          by ones + vpaddd, or VNNI's vpdpbusd): 64 products. Exact: the unsigned operand
//          is at most 127, so no 16-bit sum saturates.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "skiff/kernels/cpu/int8_gemm.h"

namespace skiff::kernels::int8_avx512 {
// Internal linkage: each including file keeps its own copies, compiled for its own set
// (one copy shared by the linker could run VNNI on a CPU without it).
namespace {

constexpr int64_t kPanel = Int8PackedB::kPanel;
constexpr int kMaxRows = 8;

// acc + the products of int16 pairs of x and y, summed in int32 lanes.
template <bool kVnni>
__m512i add_pairs(__m512i acc, __m512i x, __m512i y) {
  if constexpr (kVnni) {
    return _mm512_dpwssd_epi32(acc, x, y);
  } else {
    return _mm512_add_epi32(acc, _mm512_madd_epi16(x, y));
  }
}

// acc + the products of unsigned bytes u and signed bytes s, four summed in each lane.
template <bool kVnni>
__m512i add_quads(__m512i acc, __m512i u, __m512i s) {
  if constexpr (kVnni) {
    return _mm512_dpbusd_epi32(acc, u, s);
  } else {
    return _mm512_add_epi32(acc,
                            _mm512_madd_epi16(_mm512_maddubs_epi16(u, s), _mm512_set1_epi16(1)));
  }
}

template <int kRows>
void store(const __m512i (&acc)[kRows], int32_t* c, int64_t ldc, int64_t cols) {
  const __mmask16 mask = static_cast<__mmask16>((1u << cols) - 1);
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    if (cols == kPanel) {
      _mm512_storeu_si512(c + r * ldc, acc[r]);
    } else {
      _mm512_mask_storeu_epi32(c + r * ldc, mask, acc[r]);
    }
  }
}

// A's group `g` of a row (2 int16 or 4 bytes) in every lane.
__m512i broadcast_group(const void* at) {
  int32_t v;
  std::memcpy(&v, at, sizeof v);
  return _mm512_set1_epi32(v);
}

template <bool kVnni, int kRows>
void pair_block(const int16_t* a, int64_t lda, int64_t groups, const int16_t* b, int32_t* c,
                int64_t ldc, int64_t cols) {
  __m512i acc[kRows];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) acc[r] = _mm512_setzero_si512();
  for (int64_t g = 0; g < groups; ++g) {
    const __m512i bv = _mm512_loadu_si512(b + g * 2 * kPanel);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r)
      acc[r] = add_pairs<kVnni>(acc[r], broadcast_group(a + r * lda + 2 * g), bv);
  }
  store<kRows>(acc, c, ldc, cols);
}

template <bool kVnni, int kRows, bool kBUnsigned>
void quad_block(const int8_t* a, int64_t lda, int64_t groups, const int8_t* b, int32_t* c,
                int64_t ldc, int64_t cols) {
  __m512i acc[kRows];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) acc[r] = _mm512_setzero_si512();
  for (int64_t g = 0; g < groups; ++g) {
    const __m512i bv = _mm512_loadu_si512(b + g * 4 * kPanel);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const __m512i av = broadcast_group(a + r * lda + 4 * g);
      acc[r] = kBUnsigned ? add_quads<kVnni>(acc[r], bv, av) : add_quads<kVnni>(acc[r], av, bv);
    }
  }
  store<kRows>(acc, c, ldc, cols);
}

template <int kRows>
using Rows = std::integral_constant<int, kRows>;

// Calls block(Rows<rows>(), i) for the row blocks of [0, m): 8 rows, then the rest.
template <typename Block>
void row_blocks(int64_t m, Block&& block) {
  int64_t i = 0;
  for (; i + kMaxRows <= m; i += kMaxRows) block(Rows<kMaxRows>(), i);
  switch (m - i) {
    case 7:
      return block(Rows<7>(), i);
    case 6:
      return block(Rows<6>(), i);
    case 5:
      return block(Rows<5>(), i);
    case 4:
      return block(Rows<4>(), i);
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

template <bool kVnni>
void pairs(const int16_t* a, int64_t m, int64_t groups, const int16_t* b, int64_t p0, int64_t p1,
           int64_t n, int32_t* c, int64_t ldc) {
  const int64_t lda = 2 * groups;
  for (int64_t p = p0; p < p1; ++p) {
    const int16_t* panel = b + p * groups * 2 * kPanel;
    const int64_t cols = std::min(kPanel, n - p * kPanel);
    int32_t* cp = c + p * kPanel;
    row_blocks(m, [&](auto rows, int64_t i) {
      pair_block<kVnni, decltype(rows)::value>(a + i * lda, lda, groups, panel, cp + i * ldc, ldc,
                                               cols);
    });
  }
}

template <bool kVnni>
void quads(const int8_t* a, int64_t m, int64_t groups, const int8_t* b, bool b_unsigned, int64_t p0,
           int64_t p1, int64_t n, int32_t* c, int64_t ldc) {
  const int64_t lda = 4 * groups;
  for (int64_t p = p0; p < p1; ++p) {
    const int8_t* panel = b + p * groups * 4 * kPanel;
    const int64_t cols = std::min(kPanel, n - p * kPanel);
    int32_t* cp = c + p * kPanel;
    row_blocks(m, [&](auto rows, int64_t i) {
      constexpr int kRows = decltype(rows)::value;
      if (b_unsigned) {
        quad_block<kVnni, kRows, true>(a + i * lda, lda, groups, panel, cp + i * ldc, ldc, cols);
      } else {
        quad_block<kVnni, kRows, false>(a + i * lda, lda, groups, panel, cp + i * ldc, ldc, cols);
      }
    });
  }
}

// C[r, j:j+32) for a few rows, B's rows read two at a time as they lie: widened to int16
// and interleaved into pairs within 128-bit lanes (the sums come out as columns 0-3,
// 8-11, 16-19, 24-27 and 4-7, 12-15, 20-23, 28-31, put back in order when stored).
template <bool kVnni, int kRows>
void rows_32(const int8_t* a, int64_t k, const int8_t* b, int64_t n, int32_t* c) {
  __m512i lo[kRows], hi[kRows];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) lo[r] = hi[r] = _mm512_setzero_si512();
  for (int64_t i = 0; i < k; i += 2) {
    const __m512i b0 =
        _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i * n)));
    const __m512i b1 = i + 1 < k ? _mm512_cvtepi8_epi16(_mm256_loadu_si256(
                                       reinterpret_cast<const __m256i*>(b + (i + 1) * n)))
                                 : _mm512_setzero_si512();
    const __m512i pairs_lo = _mm512_unpacklo_epi16(b0, b1),
                  pairs_hi = _mm512_unpackhi_epi16(b0, b1);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const int16_t a0 = a[r * k + i], a1 = i + 1 < k ? a[r * k + i + 1] : 0;
      const __m512i av = _mm512_set1_epi32(static_cast<int32_t>(static_cast<uint16_t>(a0)) |
                                           (static_cast<int32_t>(a1) << 16));
      lo[r] = add_pairs<kVnni>(lo[r], av, pairs_lo);
      hi[r] = add_pairs<kVnni>(hi[r], av, pairs_hi);
    }
  }
  // 128-bit lanes [lo0 hi0 lo1 hi1] are columns 0-15, [lo2 hi2 lo3 hi3] 16-31 (as 64-bit
  // elements: 8-15 pick from hi).
  const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
  const __m512i second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    _mm512_storeu_si512(c + r * n, _mm512_permutex2var_epi64(lo[r], first, hi[r]));
    _mm512_storeu_si512(c + r * n + 16, _mm512_permutex2var_epi64(lo[r], second, hi[r]));
  }
}

template <bool kVnni>
void rows(const int8_t* a, int64_t m, int64_t k, const int8_t* b, int64_t n, int64_t j0, int64_t j1,
          int32_t* c) {
  int64_t j = j0;
  for (; j + 2 * kPanel <= j1; j += 2 * kPanel) {
    row_blocks(m, [&](auto rows, int64_t i) {
      rows_32<kVnni, decltype(rows)::value>(a + i * k, k, b + j, n, c + i * n + j);
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

}  // namespace
}  // namespace skiff::kernels::int8_avx512
