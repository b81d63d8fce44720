// What the codegen tests share: small programs with parameters, a scratch folder per test,
// running a compiled executable on .npy inputs, and opening a compiled libmodel.so.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "skiff/codegen/codegen.h"
#include "skiff/codegen/runtime/model_api.h"
#include "skiff/formats/npy.h"
#include "skiff/formats/params_file.h"
#include "skiff/ir/serialize.h"
#include "skiff/runtime/executor.h"
#include "skiff/runtime/scope.h"

namespace skiff::testing {

// A fresh folder under the system temp folder, named after the running test and process
// (ctest runs a test alone and again within its whole binary, at the same time).
inline std::string scratch_dir(const std::string& suffix = "") {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string("skiff_codegen_") + info->test_suite_name() + "_" + info->name() +
                     "_" + std::to_string(::getpid());
  for (char& c : name)
    if (c == '/') c = '_';
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / (name + suffix);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// A program and the values of its parameters.
struct ModelWithParams {
  Program program;
  std::vector<std::pair<std::string, Tensor>> params;
};

// Writes dir/model.skmodel and dir/model.skparams; returns the .skmodel path.
inline std::string save_model(const ModelWithParams& m, const std::string& dir) {
  save_program(m.program, dir + "/model.skmodel");
  save_params(dir + "/model.skparams", m.params);
  return dir + "/model.skmodel";
}

// Runs the program in the interpreter: parameters and feeds in, fetches out.
inline std::map<std::string, Tensor> interpret(const ModelWithParams& m,
                                               const std::map<std::string, Tensor>& feeds,
                                               const std::vector<std::string>& fetches) {
  Scope scope;
  for (const auto& [name, value] : m.params) scope.var(name)->set(value.clone());
  Executor exe;
  std::vector<Tensor> values = exe.run(m.program, &scope, feeds, fetches);
  std::map<std::string, Tensor> out;
  for (size_t i = 0; i < fetches.size(); ++i) out[fetches[i]] = values[i];
  return out;
}

// Runs `command`; returns its exit status and puts its output (stdout and stderr) in `output`.
inline int run_command(const std::string& command, std::string* output) {
  // One log per process: test binaries run in parallel under ctest -j.
  const std::string log = std::filesystem::temp_directory_path() /
                          ("skiff_codegen_command_" + std::to_string(::getpid()) + ".log");
  const int status = std::system((command + " > '" + log + "' 2>&1").c_str());
  std::ifstream f(log);
  output->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return status;
}

// Runs a compiled executable (through `runner`, e.g. qemu-aarch64, when not "") on the
// feeds and reads back one tensor per output name.
inline std::map<std::string, Tensor> run_executable(const std::string& executable,
                                                    const std::map<std::string, Tensor>& feeds,
                                                    const std::vector<std::string>& outputs,
                                                    const std::string& runner = "") {
  const std::string dir = std::filesystem::path(executable).parent_path() / "run";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string command = (runner.empty() ? "" : runner + " ") + executable;
  for (const auto& [name, value] : feeds) {
    write_npy(dir + "/in_" + name + ".npy", value);
    command += " --in " + name + "=" + dir + "/in_" + name + ".npy";
  }
  command += " --out " + dir + "/out";
  std::string output;
  const int status = run_command(command, &output);
  EXPECT_EQ(status, 0) << command << "\n" << output;
  std::map<std::string, Tensor> out;
  for (const std::string& name : outputs) out[name] = read_npy(dir + "/out/" + name + ".npy");
  return out;
}

// The C interface of a compiled libmodel.so, opened with dlopen.
struct ModelLibrary {
  void* handle = nullptr;
  skiff_model* (*create)(const char*) = nullptr;
  int (*run)(skiff_model*, const skiff_tensor*, skiff_tensor*) = nullptr;
  int (*variable)(skiff_model*, const char*, skiff_tensor*) = nullptr;
  void (*destroy)(skiff_model*) = nullptr;
  const char* (*last_error)() = nullptr;
  int (*num_inputs)() = nullptr;
  const skiff_io* (*input)(int) = nullptr;
  int (*num_outputs)() = nullptr;
  const skiff_io* (*output)(int) = nullptr;

  explicit ModelLibrary(const std::string& path) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw Error(std::string("dlopen: ") + dlerror());
    bind(&create, "skiff_model_create");
    bind(&run, "skiff_model_run");
    bind(&variable, "skiff_model_variable");
    bind(&destroy, "skiff_model_destroy");
    bind(&last_error, "skiff_model_last_error");
    bind(&num_inputs, "skiff_model_num_inputs");
    bind(&input, "skiff_model_input");
    bind(&num_outputs, "skiff_model_num_outputs");
    bind(&output, "skiff_model_output");
  }
  ~ModelLibrary() {
    if (handle) dlclose(handle);
  }
  ModelLibrary(const ModelLibrary&) = delete;
  ModelLibrary& operator=(const ModelLibrary&) = delete;

  template <typename Fn>
  void bind(Fn* fn, const char* name) {
    *fn = reinterpret_cast<Fn>(dlsym(handle, name));
    if (!*fn) throw Error(std::string("dlsym ") + name + " failed");
  }
};

// A skiff_tensor view of `t` (which must outlive it).
inline skiff_tensor c_tensor(const Tensor& t) {
  skiff_tensor c{};
  c.dtype = static_cast<int>(t.dtype());
  c.rank = t.rank();
  for (int d = 0; d < t.rank(); ++d) c.dims[d] = t.dim(d);
  c.data = const_cast<void*>(t.raw_data());
  return c;
}

// A Tensor copy of a skiff_tensor view.
inline Tensor from_c_tensor(const skiff_tensor& c) {
  Shape shape;
  for (int d = 0; d < c.rank; ++d) shape.push_back(c.dims[d]);
  Tensor t = Tensor::empty(shape, static_cast<DType>(c.dtype));
  if (t.nbytes() > 0) std::memcpy(t.raw_data(), c.data, t.nbytes());
  return t;
}

}  // namespace skiff::testing
