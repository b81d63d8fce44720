// int8_gemm_isa.h for AVX2 (compiled with -march=x86-64-v3). The products are vpmaddwd's:
// 16 int16 pairs multiplied and each pair's two products added into 8 int32 lanes (exact
// for int8 values: a pair sums to at most 2 * 128 * 128). A block of 4 rows x one panel of
// 16 columns keeps 8 accumulators in registers; each step broadcasts a row's pair
// (A[i, 2r], A[i, 2r + 1]) and multiplies it into the panel's 16 interleaved pairs.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "skiff/kernels/cpu/int8_gemm.h"
#include "skiff/kernels/cpu/int8_gemm_isa.h"

namespace skiff::kernels {
namespace {

constexpr int64_t kPanel = Int8PackedB::kPanel;

template <int kRows>
void block(const int16_t* a, int64_t lda, int64_t k2, const int16_t* b, int32_t* c, int64_t ldc,
           int64_t cols) {
  __m256i acc[kRows][2];
  for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (int64_t kk = 0; kk < k2; ++kk) {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + kk * 2 * kPanel));
    const __m256i hi =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + kk * 2 * kPanel + kPanel));
    for (int r = 0; r < kRows; ++r) {
      int32_t pair;
      std::memcpy(&pair, a + r * lda + 2 * kk, sizeof pair);
      const __m256i av = _mm256_set1_epi32(pair);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(av, lo));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(av, hi));
    }
  }
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

}  // namespace

void int8_panels(Avx2Isa, const int16_t* a, int64_t m, int64_t k2, const int16_t* b, int64_t p0,
                 int64_t p1, int64_t n, int32_t* c, int64_t ldc) {
  const int64_t lda = 2 * k2;
  for (int64_t p = p0; p < p1; ++p) {
    const int16_t* panel = b + p * k2 * 2 * kPanel;
    const int64_t cols = std::min(kPanel, n - p * kPanel);
    int32_t* cp = c + p * kPanel;
    int64_t i = 0;
    for (; i + 4 <= m; i += 4) block<4>(a + i * lda, lda, k2, panel, cp + i * ldc, ldc, cols);
    switch (m - i) {
      case 3:
        block<3>(a + i * lda, lda, k2, panel, cp + i * ldc, ldc, cols);
        break;
      case 2:
        block<2>(a + i * lda, lda, k2, panel, cp + i * ldc, ldc, cols);
        break;
      case 1:
        block<1>(a + i * lda, lda, k2, panel, cp + i * ldc, ldc, cols);
        break;
      default:
        break;
    }
  }
}

// Two rows of 16 int8 columns become 16 interleaved int16 pairs: sign-extended, then
// unpacked (within 128-bit lanes, hence the permutes).
void int8_pack(Avx2Isa, const int8_t* b, int64_t k, int64_t n, int64_t ldb, int16_t* out) {
  const int64_t k2 = (k + 1) / 2, panels = (n + kPanel - 1) / kPanel;
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t col = p * kPanel, cols = std::min(kPanel, n - col);
    int16_t* dst = out + p * k2 * 2 * kPanel;
    for (int64_t r = 0; r < k2; ++r, dst += 2 * kPanel) {
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

}  // namespace skiff::kernels
