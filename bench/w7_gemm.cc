// W7 of the reference workloads (bench/README.md): an fp32 GEMM 1024 x 1024 x 1024 on
// 2 threads, as skiff's matmul op run by the interpreter (a one-op program, prepared
// once), as oneDNN's own dnnl_sgemm called directly, and as a oneDNN matmul primitive
// made once and executed directly (what skiff's op runs, without the executor), with
// the operands bench/peers.py uses. Prints ms and GFLOP/s per product, "RESULT <name> <ms>" lines
// and the product's checksum (sum of squares) for bench/compare.py.
//
//   w7_gemm [reps=7] [--threads 2]
#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench/workloads.h"
#include "skiff/runtime/executor.h"

using namespace skiff;

namespace {

constexpr int64_t kN = 1024;
constexpr int kProductsPerRep = 5;
constexpr int kRounds = 3;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The sum of squares of the product's entries (bench/peers.py computes the same).
double checksum(const Tensor& t) {
  double s = 0;
  for (int64_t i = 0; i < t.numel(); ++i) s += double(t.data<float>()[i]) * t.data<float>()[i];
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::BenchOptions options = bench::parse_options(argc, argv);
  omp_set_num_threads(options.threads);
  try {
    const Tensor a = bench::fixed_tensor({kN, kN}, 0.5, 0.1);
    const Tensor b = bench::fixed_tensor({kN, kN}, 0.5, 1.1);

    Program prog;
    BlockBuilder builder(&prog);
    builder.data("a", DType::kF32, {kN, kN});
    builder.data("b", DType::kF32, {kN, kN});
    builder.op("matmul", {{"X", {"a"}}, {"Y", {"b"}}}, {{"Out", {"c"}}});
    Executor exe;
    Scope scope;
    feed(prog, &scope, "a", a);
    feed(prog, &scope, "b", b);
    auto prepared = exe.prepare(prog, {"c"});
    auto skiff_products = [&] {
      for (int i = 0; i < kProductsPerRep; ++i) exe.run(*prepared, &scope);
    };

    Tensor c = Tensor::empty({kN, kN}, DType::kF32);
    dnnl_status_t status = dnnl_success;
    auto sgemm_products = [&] {
      for (int i = 0; i < kProductsPerRep; ++i)
        status = dnnl_sgemm('N', 'N', kN, kN, kN, 1.0f, a.data<float>(), kN, b.data<float>(), kN,
                            0.0f, c.data<float>(), kN);
    };

    using dnnl::memory;
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(engine);
    memory::desc square({kN, kN}, memory::data_type::f32, memory::format_tag::ab);
    dnnl::matmul matmul(
        dnnl::matmul::primitive_desc(dnnl::matmul::desc(square, square, square), engine));
    Tensor c2 = Tensor::empty({kN, kN}, DType::kF32);
    memory a_mem(square, engine, const_cast<float*>(a.data<float>()));
    memory b_mem(square, engine, const_cast<float*>(b.data<float>()));
    memory c_mem(square, engine, c2.data<float>());
    auto primitive_products = [&] {
      for (int i = 0; i < kProductsPerRep; ++i)
        matmul.execute(stream,
                       {{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, b_mem}, {DNNL_ARG_DST, c_mem}});
      stream.wait();
    };

    // The three in turn for kRounds rounds (the machine's state drifts alike for all), the
    // median of each over rounds.
    std::vector<double> skiff_runs, dnnl_runs, primitive_runs;
    for (int round = 0; round < kRounds; ++round) {
      skiff_runs.push_back(bench::median_ms(options.reps, skiff_products) / kProductsPerRep);
      dnnl_runs.push_back(bench::median_ms(options.reps, sgemm_products) / kProductsPerRep);
      primitive_runs.push_back(bench::median_ms(options.reps, primitive_products) /
                               kProductsPerRep);
    }
    if (status != dnnl_success) {
      std::fprintf(stderr, "w7_gemm: dnnl_sgemm failed with status %d\n", int(status));
      return 1;
    }
    const double skiff_ms = median(skiff_runs), dnnl_ms = median(dnnl_runs),
                 primitive_ms = median(primitive_runs);
    const double skiff_sum = checksum(fetch(scope, "c"));
    const double dnnl_sum = checksum(c);
    const double primitive_sum = checksum(c2);
    const double gflop = 2.0 * kN * kN * kN * 1e-9;
    std::printf(
        "W7 fp32 GEMM %lld^3, %d threads (median over %d alternating rounds of the median of %d "
        "reps of %d products)\n",
        static_cast<long long>(kN), options.threads, kRounds, options.reps, kProductsPerRep);
    std::printf("  skiff matmul op (executor)  %8.3f ms  %6.1f GFLOP/s\n", skiff_ms,
                gflop / skiff_ms * 1e3);
    std::printf("  oneDNN dnnl_sgemm direct    %8.3f ms  %6.1f GFLOP/s\n", dnnl_ms,
                gflop / dnnl_ms * 1e3);
    std::printf("  oneDNN matmul primitive     %8.3f ms  %6.1f GFLOP/s\n", primitive_ms,
                gflop / primitive_ms * 1e3);
    std::printf("RESULT skiff %.4f\n", skiff_ms);
    std::printf("RESULT onednn_sgemm %.4f\n", dnnl_ms);
    std::printf("RESULT onednn_matmul %.4f\n", primitive_ms);
    std::printf("CHECKSUM skiff %.6f\n", skiff_sum);
    std::printf("CHECKSUM onednn_sgemm %.6f\n", dnnl_sum);
    std::printf("CHECKSUM onednn_matmul %.6f\n", primitive_sum);
    if (std::fabs(skiff_sum - dnnl_sum) > 1e-5 * dnnl_sum ||
        std::fabs(primitive_sum - dnnl_sum) > 1e-5 * dnnl_sum) {
      std::fprintf(stderr, "w7_gemm: the products differ (checksums above)\n");
      return 1;
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "w7_gemm: %s\n", e.what());
    return 1;
  }
  return 0;
}
