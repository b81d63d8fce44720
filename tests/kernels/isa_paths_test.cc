// Every kernel with code for several instruction sets (skiff/core/cpu.h), run on each set
// this CPU has: the AVX-512, AVX2 and portable paths against a float64 reference or the
// portable path, bit for bit where the paths promise it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "skiff/core/cpu.h"
#include "skiff/kernels/cpu/bf16_convert.h"
#include "skiff/kernels/cpu/gemm.h"
#include "skiff/kernels/cpu/int8_gemm.h"
#include "skiff/kernels/cpu/pool_geometry.h"
#include "skiff/kernels/cpu/softmax_rows_isa.h"

namespace skiff::kernels {
namespace {

// The sets of this CPU, each set in turn as the cap; the cap is restored at the end.
class IsaPaths : public ::testing::Test {
 protected:
  void TearDown() override { set_max_cpu_isa(saved_); }
  static std::vector<CpuIsa> sets() {
    std::vector<CpuIsa> out;
    for (CpuIsa isa : {CpuIsa::kGeneric, CpuIsa::kAvx2, CpuIsa::kAvx512, CpuIsa::kAvx512Bf16})
      if (isa <= cpu_best_isa()) out.push_back(isa);
    return out;
  }
  CpuIsa saved_ = max_cpu_isa();
};

template <typename T>
std::vector<T> random_values(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(u(rng));
  return v;
}

// ---------------------------------------------------------------- gemm

// C = op(A) · op(B) for every matrix of the batch, in float64, by definition.
template <typename T>
std::vector<double> reference_gemm(const GemmProblem& p, const std::vector<T>& a,
                                   const std::vector<T>& b) {
  const int64_t count = p.batch_count();
  std::vector<double> c(count * p.m * p.n);
  for (int64_t i = 0; i < count; ++i) {
    // Batch index i in C's dims, then in A's and B's (broadcast dims of size 1).
    int64_t rest = i, a_off = 0, b_off = 0, a_mul = 1, b_mul = 1;
    for (int d = p.c_batch.rank() - 1; d >= 0; --d) {
      const int64_t idx = rest % p.c_batch[d];
      rest /= p.c_batch[d];
      a_off += (p.a_batch[d] == 1 ? 0 : idx) * a_mul;
      b_off += (p.b_batch[d] == 1 ? 0 : idx) * b_mul;
      a_mul *= p.a_batch[d];
      b_mul *= p.b_batch[d];
    }
    const T* ai = a.data() + a_off * p.m * p.k;
    const T* bi = b.data() + b_off * p.k * p.n;
    for (int64_t r = 0; r < p.m; ++r) {
      for (int64_t col = 0; col < p.n; ++col) {
        double sum = 0;
        for (int64_t kk = 0; kk < p.k; ++kk) {
          const double x = p.trans_a ? ai[kk * p.m + r] : ai[r * p.k + kk];
          const double y = p.trans_b ? bi[col * p.k + kk] : bi[kk * p.n + col];
          sum += x * y;
        }
        c[(i * p.m + r) * p.n + col] = sum;
      }
    }
  }
  return c;
}

GemmProblem problem(int64_t m, int64_t n, int64_t k, bool ta, bool tb, Shape a_batch = {},
                    Shape b_batch = {}, Shape c_batch = {}) {
  GemmProblem p = GemmProblem::unbatched(m, n, k, ta, tb);
  p.a_batch = a_batch;
  p.b_batch = b_batch;
  p.c_batch = c_batch;
  return p;
}

// Products that reach each loop: tiny direct ones (W1's 1x16x16 among them), column
// counts that leave every vector width and a scalar tail, rows past the 4-row blocks, one
// row times a matrix, blocked products (float64), transposes and broadcast batches.
std::vector<GemmProblem> gemm_cases() {
  std::vector<GemmProblem> cases;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      cases.push_back(problem(1, 16, 16, ta, tb));
      cases.push_back(problem(3, 5, 7, ta, tb));
      cases.push_back(problem(7, 61, 9, ta, tb));
      cases.push_back(problem(13, 47, 33, ta, tb));
      cases.push_back(problem(2, 3, 2, ta, tb, {4, 1}, {1, 3}, {4, 3}));
    }
  }
  cases.push_back(problem(1, 200, 300, false, false));  // one row times a matrix
  cases.push_back(problem(1, 37, 5, true, false));
  return cases;
}

template <typename T>
void check_gemm_on_every_set(const std::vector<GemmProblem>& cases, double tolerance) {
  for (const GemmProblem& p : cases) {
    const int64_t a_size = p.a_batch.numel() * p.m * p.k, b_size = p.b_batch.numel() * p.k * p.n;
    const std::vector<T> a = random_values<T>(a_size, 1), b = random_values<T>(b_size, 2);
    const std::vector<double> want = reference_gemm(p, a, b);
    for (CpuIsa isa : {CpuIsa::kGeneric, CpuIsa::kAvx2, CpuIsa::kAvx512, CpuIsa::kAvx512Bf16}) {
      if (isa > cpu_best_isa()) continue;
      set_max_cpu_isa(isa);
      std::vector<T> c(want.size(), T(-7));
      gemm(p, a.data(), b.data(), c.data());
      for (size_t i = 0; i < c.size(); ++i) {
        ASSERT_NEAR(c[i], want[i], tolerance * (1 + std::fabs(want[i])))
            << cpu_isa_name(isa) << " m=" << p.m << " n=" << p.n << " k=" << p.k
            << " trans_a=" << p.trans_a << " trans_b=" << p.trans_b << " entry " << i;
      }
    }
  }
}

TEST_F(IsaPaths, GemmFloat32) { check_gemm_on_every_set<float>(gemm_cases(), 1e-5); }

TEST_F(IsaPaths, GemmFloat64) {
  std::vector<GemmProblem> cases = gemm_cases();
  // Past the direct limit: packed blocks, ragged panels, k past one packed block.
  for (bool ta : {false, true})
    for (bool tb : {false, true}) cases.push_back(problem(45, 70, 300, ta, tb));
  cases.push_back(problem(9, 40, 100, false, false, {3}, {3}, {3}));
  check_gemm_on_every_set<double>(cases, 1e-12);
}

// ---------------------------------------------------------------- 2x2 pooling

PoolGeometry pool_2x2(int64_t planes, int64_t h, int64_t w, bool max) {
  PoolGeometry g;
  g.planes = planes;
  g.h = h;
  g.w = w;
  g.oh = h / 2;
  g.ow = w / 2;
  g.kh = g.kw = g.sh = g.sw = 2;
  g.max = max;
  return g;
}

// Values with many ties (small integers), so that the first maximum matters.
std::vector<float> tied_values(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> u(-3, 3);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(u(rng));
  return v;
}

struct PoolResult {
  std::vector<float> y, dx;
  std::vector<int32_t> mask;
};

PoolResult run_pool(const PoolGeometry& g, const std::vector<float>& x,
                    const std::vector<float>& dy, bool with_mask) {
  PoolResult r;
  r.y.assign(g.planes * g.oh * g.ow, -99.f);
  r.dx.assign(g.planes * g.h * g.w, -99.f);
  if (with_mask) r.mask.assign(r.y.size(), -1);
  int32_t* mask = with_mask ? r.mask.data() : nullptr;
  pool_planes(g, x.data(), r.y.data(), mask);
  EXPECT_TRUE(pool_planes_grad(g, x.data(), dy.data(), mask, r.dx.data()));
  return r;
}

// Output (p, i, j) of a 2x2 window by definition: the first maximum or the mean.
void check_pool_reference(const PoolGeometry& g, const std::vector<float>& x, const PoolResult& r,
                          bool with_mask) {
  for (int64_t p = 0; p < g.planes; ++p) {
    for (int64_t i = 0; i < g.oh; ++i) {
      for (int64_t j = 0; j < g.ow; ++j) {
        const float* plane = x.data() + p * g.h * g.w;
        const int64_t cells[4] = {2 * i * g.w + 2 * j, 2 * i * g.w + 2 * j + 1,
                                  (2 * i + 1) * g.w + 2 * j, (2 * i + 1) * g.w + 2 * j + 1};
        int64_t arg = cells[0];
        for (int64_t c : cells)
          if (plane[c] > plane[arg]) arg = c;
        const int64_t o = (p * g.oh + i) * g.ow + j;
        if (g.max) {
          ASSERT_EQ(r.y[o], plane[arg]) << "output " << o;
          if (with_mask) {
            ASSERT_EQ(r.mask[o], arg) << "output " << o;
          }
        } else {
          const float mean =
              (((plane[cells[0]] + plane[cells[1]]) + plane[cells[2]]) + plane[cells[3]]) * 0.25f;
          ASSERT_EQ(r.y[o], mean) << "output " << o;
        }
      }
    }
  }
}

TEST_F(IsaPaths, Pool2x2MatchesThePortableLoopsBitForBit) {
  // Output widths 1..35 cover full vectors of 8 and 16 and every tail; odd input extents
  // leave a last row and column outside every window.
  for (int64_t ow = 1; ow <= 35; ++ow) {
    for (int64_t extra : {0, 1}) {
      for (bool max : {true, false}) {
        for (bool with_mask : {true, false}) {
          if (!max && with_mask) continue;
          const PoolGeometry g = pool_2x2(3, 2 * 3 + extra, 2 * ow + extra, max);
          const std::vector<float> x = tied_values(g.planes * g.h * g.w, ow);
          const std::vector<float> dy = random_values<float>(g.planes * g.oh * g.ow, ow + 7);
          set_max_cpu_isa(CpuIsa::kGeneric);
          const PoolResult want = run_pool(g, x, dy, with_mask);
          check_pool_reference(g, x, want, with_mask);
          for (CpuIsa isa : sets()) {
            set_max_cpu_isa(isa);
            const PoolResult got = run_pool(g, x, dy, with_mask);
            const std::string where = std::string(cpu_isa_name(isa)) + " ow=" + std::to_string(ow) +
                                      " w=" + std::to_string(g.w) + (max ? " max" : " avg") +
                                      (with_mask ? " mask" : "");
            ASSERT_EQ(got.y, want.y) << where;
            ASSERT_EQ(got.mask, want.mask) << where;
            ASSERT_EQ(got.dx, want.dx) << where;
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------- int8 finish

// int8_finish (per column and per row) and int8_finish_transposed on every set against the
// portable int8_finish (transposed): the same floats and int8 values bit for bit. The sums
// are made to land next to half-integers of the int8 grid (bias = half a step), where any
// other rounding of the quotient would show; also huge sums (clamped), and a NaN and
// infinite bias.
TEST_F(IsaPaths, Int8FinishMatchesThePortableLoopsBitForBit) {
  std::mt19937_64 rng(11);
  for (const float out_scale : {0.f, 0.1f, 1.f / 3.f, 0.0123f}) {
    for (const bool relu : {false, true}) {
      for (const bool with_bias : {false, true}) {
        for (const auto& [rows, n] : {std::pair<int64_t, int64_t>{37, 21}, {16, 16}, {50, 64}}) {
          std::vector<int32_t> acc(rows * n);
          for (int32_t& a : acc) a = static_cast<int32_t>(rng() % 401) - 200;
          acc[3] = 1 << 30;  // far past the grid
          acc[4] = -(1 << 30);
          const float step = out_scale > 0 ? out_scale : 0.25f;
          std::vector<float> scale(n, step), bias(n, 0.5f * step);
          for (int64_t j = 0; j < n; ++j) scale[j] *= 1.f + 0x1p-20f * static_cast<float>(j);
          if (with_bias && n > 5) {
            bias[1] = NAN;
            bias[2] = INFINITY;
          }
          Int8Output o;
          o.scale = scale.data();
          o.bias = with_bias ? bias.data() : nullptr;
          o.relu = relu;
          o.out_scale = out_scale;
          const size_t bytes = out_scale > 0 ? 1 : sizeof(float);
          std::vector<char> by_row(rows * n * bytes), want(rows * n * bytes);
          set_max_cpu_isa(CpuIsa::kGeneric);
          int8_finish(o, rows, n, acc.data(), by_row.data());
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < n; ++j)
              std::memcpy(&want[(j * rows + r) * bytes], &by_row[(r * n + j) * bytes], bytes);
          // The same sums finished in place, the scale and bias per row instead.
          std::vector<float> row_scale(rows, step), row_bias(rows, 0.5f * step);
          for (int64_t r = 0; r < rows; ++r) row_scale[r] *= 1.f - 0x1p-20f * static_cast<float>(r);
          if (with_bias) row_bias[rows - 1] = -INFINITY;
          Int8Output per_row = o;
          per_row.per_row = true;
          per_row.scale = row_scale.data();
          per_row.bias = with_bias ? row_bias.data() : nullptr;
          std::vector<char> want_per_row(rows * n * bytes);
          int8_finish(per_row, rows, n, acc.data(), want_per_row.data());
          for (CpuIsa isa : sets()) {
            set_max_cpu_isa(isa);
            std::vector<char> in_place(rows * n * bytes, 0x55);
            int8_finish(o, rows, n, acc.data(), in_place.data());
            ASSERT_EQ(in_place, by_row)
                << cpu_isa_name(isa) << " in place, out_scale " << out_scale;
            int8_finish(per_row, rows, n, acc.data(), in_place.data());
            ASSERT_EQ(in_place, want_per_row) << cpu_isa_name(isa) << " per row";
            std::vector<char> got(rows * n * bytes, 0x55);
            // Two calls over row ranges, as the callers split them.
            int8_finish_transposed(o, rows, n, 0, rows / 2, acc.data(), got.data());
            int8_finish_transposed(o, rows, n, rows / 2, rows, acc.data() + rows / 2 * n,
                                   got.data());
            ASSERT_EQ(got, want) << cpu_isa_name(isa) << " out_scale " << out_scale << " relu "
                                 << relu << " bias " << with_bias << " " << rows << "x" << n;
          }
        }
      }
    }
  }
}

TEST_F(IsaPaths, Int8MaxPool2x2MatchesThePortableLoops) {
  // Output widths 1..70: full vectors of 16 and 32 outputs and every tail; odd extents
  // leave a last row and column outside every window; the full int8 range, -128 and 127
  // included.
  std::mt19937_64 rng(5);
  for (int64_t ow = 1; ow <= 70; ++ow) {
    for (int64_t extra : {0, 1}) {
      const PoolGeometry g = pool_2x2(3, 2 * 2 + extra, 2 * ow + extra, /*max=*/true);
      std::vector<int8_t> x(g.planes * g.h * g.w);
      for (int8_t& v : x) v = static_cast<int8_t>(rng() % 256 - 128);
      std::vector<int8_t> want(g.planes * g.oh * g.ow);
      for (int64_t p = 0; p < g.planes; ++p)
        for (int64_t i = 0; i < g.oh; ++i)
          for (int64_t j = 0; j < g.ow; ++j) {
            const int8_t* cell = x.data() + (p * g.h + 2 * i) * g.w + 2 * j;
            want[(p * g.oh + i) * g.ow + j] =
                std::max(std::max(cell[0], cell[1]), std::max(cell[g.w], cell[g.w + 1]));
          }
      for (CpuIsa isa : sets()) {
        set_max_cpu_isa(isa);
        std::vector<int8_t> got(want.size(), 99);
        pool_planes(g, x.data(), got.data(), nullptr);
        ASSERT_EQ(got, want) << cpu_isa_name(isa) << " ow=" << ow << " w=" << g.w;
      }
    }
  }
}

// ---------------------------------------------------------------- bfloat16 rounding

TEST_F(IsaPaths, Bf16RoundingIsTheSameOnEverySet) {
  // Every class of float: normals around ties, denormals (the instruction flushes them;
  // the path must not), zeros, infinities, NaNs; lengths that leave tails.
  std::vector<uint32_t> bits;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 4000; ++i) bits.push_back(static_cast<uint32_t>(rng()));
  for (uint32_t b :
       {0x00000000u, 0x80000000u, 0x00000001u, 0x007fffffu, 0x80400000u, 0x7f800000u, 0xff800000u,
        0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x3f808000u, 0x3f818000u, 0x3f80ffffu, 0x7f7fffffu})
    for (int i = 0; i < 40; ++i) bits.push_back(b);
  std::vector<float> x(bits.size());
  std::memcpy(x.data(), bits.data(), bits.size() * sizeof(float));
  for (size_t n : {size_t{1}, size_t{31}, size_t{33}, x.size()}) {
    set_max_cpu_isa(CpuIsa::kGeneric);
    std::vector<bfloat16> want(n);
    float_to_bf16(x.data(), want.data(), static_cast<int64_t>(n));
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(want[i].bits, bfloat16(x[i]).bits) << "portable loop, value " << i;
    for (CpuIsa isa : sets()) {
      set_max_cpu_isa(isa);
      std::vector<bfloat16> got(n);
      float_to_bf16(x.data(), got.data(), static_cast<int64_t>(n));
      for (size_t i = 0; i < n; ++i) {
        const bool nan = std::isnan(x[i]);
        if (nan) {  // a quiet NaN of the same sign; the payload may differ
          ASSERT_EQ(got[i].bits & 0xffc0u, want[i].bits & 0xffc0u) << cpu_isa_name(isa) << i;
        } else {
          ASSERT_EQ(got[i].bits, want[i].bits)
              << cpu_isa_name(isa) << " value " << i << " bits " << std::hex << bits[i];
        }
      }
    }
  }
}

// ---------------------------------------------------------------- softmax rows

TEST_F(IsaPaths, SoftmaxRowsMatchAFloat64Reference) {
  // Lengths with and without a tail of the 16 lanes; logits spread over [-60, 60] (float's
  // own rounding of x - max then bounds the relative error near 1e-5), and rows with a
  // NaN (which must stay NaN).
  for (int64_t n : {1, 7, 16, 17, 100, 10000}) {
    std::vector<float> x = random_values<float>(static_cast<size_t>(n), 11 + n);
    for (float& v : x) v *= 60.0f;
    double mx = -INFINITY, sum = 0;
    for (float v : x) mx = std::max(mx, static_cast<double>(v));
    for (float v : x) sum += std::exp(v - mx);
    const double lse = mx + std::log(sum);
    for (CpuIsa isa : sets()) {
      set_max_cpu_isa(isa);
      std::vector<float> y(x.size()), logy(x.size());
      const float got_lse =
          dispatch_isa([&](auto t) { return softmax_row(t, x.data(), y.data(), n); });
      dispatch_isa([&](auto t) { log_softmax_row(t, x.data(), logy.data(), n); });
      EXPECT_NEAR(got_lse, lse, 1e-5 * std::abs(lse) + 1e-6) << cpu_isa_name(isa) << " n " << n;
      for (int64_t i = 0; i < n; ++i) {
        const double want = std::exp(x[i] - lse);
        ASSERT_NEAR(y[i], want, 1e-5 * want + 1e-30) << cpu_isa_name(isa) << " n " << n << " " << i;
        ASSERT_NEAR(logy[i], x[i] - lse, 1e-5 * std::abs(x[i] - lse) + 1e-5)
            << cpu_isa_name(isa) << " n " << n << " " << i;
      }
      std::vector<float> with_nan = x;
      with_nan[static_cast<size_t>(n / 2)] = NAN;
      {
        dispatch_isa([&](auto t) { softmax_row(t, with_nan.data(), y.data(), n); });
        EXPECT_TRUE(std::isnan(y[static_cast<size_t>(n / 2)])) << cpu_isa_name(isa) << " n " << n;
      }
    }
  }
}

}  // namespace
}  // namespace skiff::kernels
