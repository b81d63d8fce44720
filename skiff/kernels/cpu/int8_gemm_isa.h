// The loops of int8_gemm.h for the instruction sets that have their own file
// (int8_gemm_avx2.cc, int8_gemm_avx512.cc, int8_gemm_avx512bf16.cc); int8_gemm.cc holds the
// portable ones (the GenericIsa overloads) and calls the best through dispatch_isa
// (skiff/core/cpu.h). Plain types only cross this line.
//
//   int8_pairs      C rows [0, m) x panels [p0, p1) from A as int16 rows of 2 * groups
//                   values (zeros past k) and Int8PackedB::pairs;
//   int8_quads      the same from A as byte rows of 4 * groups values and
//                   Int8PackedB::quads; b_unsigned: B's bytes are the unsigned operand
//                   (else A's are);
//   int8_pack_*     Int8PackedB's pairs / quads of B int8 [k, n] (row stride ldb);
//   int8_rows       C[r, j0:j1) = A[r, :] · B[:, j0:j1) for a few rows (r < m), B as it
//                   lies (int8 [k, n]): no packing, for products too small to repay it;
//   int8_finish_rows        int8_finish's rows [r0, r1) (AVX-512);
//   int8_finish_transposed  int8_gemm.h's, 16 x 16 tiles transposed in registers (AVX-512).
#pragma once

#include <cstdint>

#include "skiff/core/cpu.h"
#include "skiff/kernels/cpu/int8_gemm.h"

namespace skiff::kernels {

void int8_pairs(Avx2Isa, const int16_t* a, int64_t m, int64_t groups, const int16_t* b, int64_t p0,
                int64_t p1, int64_t n, int32_t* c, int64_t ldc);
void int8_quads(Avx2Isa, const int8_t* a, int64_t m, int64_t groups, const int8_t* b,
                bool b_unsigned, int64_t p0, int64_t p1, int64_t n, int32_t* c, int64_t ldc);
void int8_pack_pairs(Avx2Isa, const int8_t* b, int64_t k, int64_t n, int64_t ldb, int16_t* out);
void int8_pack_quads(Avx2Isa, const int8_t* b, int64_t k, int64_t n, int64_t ldb, int8_t* out);
void int8_rows(Avx2Isa, const int8_t* a, int64_t m, int64_t k, const int8_t* b, int64_t n,
               int64_t j0, int64_t j1, int32_t* c);

// AVX-512 (int8_gemm_avx512.cc) and AVX-512 with VNNI (int8_gemm_avx512bf16.cc); both
// multiply B as AVX2 packs it.
void int8_pairs(Avx512Isa, const int16_t* a, int64_t m, int64_t groups, const int16_t* b,
                int64_t p0, int64_t p1, int64_t n, int32_t* c, int64_t ldc);
void int8_quads(Avx512Isa, const int8_t* a, int64_t m, int64_t groups, const int8_t* b,
                bool b_unsigned, int64_t p0, int64_t p1, int64_t n, int32_t* c, int64_t ldc);
void int8_rows(Avx512Isa, const int8_t* a, int64_t m, int64_t k, const int8_t* b, int64_t n,
               int64_t j0, int64_t j1, int32_t* c);
void int8_finish_rows(Avx512Isa, const Int8Output& o, int64_t r0, int64_t r1, int64_t n,
                      const int32_t* acc, void* out);
void int8_finish_transposed(Avx512Isa, const Int8Output& o, int64_t rows, int64_t n, int64_t r0,
                            int64_t r1, const int32_t* acc, void* out);
void int8_pairs(Avx512Bf16Isa, const int16_t* a, int64_t m, int64_t groups, const int16_t* b,
                int64_t p0, int64_t p1, int64_t n, int32_t* c, int64_t ldc);
void int8_quads(Avx512Bf16Isa, const int8_t* a, int64_t m, int64_t groups, const int8_t* b,
                bool b_unsigned, int64_t p0, int64_t p1, int64_t n, int32_t* c, int64_t ldc);
void int8_rows(Avx512Bf16Isa, const int8_t* a, int64_t m, int64_t k, const int8_t* b, int64_t n,
               int64_t j0, int64_t j1, int32_t* c);

}  // namespace skiff::kernels
