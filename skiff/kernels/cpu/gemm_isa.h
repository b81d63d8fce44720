// skiff's own GEMM loops, one set per instruction set (skiff/core/cpu.h); gemm.cc takes
// the best at each call:
//
//   dispatch_isa([&](auto isa) { gemm_loops(isa).direct(m, n, k, false, false, a, b, c); });
//
// Each set is gemm_loops.h compiled in its own translation unit: `generic` in gemm.cc
// (vectors as wide as the baseline allows), `avx2` in gemm_avx2.cc, `avx512` in
// gemm_avx512.cc. Plain types only cross this line, so that no inline function is shared
// between code compiled for different CPUs.
#pragma once

#include <cstdint>

#include "skiff/core/cpu.h"
#include "skiff/core/shape.h"

namespace skiff::kernels {

// Where matrix number i of a batch starts in A and B: C's batch dims (last fastest) and
// the element strides of A and B along them (0 where they broadcast).
struct GemmBatch {
  int rank = 0;
  int64_t count = 1;
  int64_t c_dims[Shape::kMaxRank], a_stride[Shape::kMaxRank], b_stride[Shape::kMaxRank];
};

// One set of loops, in namespace `isa`:
//   direct            C = op(A) · op(B), one small matrix, no packing, no allocation;
//   batch             every matrix of `batch`: the direct loop up to `direct_macs`
//                     multiply-adds per matrix, else packed blocks; threads split the
//                     batch or the rows;
//   row_times_matrix  c[0, :] = a[0, :] · B for B [k, n] row-major;
//   matrix_times_column  c[:, 0] = A · b for A [m, k] row-major and k values b.
#define SKIFF_GEMM_LOOPS_API(isa)                                                                 \
  namespace isa {                                                                                 \
  struct GemmLoops {                                                                              \
    static void direct(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b,               \
                       const float* a, const float* b, float* c);                                 \
    static void direct(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b,               \
                       const double* a, const double* b, double* c);                              \
    static void batch(const GemmBatch& batch, int64_t m, int64_t n, int64_t k, bool trans_a,      \
                      bool trans_b, const float* a, const float* b, float* c,                     \
                      int64_t direct_macs);                                                       \
    static void batch(const GemmBatch& batch, int64_t m, int64_t n, int64_t k, bool trans_a,      \
                      bool trans_b, const double* a, const double* b, double* c,                  \
                      int64_t direct_macs);                                                       \
    static void row_times_matrix(int64_t n, int64_t k, const float* a, const float* b, float* c); \
    static void row_times_matrix(int64_t n, int64_t k, const double* a, const double* b,          \
                                 double* c);                                                      \
    static void matrix_times_column(int64_t m, int64_t k, const float* a, const float* b,         \
                                    float* c);                                                    \
    static void matrix_times_column(int64_t m, int64_t k, const double* a, const double* b,       \
                                    double* c);                                                   \
  };                                                                                              \
  }

SKIFF_GEMM_LOOPS_API(generic)
SKIFF_GEMM_LOOPS_API(avx2)
SKIFF_GEMM_LOOPS_API(avx512)

#undef SKIFF_GEMM_LOOPS_API

// The loops of each instruction set, by its tag.
inline generic::GemmLoops gemm_loops(GenericIsa) { return {}; }
inline avx2::GemmLoops gemm_loops(Avx2Isa) { return {}; }
inline avx512::GemmLoops gemm_loops(Avx512Isa) { return {}; }

}  // namespace skiff::kernels
