// Batched row-major matrix products with broadcast batch dims: the engine under matmul,
// its gradient, and any op that needs C = op(A) · op(B).
//
//   GemmProblem p;                 // one [2, 3] · [3, 4] product
//   p.m = 2; p.n = 4; p.k = 3;
//   gemm(p, a, b, c);              // c: 2 x 4 floats, overwritten
//
// float32 runs a direct vectorised loop on tiny products and oneDNN otherwise (its sgemm
// for wide unbatched products, a cached matmul primitive for the rest); float64 runs
// skiff's own blocked loops (both loops per instruction set: gemm_isa.h); bfloat16 runs oneDNN
// (float32 accumulation), or widens to float32 where oneDNN has no bfloat16 matmul.
#pragma once

#include <cstdint>

#include "skiff/core/dtype.h"
#include "skiff/core/shape.h"

namespace skiff::kernels {

// C[i] = op(A[i]) · op(B[i]) for every index i of the batch dims `c_batch`. A is stored
// as [a_batch..., m, k] ([..., k, m] when trans_a), B as [b_batch..., k, n] ([..., n, k]
// when trans_b), C as [c_batch..., m, n]. Each dim of a_batch / b_batch equals c_batch's
// or is 1 (broadcast); all three have the same rank (pad with leading 1s).
struct GemmProblem {
  Shape a_batch, b_batch, c_batch;
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;

  // Number of matrices in C.
  int64_t batch_count() const { return c_batch.numel(); }

  // One product, no batch dims.
  static GemmProblem unbatched(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b) {
    GemmProblem p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.trans_a = trans_a;
    p.trans_b = trans_b;
    return p;
  }
};

// Overwrites C with the products described by `p` (k == 0 gives zeros).
void gemm(const GemmProblem& p, const float* a, const float* b, float* c);
void gemm(const GemmProblem& p, const double* a, const double* b, double* c);
// bfloat16 A and B; C in bfloat16 (each entry rounded once) or float32 (not rounded).
void gemm(const GemmProblem& p, const bfloat16* a, const bfloat16* b, bfloat16* c);
void gemm(const GemmProblem& p, const bfloat16* a, const bfloat16* b, float* c);

// One unbatched product, C [m, n] = op(A) · op(B): gemm(GemmProblem) without the batch
// bookkeeping, for a layer's [batch, in] · [in, out] and the hot path of tiny products
// (an interpreter's loop body).
void gemm(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, const float* a,
          const float* b, float* c);
void gemm(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, const double* a,
          const double* b, double* c);

}  // namespace skiff::kernels
