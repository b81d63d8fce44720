// What one op costs the executor beyond its kernel's work: a prepared block of N
// one-element `scale` ops, run many times, reported as ns per op, next to the same op
// run through its registered kernel function and through the bare kernel.
//
//   op_dispatch --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/kernels/cpu/elementwise.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/runtime/executor.h"

namespace {

using skiff::BlockBuilder;
using skiff::DType;
using skiff::Program;
using skiff::Tensor;

// A block of `n` chained one-element scale ops: a -> t1 -> ... -> tn. Returns the
// names of every variable it writes.
std::vector<std::string> build_chain(Program* prog, int n) {
  BlockBuilder b(prog);
  b.persistable("a", DType::kF32, {1});
  std::vector<std::string> names;
  std::string cur = "a";
  for (int k = 0; k < n; ++k) {
    cur = b.apply("scale", {{"X", {cur}}}, {{"scale", 1.0}, {"bias", 0.0}});
    names.push_back(cur);
  }
  return names;
}

void set_per_op_counter(benchmark::State& state, int64_t ops_per_iteration) {
  // CPU seconds per op, printed with an SI prefix ("76.6n" is 76.6 ns).
  state.counters["per_op"] =
      benchmark::Counter(static_cast<double>(state.iterations() * ops_per_iteration),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The executor on a top-level block: temporaries are freed after their last use, so
// each run also reallocates every intermediate (what a one-shot inference pays).
void BM_ExecutorFreedTemporaries(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Program prog;
  build_chain(&prog, n);
  skiff::Executor exe;
  skiff::Scope scope;
  scope.var("a")->set(Tensor::from_vector<float>({1}, {1.0f}));
  auto prepared = exe.prepare(prog);
  for (auto _ : state) exe.run(*prepared, &scope);
  set_per_op_counter(state, n);
}
BENCHMARK(BM_ExecutorFreedTemporaries)->Arg(16)->Arg(256);

// The executor with every intermediate kept: buffers are reused run after run (what a
// loop body or a training step pays per op).
void BM_ExecutorKeptBuffers(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Program prog;
  std::vector<std::string> names = build_chain(&prog, n);
  skiff::Executor exe;
  skiff::Scope scope;
  scope.var("a")->set(Tensor::from_vector<float>({1}, {1.0f}));
  auto prepared = exe.prepare(prog, names);
  for (auto _ : state) exe.run(*prepared, &scope);
  set_per_op_counter(state, n);
}
BENCHMARK(BM_ExecutorKeptBuffers)->Arg(16)->Arg(256);

// Ops inside a `while` body: `n` scale ops plus the loop's increment and less_than,
// 1000 steps per run (what W1 pays per op).
void BM_WhileBody(benchmark::State& state) {
  using Ints = std::vector<int64_t>;
  const int n = static_cast<int>(state.range(0));
  constexpr int64_t kSteps = 1000;
  Program prog;
  BlockBuilder b(&prog);
  b.persistable("a", DType::kF32, {1});
  b.op("fill_constant", {}, {{"Out", {"i"}}},
       {{"shape", Ints{1}}, {"value", 0.0}, {"dtype", std::string("int64")}});
  b.op("fill_constant", {}, {{"Out", {"steps"}}},
       {{"shape", Ints{1}},
        {"value", static_cast<double>(kSteps)},
        {"dtype", std::string("int64")}});
  b.op("less_than", {{"X", {"i"}}, {"Y", {"steps"}}}, {{"Out", {"cond"}}});
  b.while_loop("cond", [&](BlockBuilder& body) {
    std::string cur = "a";
    for (int k = 0; k < n; ++k)
      cur = body.apply("scale", {{"X", {cur}}}, {{"scale", 1.0}, {"bias", 0.0}});
    body.op("increment", {{"X", {"i"}}}, {{"Out", {"i"}}}, {{"step", 1.0}});
    body.op("less_than", {{"X", {"i"}}, {"Y", {"steps"}}}, {{"Out", {"cond"}}});
  });
  skiff::Executor exe;
  skiff::Scope scope;
  scope.var("a")->set(Tensor::from_vector<float>({1}, {1.0f}));
  auto prepared = exe.prepare(prog);
  for (auto _ : state) exe.run(*prepared, &scope);
  set_per_op_counter(state, kSteps * (n + 2));
}
BENCHMARK(BM_WhileBody)->Arg(4)->Arg(16);

// The registered kernel function of `scale` on a hand-bound context: slot lookup by
// name, attribute reads and the kernel, without the executor's loop.
void BM_RegisteredKernel(benchmark::State& state) {
  const skiff::OpInfo& info = skiff::OpRegistry::global().get("scale");
  skiff::KernelFn fn = info.find_kernel(skiff::cpu_place(), DType::kF32);
  skiff::OpDesc op("scale");
  op.set_input("X", {"a"}).set_output("Out", {"b"});
  op.set_attr("scale", 1.0);
  skiff::fill_default_attrs(op);
  skiff::Variable a, b;
  a.set(Tensor::from_vector<float>({1}, {1.0f}));
  skiff::KernelContext ctx(&op);
  ctx.inputs = {{&a}};
  ctx.outputs = {{&b}};
  for (auto _ : state) {
    fn(ctx);
    benchmark::DoNotOptimize(b.tensor());
  }
  set_per_op_counter(state, 1);
}
BENCHMARK(BM_RegisteredKernel);

// The bare kernel function (kernels::scale) on preallocated tensors.
void BM_BareKernel(benchmark::State& state) {
  Tensor x = Tensor::from_vector<float>({1}, {1.0f});
  Tensor out = Tensor::zeros({1}, DType::kF32);
  for (auto _ : state) {
    skiff::kernels::scale(x, 1.0, 0.0, true, &out);
    benchmark::DoNotOptimize(out.raw_data());
  }
  set_per_op_counter(state, 1);
}
BENCHMARK(BM_BareKernel);

// The floor: one multiply-add on a float in memory.
void BM_InlineArithmetic(benchmark::State& state) {
  float x = 1.0f, out = 0.0f;
  for (auto _ : state) {
    benchmark::DoNotOptimize(x);
    out = 1.0f * x + 0.0f;
    benchmark::DoNotOptimize(out);
  }
  set_per_op_counter(state, 1);
}
BENCHMARK(BM_InlineArithmetic);

}  // namespace

BENCHMARK_MAIN();
