// Training steps through the interpreter and through the same program compiled to C++ by
// `skiff compile --lib`, side by side in one process: W2 (MLP, Adam), W4 (LSTM language
// model, SGD) and W5 (sparse CTR, SGD), built by bench/workloads.h. Per workload: the
// training program and its persistable values are saved (.skmodel + .skparams) in a
// temporary folder, compiled with parameters read from the .skparams file, and the library
// is opened (dlopen). Both paths start from the same values and are fed the same batches;
// the losses of their first steps are printed and must agree. Then blocks of steps run in
// turn (interpreter first in even reps, compiled first in odd ones), two warm-up reps, and
// the median ms per step over the reps is reported as "RESULT <workload>_interpreter <ms>"
// and "RESULT <workload>_compiled <ms>" (bench/compare.py's format). The compiler's output
// goes to a temporary folder, removed at the end.
//
//   compiled_steps [--workloads w2,w4,w5] [--reps 7] [--threads 2]
#include <dlfcn.h>
#include <omp.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bench/workloads.h"
#include "skiff/codegen/codegen.h"
#include "skiff/codegen/runtime/model_api.h"
#include "skiff/core/error.h"
#include "skiff/ir/serialize.h"
#include "skiff/runtime/executor.h"
#include "skiff/runtime/persistables.h"

using namespace skiff;

namespace {

constexpr int kWarmupReps = 2;
// Steps whose losses are printed and compared before the timing.
constexpr int kCheckSteps = 4;
// The two paths' losses may differ by this much, relative (summation order of the kernels).
constexpr double kLossTolerance = 1e-4;

constexpr char kUsage[] = "usage: compiled_steps [--workloads w2,w4,w5] [--reps 7] [--threads 2]\n";

// A fresh folder under the system's temporary directory, removed with its contents when
// this goes out of scope.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix) {
    std::string name = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
    SKIFF_CHECK(mkdtemp(name.data()) != nullptr, "mkdtemp ", name, ": ", std::strerror(errno));
    path_ = name;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A compiled training program's library, opened, with one context whose parameters come
// from a .skparams file; step() runs the program once and returns its output, the loss.
class CompiledProgram {
 public:
  CompiledProgram(const std::string& library, const std::string& params_path,
                  const std::string& loss) {
    handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    SKIFF_CHECK(handle_ != nullptr, "dlopen ", library, ": ", dlerror());
    try {
      open(params_path, loss);
    } catch (...) {
      dlclose(handle_);
      throw;
    }
  }
  ~CompiledProgram() {
    destroy_(model_);
    dlclose(handle_);
  }
  CompiledProgram(const CompiledProgram&) = delete;
  CompiledProgram& operator=(const CompiledProgram&) = delete;

  // One run on the inputs held in `scope` (views of them, no copies); returns the loss.
  float step(const Scope& scope) {
    views_.clear();
    for (const std::string& name : inputs_) {
      const Variable* v = scope.find_var(name);
      SKIFF_CHECK(v != nullptr && v->tensor() != nullptr, "no input '", name, "' was fed");
      const Tensor& t = *v->tensor();
      skiff_tensor view{};
      view.dtype = static_cast<int>(t.dtype());
      view.rank = t.rank();
      for (int d = 0; d < t.rank(); ++d) view.dims[d] = t.dim(d);
      view.data = const_cast<void*>(t.raw_data());
      views_.push_back(view);
    }
    SKIFF_CHECK(run_(model_, views_.data(), outputs_.data()) == 0,
                "skiff_model_run: ", last_error_());
    const skiff_tensor& loss = outputs_[0];
    SKIFF_CHECK(loss.dtype == SKIFF_FLOAT32, "the compiled loss is not float32");
    return *static_cast<const float*>(loss.data);
  }

 private:
  template <typename Fn>
  Fn symbol(const char* name) {
    void* p = dlsym(handle_, name);
    SKIFF_CHECK(p != nullptr, "the compiled library lacks ", name);
    return reinterpret_cast<Fn>(p);
  }

  // Reads the C interface of the library and creates the context.
  void open(const std::string& params_path, const std::string& loss) {
    auto create = symbol<skiff_model* (*)(const char*)>("skiff_model_create");
    auto num_inputs = symbol<int (*)()>("skiff_model_num_inputs");
    auto input = symbol<const skiff_io* (*)(int)>("skiff_model_input");
    auto num_outputs = symbol<int (*)()>("skiff_model_num_outputs");
    auto output = symbol<const skiff_io* (*)(int)>("skiff_model_output");
    run_ = symbol<int (*)(skiff_model*, const skiff_tensor*, skiff_tensor*)>("skiff_model_run");
    destroy_ = symbol<void (*)(skiff_model*)>("skiff_model_destroy");
    last_error_ = symbol<const char* (*)()>("skiff_model_last_error");
    for (int i = 0; i < num_inputs(); ++i) inputs_.push_back(input(i)->name);
    SKIFF_CHECK(num_outputs() == 1 && output(0)->name == loss,
                "the compiled program's output is not the loss ", loss);
    outputs_.resize(1);
    model_ = create(params_path.c_str());
    SKIFF_CHECK(model_ != nullptr, "skiff_model_create: ", last_error_());
  }

  void* handle_ = nullptr;
  skiff_model* model_ = nullptr;
  int (*run_)(skiff_model*, const skiff_tensor*, skiff_tensor*) = nullptr;
  void (*destroy_)(skiff_model*) = nullptr;
  const char* (*last_error_)() = nullptr;
  std::vector<std::string> inputs_;
  std::vector<skiff_tensor> views_, outputs_;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One workload's timings: ms per step of each path per timed rep.
struct Timings {
  std::string key;
  int steps_per_block = 0;
  std::vector<double> interpreter, compiled;
};

// Builds, compiles and times one workload; throws skiff::Error when the paths disagree.
Timings measure(const std::string& key, bench::TrainingBench bench, int reps) {
  std::printf("%s\n", bench.title);
  Executor exe;
  Scope scope;
  exe.run(bench.startup, &scope);
  bench::set_params(&scope, bench.params);

  // The program with its inputs (what feed_step feeds) and the loss as its interface.
  Program program = bench.main;
  Scope probe;
  bench.feed_step(program, &probe, 0);
  program.feed_names = probe.local_names();
  std::sort(program.feed_names.begin(), program.feed_names.end());
  program.fetch_names = {bench.loss};

  TempDir dir("skiff_compiled_steps_" + key + "_");
  const std::string model_path = dir.path() + "/" + key + ".skmodel";
  const std::string params_path = dir.path() + "/" + key + ".skparams";
  save_program(program, model_path);
  save_persistables(params_path, program, scope);
  codegen::CompileOptions options;
  options.out_dir = dir.path() + "/out";
  options.shared_library = true;
  options.embed_params = false;
  options.jobs = 2;
  const auto compile_t0 = std::chrono::steady_clock::now();
  const codegen::CompiledModel built = codegen::compile_model_file(model_path, options);
  std::printf("  skiff compile --lib: %.1f s\n", seconds_since(compile_t0));
  CompiledProgram compiled(built.library, params_path, bench.loss);

  auto prepared = exe.prepare(program, {bench.loss});
  int64_t interpreter_step = 0, compiled_step = 0;
  float interpreter_loss = 0, compiled_loss = 0;
  auto run_interpreter = [&] {
    bench.feed_step(program, &scope, interpreter_step++);
    exe.run(*prepared, &scope);
    return interpreter_loss = fetch(scope, bench.loss).item<float>();
  };
  Scope inputs;
  auto run_compiled = [&] {
    bench.feed_step(program, &inputs, compiled_step++);
    return compiled_loss = compiled.step(inputs);
  };

  for (int s = 1; s <= kCheckSteps; ++s) {
    const float a = run_interpreter(), b = run_compiled();
    std::printf("  step %d loss: interpreter %.6f, compiled %.6f\n", s, a, b);
    SKIFF_CHECK(std::isfinite(a) && std::abs(a - b) <= kLossTolerance * std::max(1.0f, std::abs(a)),
                key, ": the compiled step's loss ", b, " differs from the interpreter's ", a,
                " at step ", s);
  }

  Timings t;
  t.key = key;
  t.steps_per_block = bench.steps_per_rep;
  const int n = bench.steps_per_rep;
  auto block_ms = [n](const std::function<float()>& step) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < n; ++s) step();
    return seconds_since(t0) * 1000 / n;
  };
  // The order alternates too, so that neither path always runs right after the other.
  for (int r = 0; r < kWarmupReps + reps; ++r) {
    double interpreter_ms, compiled_ms;
    if (r % 2 == 0) {
      interpreter_ms = block_ms(run_interpreter);
      compiled_ms = block_ms(run_compiled);
    } else {
      compiled_ms = block_ms(run_compiled);
      interpreter_ms = block_ms(run_interpreter);
    }
    if (r < kWarmupReps) continue;
    t.interpreter.push_back(interpreter_ms);
    t.compiled.push_back(compiled_ms);
  }
  std::printf("  loss after %lld steps: interpreter %.6f, compiled %.6f\n",
              static_cast<long long>(interpreter_step), interpreter_loss, compiled_loss);
  SKIFF_CHECK(std::isfinite(interpreter_loss) && std::isfinite(compiled_loss), key,
              ": the loss is not finite after the timed steps");
  return t;
}

struct Workload {
  const char* key;
  const char* row;
  std::function<bench::TrainingBench()> build;
};

}  // namespace

int main(int argc, char** argv) {
  std::string which = "w2,w4,w5";
  int reps = 7, threads = 2;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--workloads" && a + 1 < argc) {
      which = argv[++a];
    } else if (arg == "--reps" && a + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++a]));
    } else if (arg == "--threads" && a + 1 < argc) {
      threads = std::max(1, std::atoi(argv[++a]));
    } else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  omp_set_num_threads(threads);

  const Workload workloads[] = {
      {"w2", "W2 MLP, Adam, b64", bench::mlp_training},
      {"w4", "W4 LSTM LM, SGD", bench::lstm_lm_training},
      {"w5", "W5 sparse CTR, SGD, b512", bench::ctr_training},
  };
  std::vector<const Workload*> chosen;
  for (size_t start = 0; start <= which.size();) {
    size_t end = which.find(',', start);
    if (end == std::string::npos) end = which.size();
    const std::string key = which.substr(start, end - start);
    start = end + 1;
    if (key.empty()) continue;
    const Workload* w = nullptr;
    for (const Workload& candidate : workloads)
      if (key == candidate.key) w = &candidate;
    if (!w) {
      std::fprintf(stderr, "compiled_steps: unknown workload '%s'\n%s", key.c_str(), kUsage);
      return 2;
    }
    chosen.push_back(w);
  }

  std::vector<Timings> results;
  try {
    for (const Workload* w : chosen) results.push_back(measure(w->key, w->build(), reps));
  } catch (const Error& e) {
    std::fprintf(stderr, "compiled_steps: %s\n", e.what());
    return 1;
  }

  std::printf(
      "\nms per step, median (min) of %d reps after %d warm-up reps, %d threads; ratio: median "
      "of the reps' compiled / interpreter\n",
      reps, kWarmupReps, threads);
  std::printf("%-36s %20s %20s %12s\n", "workload", "interpreter", "compiled", "compiled/int");
  for (size_t i = 0; i < results.size(); ++i) {
    const Timings& t = results[i];
    std::vector<double> ratios;
    for (size_t r = 0; r < t.interpreter.size(); ++r)
      ratios.push_back(t.compiled[r] / t.interpreter[r]);
    const double interpreter = median(t.interpreter), compiled = median(t.compiled);
    const std::string row =
        std::string(chosen[i]->row) + " (" + std::to_string(t.steps_per_block) + "/block)";
    std::printf("%-36s %11.3f (%6.3f) %11.3f (%6.3f) %12.2f\n", row.c_str(), interpreter,
                *std::min_element(t.interpreter.begin(), t.interpreter.end()), compiled,
                *std::min_element(t.compiled.begin(), t.compiled.end()), median(ratios));
  }
  for (const Timings& t : results) {
    std::printf("RESULT %s_interpreter %.4f\n", t.key.c_str(), median(t.interpreter));
    std::printf("RESULT %s_compiled %.4f\n", t.key.c_str(), median(t.compiled));
  }
  return 0;
}
