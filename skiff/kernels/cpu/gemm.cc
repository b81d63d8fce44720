#include "skiff/kernels/cpu/gemm.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/bf16_convert.h"
#ifndef SKIFF_NO_ONEDNN
#include "skiff/kernels/cpu/onednn_cache.h"
#endif

namespace skiff::kernels {
namespace {

// float32 products with at most this many multiply-adds in all take the direct loop:
// below it oneDNN's fixed cost per call (about 1 µs) outweighs the work.
constexpr int64_t kDirectMacsF32 = 1 << 15;
// float64 matrices this small skip the packing of the blocked loops.
constexpr int64_t kDirectMacsF64 = 1 << 15;
// Multiply-adds above which a product is split across threads.
constexpr int64_t kParallelMacs = 1 << 18;

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

// Where A's and B's matrix number i of the batch start, in elements.
struct BatchStrides {
  int rank = 0;
  int64_t c_dims[Shape::kMaxRank], a_stride[Shape::kMaxRank], b_stride[Shape::kMaxRank];

  explicit BatchStrides(const GemmProblem& p) : rank(p.c_batch.rank()) {
    int64_t a_acc = p.m * p.k, b_acc = p.k * p.n;
    for (int d = rank - 1; d >= 0; --d) {
      c_dims[d] = p.c_batch[d];
      a_stride[d] = p.a_batch[d] == 1 ? 0 : a_acc;
      b_stride[d] = p.b_batch[d] == 1 ? 0 : b_acc;
      a_acc *= p.a_batch[d];
      b_acc *= p.b_batch[d];
    }
  }
  void offsets(int64_t i, int64_t* a_off, int64_t* b_off) const {
    int64_t a = 0, b = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t idx = i % c_dims[d];
      i /= c_dims[d];
      a += idx * a_stride[d];
      b += idx * b_stride[d];
    }
    *a_off = a;
    *b_off = b;
  }
};

// ---------------------------------------------------------------- direct loops

// Vectors of kBytes (64: one AVX-512 register, split into halves or quarters on older
// CPUs; 32 and 16 bytes for the columns left over).
template <typename T, int kBytes>
struct VecOf;
#define SKIFF_GEMM_VEC_(T, BYTES)                      \
  template <>                                          \
  struct VecOf<T, BYTES> {                             \
    static constexpr int kLanes = (BYTES) / sizeof(T); \
    typedef T Vec __attribute__((vector_size(BYTES))); \
  };
SKIFF_GEMM_VEC_(float, 64)
SKIFF_GEMM_VEC_(float, 32)
SKIFF_GEMM_VEC_(float, 16)
SKIFF_GEMM_VEC_(double, 64)
SKIFF_GEMM_VEC_(double, 32)
SKIFF_GEMM_VEC_(double, 16)
#undef SKIFF_GEMM_VEC_
template <typename T>
using Simd = VecOf<T, 64>;

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
inline float lane_sum(const Simd<float>::Vec& v) {
  typedef float Half __attribute__((vector_size(32)));
  typedef float Quarter __attribute__((vector_size(16)));
  Half lo, hi;
  std::memcpy(&lo, &v, sizeof(Half));
  std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof(Half), sizeof(Half));
  const Half h = lo + hi;
  Quarter ql, qh;
  std::memcpy(&ql, &h, sizeof(Quarter));
  std::memcpy(&qh, reinterpret_cast<const char*>(&h) + sizeof(Quarter), sizeof(Quarter));
  const Quarter q = ql + qh;
  return (q[0] + q[2]) + (q[1] + q[3]);
}
inline double lane_sum(const Simd<double>::Vec& v) {
  typedef double Half __attribute__((vector_size(32)));
  Half lo, hi;
  std::memcpy(&lo, &v, sizeof(Half));
  std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof(Half), sizeof(Half));
  const Half h = lo + hi;
  return (h[0] + h[2]) + (h[1] + h[3]);
}

template <typename T, bool kTransA>
inline T a_at(const T* a, int64_t m, int64_t k, int64_t i, int64_t kk) {
  return kTransA ? a[kk * m + i] : a[i * k + kk];
}

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

// Rows i0 : i0+kRows of C = op(A) · B: columns in registers by 64-, 32- and 16-byte
// vectors, then the last few one by one.
template <typename T, bool kTransA, int kRows>
void direct_rows(int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c, int64_t i0) {
  constexpr int l64 = VecOf<T, 64>::kLanes, l32 = VecOf<T, 32>::kLanes, l16 = VecOf<T, 16>::kLanes;
  int64_t j = 0;
  for (; j + 2 * l64 <= n; j += 2 * l64)
    direct_tile<T, kTransA, kRows, 2, 64>(m, n, k, a, b, c, i0, j);
  if (j + l64 <= n) {
    direct_tile<T, kTransA, kRows, 1, 64>(m, n, k, a, b, c, i0, j);
    j += l64;
  }
  if (j + l32 <= n) {
    direct_tile<T, kTransA, kRows, 1, 32>(m, n, k, a, b, c, i0, j);
    j += l32;
  }
  if (j + l16 <= n) {
    direct_tile<T, kTransA, kRows, 1, 16>(m, n, k, a, b, c, i0, j);
    j += l16;
  }
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
      T sum = lane_sum(acc[col]);
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
    Vec b0, b1;
    std::memcpy(&b0, bp + kk * 2 * lanes, sizeof(Vec));
    std::memcpy(&b1, bp + kk * 2 * lanes + lanes, sizeof(Vec));
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
        Vec c0, c1;
        std::memcpy(&c0, row, sizeof(Vec));
        std::memcpy(&c1, row + lanes, sizeof(Vec));
        acc[r][0] += c0;
        acc[r][1] += c1;
      }
      std::memcpy(row, &acc[r][0], sizeof(Vec));
      std::memcpy(row + lanes, &acc[r][1], sizeof(Vec));
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
void direct_gemm(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, const T* a,
                 const T* b, T* c) {
  if (trans_a) {
    if (trans_b) return direct_product<T, true, true>(m, n, k, a, b, c);
    return direct_product<T, true, false>(m, n, k, a, b, c);
  }
  if (trans_b) return direct_product<T, false, true>(m, n, k, a, b, c);
  return direct_product<T, false, false>(m, n, k, a, b, c);
}

template <typename T>
void blocked_gemm(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, const T* a,
                  const T* b, T* c, bool parallel, T* bp) {
  if (trans_a) {
    if (trans_b) return blocked_product<T, true, true>(m, n, k, a, b, c, parallel, bp);
    return blocked_product<T, true, false>(m, n, k, a, b, c, parallel, bp);
  }
  if (trans_b) return blocked_product<T, false, true>(m, n, k, a, b, c, parallel, bp);
  return blocked_product<T, false, false>(m, n, k, a, b, c, parallel, bp);
}

// Every matrix of the batch by skiff's own loops: direct below `direct_macs` per matrix,
// else blocked; threads split the batch when each matrix is too small to split.
template <typename T>
void loops_gemm(const GemmProblem& p, const T* a, const T* b, T* c, int64_t direct_macs) {
  const int64_t count = p.batch_count(), macs = p.m * p.n * p.k;
  const BatchStrides strides(p);
  const bool direct = macs <= direct_macs;
  // The packed B block: kKc rows by the columns of C rounded up to whole panels.
  const int64_t panel_cols = (std::min(p.n, kNc<T>) + kNr<T> - 1) / kNr<T> * kNr<T>;
  const size_t bp_size = direct ? 0 : static_cast<size_t>(std::min(p.k, kKc) * panel_cols);
  auto run = [&](int64_t begin, int64_t end, bool parallel) {
    std::unique_ptr<T[]> bp(bp_size ? new T[bp_size] : nullptr);
    for (int64_t i = begin; i < end; ++i) {
      int64_t a_off, b_off;
      strides.offsets(i, &a_off, &b_off);
      T* ci = c + i * p.m * p.n;
      if (direct) {
        direct_gemm(p.m, p.n, p.k, p.trans_a, p.trans_b, a + a_off, b + b_off, ci);
      } else {
        blocked_gemm(p.m, p.n, p.k, p.trans_a, p.trans_b, a + a_off, b + b_off, ci, parallel,
                     bp.get());
      }
    }
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

// c[0, :] = a[0, :] . B for B [k, n] stored row-major (m = 1, B not transposed; a is one
// contiguous row whether or not it is transposed): B's rows are streamed once, each adding
// a[kk] * B[kk, :] into the columns of c, a block of columns at a time held on the stack.
template <typename T>
void row_times_matrix(int64_t n, int64_t k, const T* a, const T* b, T* c) {
  constexpr int64_t kBlock = 1024;
  auto columns = [&](int64_t j0, int64_t j1) {
    T acc[kBlock];
    for (int64_t jb = j0; jb < j1; jb += kBlock) {
      const int64_t width = std::min(kBlock, j1 - jb);
      std::fill(acc, acc + width, T(0));
      for (int64_t kk = 0; kk < k; ++kk) {
        const T av = a[kk];
        const T* row = b + kk * n + jb;
#pragma omp simd
        for (int64_t j = 0; j < width; ++j) acc[j] += av * row[j];
      }
      std::copy(acc, acc + width, c + jb);
    }
  };
  if (n * k >= kParallelRowMacs) {
    parallel_for(n, 64, columns);
  } else {
    columns(0, n);
  }
}

// True for one unbatched row times a stored (not transposed) matrix.
bool is_row_times_matrix(const GemmProblem& p) {
  return p.batch_count() == 1 && p.a_batch.numel() == 1 && p.b_batch.numel() == 1 && p.m == 1 &&
         !p.trans_b;
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
#ifdef SKIFF_NO_ONEDNN
  loops_gemm(p, a, b, c, kDirectMacsF32);
#else
  if (p.batch_count() * p.m * p.n * p.k <= kDirectMacsF32) {
    loops_gemm(p, a, b, c, kDirectMacsF32);
  } else {
    onednn_gemm(p, a, b, c, OnednnType::f32, OnednnType::f32);
  }
#endif
}

void gemm(const GemmProblem& problem, const double* a, const double* b, double* c) {
  if (tiny_unbatched(problem, a, b, c, kDirectMacsF64) || trivial(problem, c)) return;
  const GemmProblem p = simplify(problem);
  if (is_row_times_matrix(p)) return row_times_matrix(p.n, p.k, a, b, c);
  loops_gemm(p, a, b, c, kDirectMacsF64);
}

void gemm(const GemmProblem& p, const bfloat16* a, const bfloat16* b, bfloat16* c) {
  bf16_gemm(p, a, b, c);
}

void gemm(const GemmProblem& p, const bfloat16* a, const bfloat16* b, float* c) {
  bf16_gemm(p, a, b, c);
}

}  // namespace skiff::kernels
