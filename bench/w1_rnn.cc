// W1 of the reference workloads (bench/README.md): a tiny RNN with control flow outside any host
// language, `while i < steps: h = tanh(x @ W + h); i += 1`, x [1,16], W [16,16],
// fp32, 10k steps. Times the program run by the interpreter (prepared once, run many
// times), the same program compiled to C++ by `skiff compile --lib` (run through the
// generated library's C interface) and a hand-written vectorised C++ loop (the limit),
// checks that all give the same h, and prints "RESULT <name> <ms>" lines for
// bench/compare.py.
//
//   w1_rnn [reps=7] [steps=10000] [cpu=x86-64-v3]   (cpu: skiff compile --cpu)
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "skiff/kernels/cpu/eigen.h"

#include "skiff/api/builder.h"
#include "skiff/codegen/codegen.h"
#include "skiff/codegen/runtime/model_api.h"
#include "skiff/formats/params_file.h"
#include "skiff/ir/serialize.h"
#include "skiff/runtime/executor.h"

namespace {

using skiff::BlockBuilder;
using skiff::DType;
using skiff::Program;
using skiff::Tensor;

constexpr int kDim = 16;

// Fixed values, computed the same way by bench/w1_peers.py (double, then rounded to
// float32): x[j] = 0.5 sin(0.7 j + 0.3), W[r][c] = 0.25 cos(1.3 r + 0.4 c + 0.1).
std::vector<float> x_values() {
  std::vector<float> x(kDim);
  for (int j = 0; j < kDim; ++j) x[j] = static_cast<float>(0.5 * std::sin(0.7 * j + 0.3));
  return x;
}

std::vector<float> w_values() {
  std::vector<float> w(kDim * kDim);
  for (int r = 0; r < kDim; ++r)
    for (int c = 0; c < kDim; ++c)
      w[r * kDim + c] = static_cast<float>(0.25 * std::cos(1.3 * r + 0.4 * c + 0.1));
  return w;
}

// The W1 program: h, i and steps are (re)initialized by the program itself, so every
// run does the same 10k steps from h = 0.
Program build_w1(int64_t steps) {
  using Ints = std::vector<int64_t>;
  Program prog;
  BlockBuilder b(&prog);
  b.persistable("x", DType::kF32, {1, kDim});
  b.persistable("W", DType::kF32, {kDim, kDim});
  b.op("fill_constant", {}, {{"Out", {"h"}}},
       {{"shape", Ints{1, kDim}}, {"value", 0.0}, {"dtype", std::string("float32")}});
  b.op("fill_constant", {}, {{"Out", {"i"}}},
       {{"shape", Ints{1}}, {"value", 0.0}, {"dtype", std::string("int64")}});
  b.op(
      "fill_constant", {}, {{"Out", {"steps"}}},
      {{"shape", Ints{1}}, {"value", static_cast<double>(steps)}, {"dtype", std::string("int64")}});
  b.op("less_than", {{"X", {"i"}}, {"Y", {"steps"}}}, {{"Out", {"cond"}}});
  b.while_loop("cond", [](BlockBuilder& body) {
    std::string xw = body.apply("matmul", {{"X", {"x"}}, {"Y", {"W"}}},
                                {{"trans_x", false}, {"trans_y", false}});
    std::string pre = body.apply("elementwise_add", {{"X", {xw}}, {"Y", {"h"}}});
    std::string next = body.apply("tanh", {{"X", {pre}}});
    body.assign(next, "h");
    body.op("increment", {{"X", {"i"}}}, {{"Out", {"i"}}}, {{"step", 1.0}});
    body.op("less_than", {{"X", {"i"}}, {"Y", {"steps"}}}, {{"Out", {"cond"}}});
  });
  return prog;
}

// The same recurrence written by hand: fixed-size Eigen (one AVX-512 register per
// row, vectorised tanh). The empty asm makes the compiler reload x and W each step,
// so x @ W is not hoisted out of the loop.
std::vector<float> handwritten_w1(const std::vector<float>& xv, const std::vector<float>& wv,
                                  int64_t steps) {
  using Row = Eigen::Matrix<float, 1, kDim>;
  using Mat = Eigen::Matrix<float, kDim, kDim, Eigen::RowMajor>;
  Row x = Eigen::Map<const Row>(xv.data());
  Mat w = Eigen::Map<const Mat>(wv.data());
  Row h = Row::Zero();
  for (int64_t i = 0; i < steps; ++i) {
    asm volatile("" : : "r"(x.data()), "r"(w.data()) : "memory");
    h = (x * w + h).array().tanh().matrix();
  }
  return std::vector<float>(h.data(), h.data() + kDim);
}

// The W1 program compiled by `skiff compile --lib` into a temporary folder and opened:
// run() calls the generated skiff_model_run once (all the steps) and returns h.
class CompiledW1 {
 public:
  CompiledW1(const Program& prog, const std::vector<float>& xv, const std::vector<float>& wv,
             const std::string& cpu) {
    dir_ = (std::filesystem::temp_directory_path() / "skiff_w1_compiled").string();
    std::filesystem::create_directories(dir_);
    skiff::save_program(prog, dir_ + "/w1.skmodel");
    skiff::save_params(dir_ + "/w1.skparams",
                       {{"x", Tensor::from_vector<float>({1, kDim}, xv)},
                        {"W", Tensor::from_vector<float>({kDim, kDim}, wv)}});
    skiff::codegen::CompileOptions o;
    o.out_dir = dir_ + "/out";
    o.shared_library = true;
    o.fetches = {"h"};
    o.cpu = cpu;
    const std::string lib = skiff::codegen::compile_model_file(dir_ + "/w1.skmodel", o).library;
    handle_ = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    SKIFF_CHECK(handle_, "dlopen ", lib, ": ", dlerror());
    auto create =
        reinterpret_cast<skiff_model* (*)(const char*)>(dlsym(handle_, "skiff_model_create"));
    run_ = reinterpret_cast<int (*)(skiff_model*, const skiff_tensor*, skiff_tensor*)>(
        dlsym(handle_, "skiff_model_run"));
    destroy_ = reinterpret_cast<void (*)(skiff_model*)>(dlsym(handle_, "skiff_model_destroy"));
    SKIFF_CHECK(create && run_ && destroy_, "the compiled W1 lacks its C interface");
    model_ = create(nullptr);
    SKIFF_CHECK(model_, "skiff_model_create failed");
  }
  ~CompiledW1() {
    destroy_(model_);
    dlclose(handle_);
  }
  std::vector<float> run() {
    skiff_tensor h;
    SKIFF_CHECK(run_(model_, nullptr, &h) == 0, "skiff_model_run failed");
    const float* p = static_cast<const float*>(h.data);
    return std::vector<float>(p, p + kDim);
  }

 private:
  std::string dir_;
  void* handle_ = nullptr;
  skiff_model* model_ = nullptr;
  int (*run_)(skiff_model*, const skiff_tensor*, skiff_tensor*) = nullptr;
  void (*destroy_)(skiff_model*) = nullptr;
};

// Median milliseconds of `reps` timed calls after two warm-up calls.
double median_ms(int reps, const std::function<void()>& fn) {
  fn();
  fn();
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

double checksum(const std::vector<float>& h) {
  double s = 0;
  for (float v : h) s += v;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(5, std::atoi(argv[1])) : 7;
  const int64_t steps = argc > 2 ? std::atoll(argv[2]) : 10000;
  const std::string cpu = argc > 3 ? argv[3] : "";  // "": the compiler's default
  const double per_10k = 10000.0 / static_cast<double>(steps);
  omp_set_num_threads(2);

  const std::vector<float> xv = x_values(), wv = w_values();
  Program prog = build_w1(steps);
  skiff::Executor exe;
  skiff::Scope scope;
  scope.var("x")->set(Tensor::from_vector<float>({1, kDim}, xv));
  scope.var("W")->set(Tensor::from_vector<float>({kDim, kDim}, wv));
  auto prepared = exe.prepare(prog, {"h"});

  const double interp_ms = median_ms(reps, [&] { exe.run(*prepared, &scope); }) * per_10k;
  std::vector<float> h = skiff::fetch(scope, "h").to_vector<float>();

  CompiledW1 compiled(prog, xv, wv, cpu);
  std::vector<float> hc;
  const double compiled_ms = median_ms(reps, [&] { hc = compiled.run(); }) * per_10k;

  std::vector<float> ref;
  const double hand_ms = median_ms(reps, [&] { ref = handwritten_w1(xv, wv, steps); }) * per_10k;

  double max_diff = 0;
  for (int j = 0; j < kDim; ++j) {
    max_diff = std::max(max_diff, std::fabs(double(h[j]) - ref[j]));
    max_diff = std::max(max_diff, std::fabs(double(hc[j]) - ref[j]));
  }
  std::printf("W1 tiny RNN, %lld steps, %d reps (median, ms per 10k steps)\n",
              static_cast<long long>(steps), reps);
  std::printf("  skiff interpreter (while op)  %9.3f ms\n", interp_ms);
  std::printf("  skiff compiled (C++)          %9.3f ms\n", compiled_ms);
  std::printf("  hand-written C++ loop         %9.3f ms\n", hand_ms);
  std::printf("  interpreter / compiled        %9.1fx\n", interp_ms / compiled_ms);
  std::printf("  compiled / hand-written       %9.2fx\n", compiled_ms / hand_ms);
  std::printf("  h checksum: skiff %.6f, hand-written %.6f, max |diff| %.2e\n", checksum(h),
              checksum(ref), max_diff);
  std::printf("RESULT skiff_interpreter %.4f\n", interp_ms);
  std::printf("RESULT skiff_compiled %.4f\n", compiled_ms);
  std::printf("RESULT handwritten_cpp %.4f\n", hand_ms);
  std::printf("CHECKSUM %.6f\n", checksum(h));
  if (!(max_diff <= 1e-4)) {
    std::fprintf(stderr, "W1: skiff's h differs from the hand-written loop by %.3e\n", max_diff);
    return 1;
  }
  return 0;
}
