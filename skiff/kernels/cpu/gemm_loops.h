// The loops of gemm_isa.h, written once over GCC vector types of SKIFF_GEMM_VECTOR_BYTES
// and compiled once per instruction set: the including file defines SKIFF_KERNEL_ISA (the
// namespace: generic, avx2, avx512) and may define SKIFF_GEMM_VECTOR_BYTES (default: the
// widest vector its own compile flags allow). Everything here lives in that namespace, so
// no inline function is shared between files compiled for different CPUs. Include it from
// exactly one file per instruction set.
#ifndef SKIFF_KERNEL_ISA
#error "define SKIFF_KERNEL_ISA (generic, avx2, avx512) before including gemm_loops.h"
#endif

#include <algorithm>
#include <cstring>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/gemm_isa.h"

#ifndef SKIFF_GEMM_VECTOR_BYTES
#if defined(__AVX512F__)
#define SKIFF_GEMM_VECTOR_BYTES 64
#elif defined(__AVX__)
#define SKIFF_GEMM_VECTOR_BYTES 32
#else
#define SKIFF_GEMM_VECTOR_BYTES 16
#endif
#endif

namespace skiff::kernels::SKIFF_KERNEL_ISA {
namespace {

// Multiply-adds above which a product is split across threads.
constexpr int64_t kParallelMacs = 1 << 18;
// The widest vector of these loops, in bytes.
constexpr int kVectorBytes = SKIFF_GEMM_VECTOR_BYTES;

// ---------------------------------------------------------------- vectors

// Vectors of kBytes (kVectorBytes, and halves of it for the columns left over).
template <typename T, int kBytes>
struct VecOf {
  static constexpr int kLanes = kBytes / static_cast<int>(sizeof(T));
  typedef T Vec __attribute__((vector_size(kBytes)));
};
template <typename T>
using Simd = VecOf<T, kVectorBytes>;

template <typename Vec, typename T>
inline Vec load(const T* p) {
  Vec v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <typename Vec, typename T>
inline void store(T* p, const Vec& v) {
  std::memcpy(p, &v, sizeof(v));
}

// The sum of a vector's lanes, by halving (a few shuffles instead of a scalar loop).
template <typename T, int kBytes>
inline T lane_sum(const typename VecOf<T, kBytes>::Vec& v) {
  if constexpr (kBytes > 16) {
    using Half = typename VecOf<T, kBytes / 2>::Vec;
    Half lo, hi;
    std::memcpy(&lo, &v, sizeof(Half));
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof(Half), sizeof(Half));
    return lane_sum<T, kBytes / 2>(lo + hi);
  } else if constexpr (VecOf<T, kBytes>::kLanes == 4) {
    return (v[0] + v[2]) + (v[1] + v[3]);
  } else {
    return v[0] + v[1];
  }
}

template <typename T, bool kTransA>
inline T a_at(const T* a, int64_t m, int64_t k, int64_t i, int64_t kk) {
  return kTransA ? a[kk * m + i] : a[i * k + kk];
}

// ---------------------------------------------------------------- direct loops

// C[i0 : i0+kRows, j0 : j0+kVecs*lanes] = op(A) · B held in registers; even and odd k
// accumulate separately so that two chains of multiply-adds overlap.
template <typename T, bool kTransA, int kRows, int kVecs, int kBytes>
inline void direct_tile(int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c, int64_t i0,
                        int64_t j0) {
  using Vec = typename VecOf<T, kBytes>::Vec;
  constexpr int lanes = VecOf<T, kBytes>::kLanes;
  Vec even[kRows][kVecs] = {}, odd[kRows][kVecs] = {};
  int64_t kk = 0;
  for (; kk + 2 <= k; kk += 2) {
    const T* b0 = b + kk * n + j0;
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) {
      const Vec x0 = load<Vec>(b0 + v * lanes), x1 = load<Vec>(b0 + n + v * lanes);
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
        even[r][v] += x0 * a_at<T, kTransA>(a, m, k, i0 + r, kk);
        odd[r][v] += x1 * a_at<T, kTransA>(a, m, k, i0 + r, kk + 1);
      }
    }
  }
  if (kk < k) {
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) {
      const Vec x0 = load<Vec>(b + kk * n + j0 + v * lanes);
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) even[r][v] += x0 * a_at<T, kTransA>(a, m, k, i0 + r, kk);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) {
      store(c + (i0 + r) * n + j0 + v * lanes, even[r][v] + odd[r][v]);
    }
  }
}

// Columns [j, n) of rows i0 : i0+kRows by vectors of kBytes, then of half that, down to
// 16 bytes; returns the first column left for the scalar loop.
template <typename T, bool kTransA, int kRows, int kBytes>
inline int64_t direct_columns(int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c,
                              int64_t i0, int64_t j) {
  constexpr int lanes = VecOf<T, kBytes>::kLanes;
  if constexpr (kBytes == kVectorBytes) {
    for (; j + 2 * lanes <= n; j += 2 * lanes)
      direct_tile<T, kTransA, kRows, 2, kBytes>(m, n, k, a, b, c, i0, j);
  }
  if (j + lanes <= n) {
    direct_tile<T, kTransA, kRows, 1, kBytes>(m, n, k, a, b, c, i0, j);
    j += lanes;
  }
  if constexpr (kBytes > 16) {
    return direct_columns<T, kTransA, kRows, kBytes / 2>(m, n, k, a, b, c, i0, j);
  } else {
    return j;
  }
}

// Rows i0 : i0+kRows of C = op(A) · B: columns in registers, then the last few one by one.
template <typename T, bool kTransA, int kRows>
void direct_rows(int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c, int64_t i0) {
  int64_t j = direct_columns<T, kTransA, kRows, kVectorBytes>(m, n, k, a, b, c, i0, 0);
  for (; j < n; ++j) {
    for (int r = 0; r < kRows; ++r) {
      T sum = T(0);
      for (int64_t kk = 0; kk < k; ++kk)
        sum += a_at<T, kTransA>(a, m, k, i0 + r, kk) * b[kk * n + j];
      c[(i0 + r) * n + j] = sum;
    }
  }
}

// Row i of C = op(A) · B^T with B stored [n, k]: four dot products over k at a time in
// vector lanes.
template <typename T, bool kTransA>
void direct_row_trans_b(int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c, int64_t i) {
  using Vec = typename Simd<T>::Vec;
  constexpr int lanes = Simd<T>::kLanes;
  const int64_t k_vec = k / lanes * lanes;
  T a_row_buf[lanes];
  int64_t j = 0;
  for (; j < n; j += 4) {
    const int cols = static_cast<int>(std::min<int64_t>(4, n - j));
    Vec acc[4] = {};
    for (int64_t kk = 0; kk < k_vec; kk += lanes) {
      Vec av;
      if constexpr (kTransA) {
        for (int l = 0; l < lanes; ++l) a_row_buf[l] = a[(kk + l) * m + i];
        av = load<Vec>(a_row_buf);
      } else {
        av = load<Vec>(a + i * k + kk);
      }
      for (int col = 0; col < cols; ++col) acc[col] += av * load<Vec>(b + (j + col) * k + kk);
    }
    for (int col = 0; col < cols; ++col) {
      T sum = lane_sum<T, kVectorBytes>(acc[col]);
      for (int64_t kk = k_vec; kk < k; ++kk)
        sum += a_at<T, kTransA>(a, m, k, i, kk) * b[(j + col) * k + kk];
      c[i * n + j + col] = sum;
    }
  }
}

// One small product, no packing and no allocation.
template <typename T, bool kTransA, bool kTransB>
void direct_product(int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c) {
  if constexpr (kTransB) {
    for (int64_t i = 0; i < m; ++i) direct_row_trans_b<T, kTransA>(m, n, k, a, b, c, i);
  } else {
    int64_t i = 0;
    for (; i + 4 <= m; i += 4) direct_rows<T, kTransA, 4>(m, n, k, a, b, c, i);
    switch (m - i) {
      case 3:
        direct_rows<T, kTransA, 3>(m, n, k, a, b, c, i);
        break;
      case 2:
        direct_rows<T, kTransA, 2>(m, n, k, a, b, c, i);
        break;
      case 1:
        direct_rows<T, kTransA, 1>(m, n, k, a, b, c, i);
        break;
      default:
        break;
    }
  }
}

template <typename T>
void direct_any(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, const T* a, const T* b,
                T* c) {
  if (trans_a) {
    if (trans_b) return direct_product<T, true, true>(m, n, k, a, b, c);
    return direct_product<T, true, false>(m, n, k, a, b, c);
  }
  if (trans_b) return direct_product<T, false, true>(m, n, k, a, b, c);
  return direct_product<T, false, false>(m, n, k, a, b, c);
}

// ---------------------------------------------------------------- blocked loops

constexpr int kMr = 6;  // rows of C per micro-tile
template <typename T>
constexpr int kNr = 2 * Simd<T>::kLanes;  // columns of C per micro-tile
constexpr int64_t kKc = 256;              // depth of a packed block
template <typename T>
constexpr int64_t kNc = (256 * 1024 / sizeof(T)) / kKc;  // columns of a packed B block

// Copies op(B)[p0 : p0+kc, j0 : j0+nc] into column panels of kNr, zero-padded:
// bp[panel][kk][col].
template <typename T, bool kTransB>
void pack_b(const T* b, int64_t n, int64_t k, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
            T* bp) {
  constexpr int nr_max = kNr<T>;
  for (int64_t jp = 0; jp * nr_max < nc; ++jp) {
    const int64_t jb = j0 + jp * nr_max;
    const int nr = static_cast<int>(std::min<int64_t>(nr_max, j0 + nc - jb));
    T* dst = bp + jp * kc * nr_max;
    for (int64_t kk = 0; kk < kc; ++kk) {
      T* d = dst + kk * nr_max;
      for (int col = 0; col < nr; ++col)
        d[col] = kTransB ? b[(jb + col) * k + p0 + kk] : b[(p0 + kk) * n + jb + col];
      for (int col = nr; col < nr_max; ++col) d[col] = T(0);
    }
  }
}

// Copies op(A)[i0 : i0+mr, p0 : p0+kc] as ap[kk][row], zero-padded to kMr rows.
template <typename T, bool kTransA>
void pack_a(const T* a, int64_t m, int64_t k, int64_t i0, int mr, int64_t p0, int64_t kc, T* ap) {
  for (int64_t kk = 0; kk < kc; ++kk) {
    T* d = ap + kk * kMr;
    for (int r = 0; r < mr; ++r) d[r] = a_at<T, kTransA>(a, m, k, i0 + r, p0 + kk);
    for (int r = mr; r < kMr; ++r) d[r] = T(0);
  }
}

// C tile (mr x nr of kMr x kNr) = or += the packed A panel times the packed B panel.
template <typename T>
void micro_kernel(int64_t kc, const T* ap, const T* bp, T* c, int64_t ldc, int mr, int nr,
                  bool accumulate) {
  using Vec = typename Simd<T>::Vec;
  constexpr int lanes = Simd<T>::kLanes;
  Vec acc[kMr][2];
#pragma GCC unroll 8
  for (int r = 0; r < kMr; ++r) acc[r][0] = acc[r][1] = Vec{};
  for (int64_t kk = 0; kk < kc; ++kk) {
    const Vec b0 = load<Vec>(bp + kk * 2 * lanes), b1 = load<Vec>(bp + kk * 2 * lanes + lanes);
    const T* ak = ap + kk * kMr;
#pragma GCC unroll 8
    for (int r = 0; r < kMr; ++r) {
      acc[r][0] += b0 * ak[r];
      acc[r][1] += b1 * ak[r];
    }
  }
  if (mr == kMr && nr == 2 * lanes) {
#pragma GCC unroll 8
    for (int r = 0; r < kMr; ++r) {
      T* row = c + r * ldc;
      if (accumulate) {
        acc[r][0] += load<Vec>(row);
        acc[r][1] += load<Vec>(row + lanes);
      }
      store(row, acc[r][0]);
      store(row + lanes, acc[r][1]);
    }
    return;
  }
  alignas(64) T tile[kMr][2 * lanes];
  std::memcpy(tile, acc, sizeof(tile));
  for (int r = 0; r < mr; ++r) {
    T* row = c + r * ldc;
    for (int col = 0; col < nr; ++col)
      row[col] = accumulate ? row[col] + tile[r][col] : tile[r][col];
  }
}

// One product by packed blocks: B blocks of kKc x kNc stay in L2 while every row block
// of A passes over them. `bp` holds kKc * kNc elements.
template <typename T, bool kTransA, bool kTransB>
void blocked_product(int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c, bool parallel,
                     T* bp) {
  constexpr int nr_max = kNr<T>;
  const int64_t row_blocks = (m + kMr - 1) / kMr;
  for (int64_t jc = 0; jc < n; jc += kNc<T>) {
    const int64_t nc = std::min(kNc<T>, n - jc);
    const int64_t panels = (nc + nr_max - 1) / nr_max;
    for (int64_t pc = 0; pc < k; pc += kKc) {
      const int64_t kc = std::min(kKc, k - pc);
      pack_b<T, kTransB>(b, n, k, pc, kc, jc, nc, bp);
      auto rows = [&](int64_t rb_begin, int64_t rb_end) {
        alignas(64) T ap[kKc * kMr];
        for (int64_t rb = rb_begin; rb < rb_end; ++rb) {
          const int64_t i0 = rb * kMr;
          const int mr = static_cast<int>(std::min<int64_t>(kMr, m - i0));
          pack_a<T, kTransA>(a, m, k, i0, mr, pc, kc, ap);
          for (int64_t jp = 0; jp < panels; ++jp) {
            const int64_t jb = jc + jp * nr_max;
            const int nr = static_cast<int>(std::min<int64_t>(nr_max, n - jb));
            micro_kernel(kc, ap, bp + jp * kc * nr_max, c + i0 * n + jb, n, mr, nr, pc > 0);
          }
        }
      };
      if (parallel) {
        parallel_for(row_blocks, 1, rows);
      } else {
        rows(0, row_blocks);
      }
    }
  }
}

template <typename T>
void blocked_any(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, const T* a,
                 const T* b, T* c, bool parallel, T* bp) {
  if (trans_a) {
    if (trans_b) return blocked_product<T, true, true>(m, n, k, a, b, c, parallel, bp);
    return blocked_product<T, true, false>(m, n, k, a, b, c, parallel, bp);
  }
  if (trans_b) return blocked_product<T, false, true>(m, n, k, a, b, c, parallel, bp);
  return blocked_product<T, false, false>(m, n, k, a, b, c, parallel, bp);
}

// Where matrix number i of the batch starts in A and B, in elements.
inline void batch_offsets(const GemmBatch& batch, int64_t i, int64_t* a_off, int64_t* b_off) {
  int64_t a = 0, b = 0;
  for (int d = batch.rank - 1; d >= 0; --d) {
    const int64_t idx = i % batch.c_dims[d];
    i /= batch.c_dims[d];
    a += idx * batch.a_stride[d];
    b += idx * batch.b_stride[d];
  }
  *a_off = a;
  *b_off = b;
}

// Every matrix of the batch: direct below `direct_macs` per matrix, else blocked; threads
// split the batch when each matrix is too small to split.
template <typename T>
void loops_any(const GemmBatch& batch, int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b,
               const T* a, const T* b, T* c, int64_t direct_macs) {
  const int64_t count = batch.count, macs = m * n * k;
  const bool direct = macs <= direct_macs;
  // The packed B block: kKc rows by the columns of C rounded up to whole panels.
  const int64_t panel_cols = (std::min(n, kNc<T>) + kNr<T> - 1) / kNr<T> * kNr<T>;
  const int64_t bp_size = direct ? 0 : std::min(k, kKc) * panel_cols;
  auto run = [&](int64_t begin, int64_t end, bool parallel) {
    T* bp = bp_size ? new T[bp_size] : nullptr;
    for (int64_t i = begin; i < end; ++i) {
      int64_t a_off, b_off;
      batch_offsets(batch, i, &a_off, &b_off);
      T* ci = c + i * m * n;
      if (direct) {
        direct_any(m, n, k, trans_a, trans_b, a + a_off, b + b_off, ci);
      } else {
        blocked_any(m, n, k, trans_a, trans_b, a + a_off, b + b_off, ci, parallel, bp);
      }
    }
    delete[] bp;
  };
  if (count > 1 && macs < kParallelMacs && macs * count >= kParallelMacs) {
    parallel_for(count, 1, [&](int64_t begin, int64_t end) { run(begin, end, false); });
  } else {
    run(0, count, macs >= kParallelMacs);
  }
}

// ---------------------------------------------------------------- one row times a matrix

// Above this many multiply-adds a row-times-matrix product splits its columns across
// threads; below it the product is memory-bound work one core streams fastest (batch-1
// inference: W6's 784 x 512 layer is 0.4M).
constexpr int64_t kParallelRowMacs = 1 << 22;

// B's rows are streamed once, each adding a[kk] * B[kk, :] into the columns of c, a block
// of columns at a time held on the stack.
template <typename T>
void row_times_matrix_any(int64_t n, int64_t k, const T* a, const T* b, T* c) {
  constexpr int64_t kBlock = 1024;
  auto columns = [&](int64_t j0, int64_t j1) {
    T acc[kBlock];
    for (int64_t jb = j0; jb < j1; jb += kBlock) {
      const int64_t width = std::min(kBlock, j1 - jb);
      for (int64_t j = 0; j < width; ++j) acc[j] = T(0);
      for (int64_t kk = 0; kk < k; ++kk) {
        const T av = a[kk];
        const T* row = b + kk * n + jb;
#pragma omp simd
        for (int64_t j = 0; j < width; ++j) acc[j] += av * row[j];
      }
      std::memcpy(c + jb, acc, sizeof(T) * width);
    }
  };
  if (n * k >= kParallelRowMacs) {
    parallel_for(n, 64, columns);
  } else {
    columns(0, n);
  }
}

// ---------------------------------------------------------------- a matrix times one column

// c[i] = A[i, :] · b: a dot product per row, rows split across threads past
// kParallelRowMacs (a layer of one output, W5's 256 -> 1, and its weight gradient's
// transpose are such products: a blocked GEMM pads one column to a whole tile).
template <typename T>
void matrix_times_column_any(int64_t m, int64_t k, const T* a, const T* b, T* c) {
  auto rows = [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const T* row = a + i * k;
      T sum = T(0);
#pragma omp simd reduction(+ : sum)
      for (int64_t kk = 0; kk < k; ++kk) sum += row[kk] * b[kk];
      c[i] = sum;
    }
  };
  if (m * k >= kParallelRowMacs) {
    parallel_for(m, 16, rows);
  } else {
    rows(0, m);
  }
}

}  // namespace

// ---------------------------------------------------------------- the entry points

void GemmLoops::direct(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, const float* a,
                       const float* b, float* c) {
  direct_any(m, n, k, trans_a, trans_b, a, b, c);
}
void GemmLoops::direct(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, const double* a,
                       const double* b, double* c) {
  direct_any(m, n, k, trans_a, trans_b, a, b, c);
}
void GemmLoops::batch(const GemmBatch& batch, int64_t m, int64_t n, int64_t k, bool trans_a,
                      bool trans_b, const float* a, const float* b, float* c, int64_t direct_macs) {
  loops_any(batch, m, n, k, trans_a, trans_b, a, b, c, direct_macs);
}
void GemmLoops::batch(const GemmBatch& batch, int64_t m, int64_t n, int64_t k, bool trans_a,
                      bool trans_b, const double* a, const double* b, double* c,
                      int64_t direct_macs) {
  loops_any(batch, m, n, k, trans_a, trans_b, a, b, c, direct_macs);
}
void GemmLoops::row_times_matrix(int64_t n, int64_t k, const float* a, const float* b, float* c) {
  row_times_matrix_any(n, k, a, b, c);
}
void GemmLoops::row_times_matrix(int64_t n, int64_t k, const double* a, const double* b,
                                 double* c) {
  row_times_matrix_any(n, k, a, b, c);
}
void GemmLoops::matrix_times_column(int64_t m, int64_t k, const float* a, const float* b,
                                    float* c) {
  matrix_times_column_any(m, k, a, b, c);
}
void GemmLoops::matrix_times_column(int64_t m, int64_t k, const double* a, const double* b,
                                    double* c) {
  matrix_times_column_any(m, k, a, b, c);
}

}  // namespace skiff::kernels::SKIFF_KERNEL_ISA
