// The loops of int8_gemm.h for the instruction sets that have their own file
// (int8_gemm_avx2.cc); int8_gemm.cc holds the portable ones (the GenericIsa overloads) and
// calls the best through dispatch_isa (skiff/core/cpu.h). Plain types only cross this line.
//
//   int8_panels   C rows [0, m) x B's panels [p0, p1): A as int16 rows of 2 * k2 values
//                 (a zero after an odd k), B as Int8PackedB::data;
//   int8_pack     Int8PackedB::data from B int8 [k, n] (row stride ldb).
#pragma once

#include <cstdint>

#include "skiff/core/cpu.h"

namespace skiff::kernels {

void int8_panels(Avx2Isa, const int16_t* a, int64_t m, int64_t k2, const int16_t* b, int64_t p0,
                 int64_t p1, int64_t n, int32_t* c, int64_t ldc);
void int8_pack(Avx2Isa, const int8_t* b, int64_t k, int64_t n, int64_t ldb, int16_t* out);

}  // namespace skiff::kernels
