// W6 of the reference workloads (bench/README.md): MLP inference latency at batch 1, W2's
// network 784-512-512-10 with its fixed parameters. Times one call of the program run by
// the interpreter (prepared once), one call of the program compiled by `skiff compile --lib`
// (through the generated library's C interface), and the cold start of the compiled
// executable (process start to its output file written: `model --in x=x.npy --out DIR`),
// checks that all give the same logits, and prints "RESULT <name> <ms>" lines.
//
//   w6_infer [reps=7] [--threads 2]
#include <dlfcn.h>
#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "bench/workloads.h"
#include "skiff/codegen/codegen.h"
#include "skiff/codegen/runtime/model_api.h"
#include "skiff/formats/npy.h"
#include "skiff/formats/params_file.h"
#include "skiff/ir/serialize.h"
#include "skiff/runtime/executor.h"

using namespace skiff;

namespace {

constexpr int kCallsPerRep = 2000;
constexpr int kColdStarts = 15;

// Milliseconds of one run of `argv` as a new process (fork, exec, wait).
double process_ms(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  SKIFF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, args[0], " failed");
  return ms;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  double d = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    d = std::max(d, std::fabs(double(a.data<float>()[i]) - b.data<float>()[i]));
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::BenchOptions options = bench::parse_options(argc, argv);
  omp_set_num_threads(options.threads);
  try {
    Program program;
    const std::string logits = bench::mlp_inference_program(&program);
    const Tensor x = bench::image_batch({1, 784});

    // The interpreter.
    Scope scope;
    for (const bench::ParamValue& p : bench::mlp_params()) scope.var(p.name)->set(p.value.clone());
    Executor exe;
    auto prepared = exe.prepare(program, {logits});
    const double interp_ms = bench::median_ms(options.reps,
                                              [&] {
                                                for (int c = 0; c < kCallsPerRep; ++c) {
                                                  feed(program, &scope, "x", x);
                                                  exe.run(*prepared, &scope);
                                                }
                                              }) /
                             kCallsPerRep;
    const Tensor interp_out = fetch(scope, logits).clone();

    // The compiled library and executable.
    const std::string dir = (std::filesystem::temp_directory_path() / "skiff_w6_compiled").string();
    std::filesystem::create_directories(dir);
    save_program(program, dir + "/w6.skmodel");
    NamedTensors params;
    for (const bench::ParamValue& p : bench::mlp_params()) params.push_back({p.name, p.value});
    save_params(dir + "/w6.skparams", params);
    codegen::CompileOptions o;
    o.out_dir = dir + "/out";
    o.shared_library = true;
    const auto build_t0 = std::chrono::steady_clock::now();
    const codegen::CompiledModel compiled = codegen::compile_model_file(dir + "/w6.skmodel", o);
    const double build_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - build_t0).count();
    void* lib = dlopen(compiled.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    SKIFF_CHECK(lib, "dlopen: ", dlerror());
    auto create = reinterpret_cast<skiff_model* (*)(const char*)>(dlsym(lib, "skiff_model_create"));
    auto run = reinterpret_cast<int (*)(skiff_model*, const skiff_tensor*, skiff_tensor*)>(
        dlsym(lib, "skiff_model_run"));
    skiff_model* model = create(nullptr);
    SKIFF_CHECK(model, "skiff_model_create failed");
    skiff_tensor in{};
    in.dtype = SKIFF_FLOAT32;
    in.rank = 2;
    in.dims[0] = 1;
    in.dims[1] = 784;
    in.data = const_cast<float*>(x.data<float>());
    skiff_tensor out{};
    const double compiled_ms =
        bench::median_ms(options.reps,
                         [&] {
                           for (int c = 0; c < kCallsPerRep; ++c)
                             SKIFF_CHECK(run(model, &in, &out) == 0, "run failed");
                         }) /
        kCallsPerRep;
    const Tensor compiled_out = Tensor::from_vector<float>(
        {1, 10},
        std::vector<float>(static_cast<float*>(out.data), static_cast<float*>(out.data) + 10));

    write_npy(dir + "/x.npy", x);
    std::vector<double> cold;
    for (int r = 0; r < kColdStarts; ++r) {
      cold.push_back(process_ms(
          {compiled.executable, "--in", "x=" + dir + "/x.npy", "--out", dir + "/result"}));
    }
    std::sort(cold.begin(), cold.end());
    const Tensor exe_out = read_npy(dir + "/result/" + logits + ".npy");

    const double diff =
        std::max(max_abs_diff(interp_out, compiled_out), max_abs_diff(interp_out, exe_out));
    double checksum = 0;
    for (int i = 0; i < 10; ++i) checksum += interp_out.data<float>()[i];
    std::printf("W6 MLP 784-512-512-10 inference, batch 1, %d threads (median of %d reps)\n",
                options.threads, options.reps);
    std::printf("  skiff interpreter, per call           %9.4f ms\n", interp_ms);
    std::printf("  skiff compiled (--lib), per call      %9.4f ms\n", compiled_ms);
    std::printf("  compiled executable, cold start       %9.3f ms (median of %d processes)\n",
                cold[cold.size() / 2], kColdStarts);
    std::printf("  skiff compile (generate + g++)        %9.1f s\n", build_s);
    std::printf("  logits checksum %.6f, max |diff| %.2e\n", checksum, diff);
    std::printf("RESULT skiff_interpreter %.5f\n", interp_ms);
    std::printf("RESULT skiff_compiled %.5f\n", compiled_ms);
    std::printf("RESULT skiff_compiled_cold_start %.4f\n", cold[cold.size() / 2]);
    std::printf("CHECKSUM %.6f\n", checksum);
    if (!(diff <= 1e-5)) {
      std::fprintf(stderr, "w6_infer: compiled logits differ from the interpreter's by %.3e\n",
                   diff);
      return 1;
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "w6_infer: %s\n", e.what());
    return 1;
  }
}
