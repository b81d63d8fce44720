// bfloat16 vs float32 GEMM 1024 x 1024 x 1024 on 2 threads, as skiff's matmul op run by
// the interpreter (one-op programs, prepared once): float32 operands, bfloat16 operands
// with a bfloat16 result, and bfloat16 operands with a float32 result (out_dtype). Both
// bfloat16 runs are oneDNN's bf16 matmul with float32 accumulation. Prints ms and GFLOP/s
// per product, "RESULT <name> <ms>" lines, and each product's error on sampled entries
// against the exact (float64) product of the operands it was given, relative to the
// largest such entry.
//
//   bf16_gemm [reps=7] [--threads 2]
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "bench/workloads.h"
#include "skiff/runtime/executor.h"

using namespace skiff;

namespace {

constexpr int64_t kN = 1024;
constexpr int kProductsPerRep = 5;

struct Run {
  const char* name;
  DType operands;
  std::string out_dtype;
};

// A float32 view of a float32 or bfloat16 tensor's element i.
double value_at(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kBF16 ? static_cast<float>(t.data<bfloat16>()[i]) : t.data<float>()[i];
}

// max |c - x·y| / max |x·y| over a grid of sampled entries, x·y exact (float64) from the
// operands the product was given.
double sampled_error(const Tensor& x, const Tensor& y, const Tensor& c) {
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < kN; i += 31) {
    for (int64_t j = 0; j < kN; j += 37) {
      double exact = 0;
      for (int64_t k = 0; k < kN; ++k) exact += value_at(x, i * kN + k) * value_at(y, k * kN + j);
      diff = std::max(diff, std::fabs(value_at(c, i * kN + j) - exact));
      scale = std::max(scale, std::fabs(exact));
    }
  }
  return diff / scale;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::BenchOptions options = bench::parse_options(argc, argv);
  omp_set_num_threads(options.threads);
  try {
    const Tensor a = bench::fixed_tensor({kN, kN}, 0.5, 0.1);
    const Tensor b = bench::fixed_tensor({kN, kN}, 0.5, 1.1);
    const Run runs[] = {{"f32", DType::kF32, ""},
                        {"bf16", DType::kBF16, ""},
                        {"bf16_to_f32", DType::kBF16, "float32"}};
    const double gflop = 2.0 * kN * kN * kN * 1e-9;
    std::printf("GEMM %lld^3, %d threads (median of %d reps of %d products)\n",
                static_cast<long long>(kN), options.threads, options.reps, kProductsPerRep);
    for (const Run& run : runs) {
      Program prog;
      BlockBuilder builder(&prog);
      builder.data("a", DType::kF32, {kN, kN});
      builder.data("b", DType::kF32, {kN, kN});
      std::string x = "a", y = "b";
      if (run.operands == DType::kBF16) {
        // The casts run once, outside the timed program.
        x = builder.apply("cast", {{"X", {x}}}, {{"out_dtype", std::string("bfloat16")}});
        y = builder.apply("cast", {{"X", {y}}}, {{"out_dtype", std::string("bfloat16")}});
      }
      Program product;
      BlockBuilder pb(&product);
      pb.data(x, run.operands, {kN, kN});
      pb.data(y, run.operands, {kN, kN});
      pb.op("matmul", {{"X", {x}}, {"Y", {y}}}, {{"Out", {"c"}}}, {{"out_dtype", run.out_dtype}});
      Executor exe;
      Scope scope;
      const std::vector<Tensor> operands = exe.run(prog, &scope, {{"a", a}, {"b", b}}, {x, y});
      feed(product, &scope, x, operands[0]);
      feed(product, &scope, y, operands[1]);
      auto prepared = exe.prepare(product, {"c"});
      const double ms = bench::median_ms(options.reps,
                                         [&] {
                                           for (int i = 0; i < kProductsPerRep; ++i)
                                             exe.run(*prepared, &scope);
                                         }) /
                        kProductsPerRep;
      const Tensor c = fetch(scope, "c");
      std::printf("  skiff matmul %-12s %8.3f ms  %6.1f GFLOP/s  sampled rel. error %.1e\n",
                  run.name, ms, gflop / ms * 1e3, sampled_error(operands[0], operands[1], c));
      std::printf("RESULT %s %.4f\n", run.name, ms);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "bf16_gemm: %s\n", e.what());
    return 1;
  }
  return 0;
}
