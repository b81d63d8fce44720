// int8_gemm_isa.h for the AVX-512 CPUs with bfloat16, all of which have AVX512_VNNI
// (compiled with -march=x86-64-v4 -mavx512bf16 -mavx512vnni; the set's CPU check asks for
// both): the loops of int8_gemm_avx512_loops.h with VNNI's fused products, vpdpwssd for
// int16 pairs and vpdpbusd for bytes (64 products an instruction).
#include "skiff/kernels/cpu/int8_gemm_avx512_loops.h"
#include "skiff/kernels/cpu/int8_gemm_isa.h"

namespace skiff::kernels {

void int8_pairs(Avx512Bf16Isa, const int16_t* a, int64_t m, int64_t groups, const int16_t* b,
                int64_t p0, int64_t p1, int64_t n, int32_t* c, int64_t ldc) {
  int8_avx512::pairs<true>(a, m, groups, b, p0, p1, n, c, ldc);
}

void int8_quads(Avx512Bf16Isa, const int8_t* a, int64_t m, int64_t groups, const int8_t* b,
                bool b_unsigned, int64_t p0, int64_t p1, int64_t n, int32_t* c, int64_t ldc) {
  int8_avx512::quads<true>(a, m, groups, b, b_unsigned, p0, p1, n, c, ldc);
}

void int8_rows(Avx512Bf16Isa, const int8_t* a, int64_t m, int64_t k, const int8_t* b, int64_t n,
               int64_t j0, int64_t j1, int32_t* c) {
  int8_avx512::rows<true>(a, m, k, b, n, j0, j1, c);
}

}  // namespace skiff::kernels
