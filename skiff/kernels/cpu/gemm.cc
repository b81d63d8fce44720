#include "skiff/kernels/cpu/gemm.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "skiff/core/cpu.h"
#include "skiff/kernels/cpu/bf16_convert.h"
#include "skiff/kernels/cpu/gemm_isa.h"
#ifndef SKIFF_NO_ONEDNN
#include "skiff/kernels/cpu/onednn_cache.h"
#endif

// The generic loops (gemm_avx2.cc and gemm_avx512.cc compile the others).
#define SKIFF_KERNEL_ISA generic
#include "skiff/kernels/cpu/gemm_loops.h"
#undef SKIFF_KERNEL_ISA

namespace skiff::kernels {
namespace {

// float32 products with at most this many multiply-adds in all take the direct loop:
// below it oneDNN's fixed cost per call (about 1 µs) outweighs the work.
constexpr int64_t kDirectMacsF32 = 1 << 15;
// float64 matrices this small skip the packing of the blocked loops.
constexpr int64_t kDirectMacsF64 = 1 << 15;

// ---------------------------------------------------------------- batch bookkeeping

// Drops batch dims of size 1, merges neighbours that broadcast alike, and folds A's batch
// into m when B has none (C and A are then one tall row-major matrix each).
GemmProblem simplify(const GemmProblem& p) {
  bool valid = p.a_batch.rank() == p.c_batch.rank() && p.b_batch.rank() == p.c_batch.rank();
  for (int d = 0; valid && d < p.c_batch.rank(); ++d) {
    valid = (p.a_batch[d] == 1 || p.a_batch[d] == p.c_batch[d]) &&
            (p.b_batch[d] == 1 || p.b_batch[d] == p.c_batch[d]);
  }
  SKIFF_CHECK(valid, "gemm: batch dims of A ", p.a_batch, " and B ", p.b_batch,
              " do not broadcast to C's ", p.c_batch);
  GemmProblem s = p;
  s.a_batch = s.b_batch = s.c_batch = Shape{};
  for (int d = 0; d < p.c_batch.rank(); ++d) {
    const int64_t c = p.c_batch[d], a = p.a_batch[d], b = p.b_batch[d];
    if (c == 1) continue;
    const int last = s.c_batch.rank() - 1;
    const bool a_full = a != 1, b_full = b != 1;
    if (last >= 0 && (s.a_batch[last] != 1) == a_full && (s.b_batch[last] != 1) == b_full) {
      s.c_batch[last] *= c;
      s.a_batch[last] *= a;
      s.b_batch[last] *= b;
    } else {
      s.c_batch.push_back(c);
      s.a_batch.push_back(a);
      s.b_batch.push_back(b);
    }
  }
  if (s.c_batch.rank() == 1 && s.a_batch[0] == s.c_batch[0] && s.b_batch[0] == 1 && !s.trans_a) {
    s.m *= s.c_batch[0];
    s.a_batch = s.b_batch = s.c_batch = Shape{};
  }
  return s;
}

// The batch of `p` as the loops of gemm_isa.h take it.
GemmBatch batch_of(const GemmProblem& p) {
  GemmBatch batch;
  batch.rank = p.c_batch.rank();
  batch.count = p.batch_count();
  int64_t a_acc = p.m * p.k, b_acc = p.k * p.n;
  for (int d = batch.rank - 1; d >= 0; --d) {
    batch.c_dims[d] = p.c_batch[d];
    batch.a_stride[d] = p.a_batch[d] == 1 ? 0 : a_acc;
    batch.b_stride[d] = p.b_batch[d] == 1 ? 0 : b_acc;
    a_acc *= p.a_batch[d];
    b_acc *= p.b_batch[d];
  }
  return batch;
}

// ---------------------------------------------------------------- skiff's own loops
// The loops of the best instruction set kernels may use now (gemm_isa.h).

template <typename T>
void direct_gemm(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, const T* a,
                 const T* b, T* c) {
  dispatch_isa([&](auto isa) { gemm_loops(isa).direct(m, n, k, trans_a, trans_b, a, b, c); });
}

template <typename T>
void loops_gemm(const GemmProblem& p, const T* a, const T* b, T* c, int64_t direct_macs) {
  const GemmBatch batch = batch_of(p);
  dispatch_isa([&](auto isa) {
    gemm_loops(isa).batch(batch, p.m, p.n, p.k, p.trans_a, p.trans_b, a, b, c, direct_macs);
  });
}

template <typename T>
void row_times_matrix(int64_t n, int64_t k, const T* a, const T* b, T* c) {
  dispatch_isa([&](auto isa) { gemm_loops(isa).row_times_matrix(n, k, a, b, c); });
}

// True for one unbatched row times a stored (not transposed) matrix: c[0, :] = a[0, :] . B,
// where a is one contiguous row whether or not it is transposed.
bool is_row_times_matrix(const GemmProblem& p) {
  return p.batch_count() == 1 && p.a_batch.numel() == 1 && p.b_batch.numel() == 1 && p.m == 1 &&
         !p.trans_b;
}

template <typename T>
void matrix_times_column(int64_t m, int64_t k, const T* a, const T* b, T* c) {
  dispatch_isa([&](auto isa) { gemm_loops(isa).matrix_times_column(m, k, a, b, c); });
}

// One unbatched product with one column of output, C [m, 1] = op(A) · b, b's k values
// contiguous whether or not B is transposed: a dot product per row of A, or (A stored
// transposed, [k, m]) b's row times A. Returns false for other products.
template <typename T>
bool matrix_times_column_product(const GemmProblem& p, const T* a, const T* b, T* c) {
  if (p.batch_count() != 1 || p.a_batch.numel() != 1 || p.b_batch.numel() != 1 || p.n != 1)
    return false;
  if (p.trans_a) {
    row_times_matrix(p.m, p.k, b, a, c);
  } else {
    matrix_times_column(p.m, p.k, a, b, c);
  }
  return true;
}

// ---------------------------------------------------------------- oneDNN

// Built with SKIFF_NO_ONEDNN (the portable kernel set of generated code), every product
// takes skiff's own loops: float32 the blocked loops, bfloat16 those over widened operands.
#ifndef SKIFF_NO_ONEDNN
struct OnednnMatmul {
  dnnl::matmul primitive;
  dnnl::memory a, b, c;
  // False when oneDNN has no matmul for these data types on this CPU (bfloat16 off
  // AVX-512): the caller computes another way.
  bool available = true;
};

using OnednnType = dnnl::memory::data_type;

// Row-major strides of a [batch..., rows, cols] operand stored transposed when `trans`.
dnnl::memory::desc operand_desc(const Shape& batch, int64_t rows, int64_t cols, bool trans,
                                OnednnType type) {
  const int r = batch.rank();
  dnnl::memory::dims dims(r + 2), strides(r + 2);
  for (int d = 0; d < r; ++d) dims[d] = batch[d];
  dims[r] = rows;
  dims[r + 1] = cols;
  strides[r] = trans ? 1 : cols;
  strides[r + 1] = trans ? rows : 1;
  int64_t acc = rows * cols;
  for (int d = r - 1; d >= 0; --d) {
    strides[d] = acc;
    acc *= batch[d];
  }
  return dnnl::memory::desc(dims, type, strides);
}

// A and B of type `ab`, C of type `c` (float32 accumulation inside oneDNN). A type
// oneDNN cannot run here gives an unavailable entry for bfloat16 and an error otherwise.
OnednnMatmul make_onednn_matmul(const GemmProblem& p, OnednnType ab, OnednnType c_type) {
  try {
    const dnnl::memory::desc a = operand_desc(p.a_batch, p.m, p.k, p.trans_a, ab);
    const dnnl::memory::desc b = operand_desc(p.b_batch, p.k, p.n, p.trans_b, ab);
    const dnnl::memory::desc c = operand_desc(p.c_batch, p.m, p.n, false, c_type);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), onednn_engine());
    dnnl::engine& eng = onednn_engine();
    return {dnnl::matmul(pd), dnnl::memory(a, eng, nullptr), dnnl::memory(b, eng, nullptr),
            dnnl::memory(c, eng, nullptr)};
  } catch (const dnnl::error& e) {
    if (ab == OnednnType::bf16 && e.status == dnnl_unimplemented) {
      OnednnMatmul none;
      none.available = false;
      return none;
    }
    fail("oneDNN could not make a matmul for A batch ", p.a_batch, " B batch ", p.b_batch,
         " m=", p.m, " n=", p.n, " k=", p.k, ": ", e.what());
  }
}

// C = the products of `p` by a cached oneDNN primitive; false (nothing done) when oneDNN
// has none for these types here.
bool onednn_gemm(const GemmProblem& p, const void* a, const void* b, void* c, OnednnType ab,
                 OnednnType c_type) {
  constexpr int64_t kMatmulTag = 0x6d61746d756c;  // "matmul"
  OnednnKey key(kMatmulTag);
  key.add(static_cast<int64_t>(ab)).add(static_cast<int64_t>(c_type));
  key.add(p.c_batch.rank()).add(p.m).add(p.n).add(p.k).add(p.trans_a).add(p.trans_b);
  for (int d = 0; d < p.c_batch.rank(); ++d)
    key.add(p.a_batch[d]).add(p.b_batch[d]).add(p.c_batch[d]);
  OnednnMatmul& e =
      onednn_cache<OnednnMatmul>().get(key, [&] { return make_onednn_matmul(p, ab, c_type); });
  if (!e.available) return false;
  e.a.set_data_handle(const_cast<void*>(a));
  e.b.set_data_handle(const_cast<void*>(b));
  e.c.set_data_handle(c);
  dnnl::stream& stream = onednn_stream();
  e.primitive.execute(stream, {{DNNL_ARG_SRC, e.a}, {DNNL_ARG_WEIGHTS, e.b}, {DNNL_ARG_DST, e.c}});
  stream.wait();
  return true;
}
// Unbatched float32 products where oneDNN's sgemm beats its matmul primitive: B not
// transposed, at least 512 columns and a depth of 128. Measured on AVX-512 (2 threads):
// 1024^3 6.4 vs 7.3 ms, W2's 64x784 . 784x512 0.17 vs 0.20 ms, W4's 700x200 . 200x10000
// 8.2 vs 10.7 ms (and its A^T.B gradient 9.2 vs 12.5); the primitive wins on narrow
// outputs (n = 10: 1.25x), on B^T and on short depths (k = 64: 1.16x). On AVX2 both run
// the same code (within 2%).
bool prefers_onednn_sgemm(const GemmProblem& p) {
  return p.c_batch.rank() == 0 && !p.trans_b && p.n >= 512 && p.k >= 128;
}

// C = op(A) . op(B) of one unbatched product through dnnl_sgemm (row-major).
void onednn_sgemm(const GemmProblem& p, const float* a, const float* b, float* c) {
  const dnnl_status_t status =
      dnnl_sgemm(p.trans_a ? 'T' : 'N', p.trans_b ? 'T' : 'N', p.m, p.n, p.k, 1.0f, a,
                 p.trans_a ? p.m : p.k, b, p.trans_b ? p.k : p.n, 0.0f, c, p.n);
  SKIFF_CHECK(status == dnnl_success, "oneDNN sgemm failed for m=", p.m, " n=", p.n, " k=", p.k,
              " (status ", static_cast<int>(status), ")");
}
#endif  // SKIFF_NO_ONEDNN

// Handles empty products; returns true when nothing is left to compute.
template <typename T>
bool trivial(const GemmProblem& p, T* c) {
  const int64_t count = p.batch_count();
  if (count == 0 || p.m == 0 || p.n == 0) return true;
  if (p.k == 0) {
    std::memset(c, 0, sizeof(T) * count * p.m * p.n);  // +0 in every floating type
    return true;
  }
  return false;
}

// bfloat16 products where oneDNN has none: A and B widened to float32, the float32 gemm,
// C rounded (when C is bfloat16) once.
template <typename CType>
void widened_bf16_gemm(const GemmProblem& p, const bfloat16* a, const bfloat16* b, CType* c) {
  const int64_t a_size = p.a_batch.numel() * p.m * p.k, b_size = p.b_batch.numel() * p.k * p.n;
  std::vector<float> wa(a_size), wb(b_size);
  bf16_to_float(a, wa.data(), a_size);
  bf16_to_float(b, wb.data(), b_size);
  if constexpr (std::is_same_v<CType, float>) {
    gemm(p, wa.data(), wb.data(), c);
  } else {
    const int64_t c_size = p.batch_count() * p.m * p.n;
    std::vector<float> wc(c_size);
    gemm(p, wa.data(), wb.data(), wc.data());
    float_to_bf16(wc.data(), c, c_size);
  }
}

template <typename CType>
void bf16_gemm(const GemmProblem& problem, const bfloat16* a, const bfloat16* b, CType* c) {
  if (trivial(problem, c)) return;
  const GemmProblem p = simplify(problem);
#ifdef SKIFF_NO_ONEDNN
  widened_bf16_gemm(p, a, b, c);
#else
  const OnednnType c_type = std::is_same_v<CType, float> ? OnednnType::f32 : OnednnType::bf16;
  if (!onednn_gemm(p, a, b, c, OnednnType::bf16, c_type)) widened_bf16_gemm(p, a, b, c);
#endif
}

// The hot path of tiny unbatched products: no bookkeeping beyond the size test.
template <typename T>
bool tiny_unbatched(const GemmProblem& p, const T* a, const T* b, T* c, int64_t direct_macs) {
  if (p.c_batch.rank() != 0 || p.m <= 0 || p.n <= 0 || p.k <= 0 || p.m * p.n * p.k > direct_macs) {
    return false;
  }
  direct_gemm(p.m, p.n, p.k, p.trans_a, p.trans_b, a, b, c);
  return true;
}

}  // namespace

void gemm(const GemmProblem& problem, const float* a, const float* b, float* c) {
  if (tiny_unbatched(problem, a, b, c, kDirectMacsF32) || trivial(problem, c)) return;
  const GemmProblem p = simplify(problem);
  if (is_row_times_matrix(p)) return row_times_matrix(p.n, p.k, a, b, c);
  if (matrix_times_column_product(p, a, b, c)) return;
#ifdef SKIFF_NO_ONEDNN
  loops_gemm(p, a, b, c, kDirectMacsF32);
#else
  if (p.batch_count() * p.m * p.n * p.k <= kDirectMacsF32) {
    loops_gemm(p, a, b, c, kDirectMacsF32);
  } else if (prefers_onednn_sgemm(p)) {
    onednn_sgemm(p, a, b, c);
  } else {
    onednn_gemm(p, a, b, c, OnednnType::f32, OnednnType::f32);
  }
#endif
}

void gemm(const GemmProblem& problem, const double* a, const double* b, double* c) {
  if (tiny_unbatched(problem, a, b, c, kDirectMacsF64) || trivial(problem, c)) return;
  const GemmProblem p = simplify(problem);
  if (is_row_times_matrix(p)) return row_times_matrix(p.n, p.k, a, b, c);
  if (matrix_times_column_product(p, a, b, c)) return;
  loops_gemm(p, a, b, c, kDirectMacsF64);
}

namespace {

template <typename T>
void unbatched_gemm(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, const T* a,
                    const T* b, T* c, int64_t direct_macs) {
  if (m > 0 && n > 0 && k > 0 && m * n * k <= direct_macs) {
    direct_gemm(m, n, k, trans_a, trans_b, a, b, c);
    return;
  }
  gemm(GemmProblem::unbatched(m, n, k, trans_a, trans_b), a, b, c);
}

}  // namespace

void gemm(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, const float* a,
          const float* b, float* c) {
  unbatched_gemm(m, n, k, trans_a, trans_b, a, b, c, kDirectMacsF32);
}

void gemm(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, const double* a,
          const double* b, double* c) {
  unbatched_gemm(m, n, k, trans_a, trans_b, a, b, c, kDirectMacsF64);
}

void gemm(const GemmProblem& p, const bfloat16* a, const bfloat16* b, bfloat16* c) {
  bf16_gemm(p, a, b, c);
}

void gemm(const GemmProblem& p, const bfloat16* a, const bfloat16* b, float* c) {
  bf16_gemm(p, a, b, c);
}

}  // namespace skiff::kernels
