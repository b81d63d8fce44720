// The command line of a model compiled by `skiff compile`: reads the inputs from .npy
// files, runs the model through its C interface (model_api.h) and writes one .npy file
// per output.
//
//   model --in x=x.npy --out results/          # writes results/<output>.npy
//   model --help                               # the inputs and outputs
#include <omp.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "skiff/codegen/runtime/model_api.h"
#include "skiff/core/error.h"
#include "skiff/formats/npy.h"

namespace {

std::string io_str(const skiff_io& io) {
  std::string s =
      std::string(io.name) + "  " + skiff::dtype_name(static_cast<skiff::DType>(io.dtype)) + "[";
  for (int d = 0; d < io.rank; ++d) {
    s += (d ? ", " : "") + (io.dims[d] < 0 ? std::string("?") : std::to_string(io.dims[d]));
  }
  return s + "]";
}

void print_help(const char* program) {
  std::printf(
      "usage: %s [--in NAME=FILE.npy]... [--out DIR] [--params FILE.skparams] [--repeat N]\n"
      "       [--threads N]\n\n"
      "Runs the compiled model once (N times with --repeat, printing the median time per run)\n"
      "and writes DIR/NAME.npy for each output (DIR defaults to the current folder).\n"
      "--threads N caps the kernels' threads (default: OpenMP's, one per CPU).\n\n"
      "inputs:\n",
      program);
  for (int i = 0; i < skiff_model_num_inputs(); ++i)
    std::printf("  %s\n", io_str(*skiff_model_input(i)).c_str());
  if (skiff_model_num_inputs() == 0) std::printf("  (none)\n");
  std::printf("outputs:\n");
  for (int i = 0; i < skiff_model_num_outputs(); ++i)
    std::printf("  %s\n", io_str(*skiff_model_output(i)).c_str());
  std::printf("parameters: %s\n", skiff_model_params_embedded()
                                      ? "embedded"
                                      : "read from --params (default: model.skparams beside "
                                        "the executable)");
  // Printed only where the model runs: on another CPU it stops before main.
  std::printf("compiled for CPU: %s (features:%s)\n", skiff_model_cpu(),
              *skiff_model_cpu_features() ? skiff_model_cpu_features() : " none beyond the base");
  std::printf(
      "\nexit status: 0 done, 1 an error (the message says which), 3 this CPU lacks a\n"
      "feature the model was compiled for (skiff compile --cpu).\n");
}

struct Options {
  std::vector<std::pair<std::string, std::string>> inputs;  // name, .npy path
  std::string out_dir = ".";
  std::string params;
  int repeat = 1;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    SKIFF_CHECK(i + 1 < argc, "option ", arg, " needs a value (see --help)");
    const std::string value = argv[++i];
    if (arg == "--in") {
      const size_t eq = value.find('=');
      SKIFF_CHECK(eq != std::string::npos && eq > 0, "--in takes NAME=FILE.npy, got '", value, "'");
      o.inputs.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (arg == "--out") {
      o.out_dir = value;
    } else if (arg == "--params") {
      o.params = value;
    } else if (arg == "--repeat") {
      o.repeat = std::max(1, std::atoi(value.c_str()));
    } else if (arg == "--threads") {
      omp_set_num_threads(std::max(1, std::atoi(value.c_str())));
    } else {
      skiff::fail("unknown option '", arg, "' (see --help)");
    }
  }
  return o;
}

std::string beside_executable(const char* argv0, const char* file) {
  const std::string self = argv0;
  const size_t slash = self.rfind('/');
  return (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) + "/" + file;
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::vector<skiff::Tensor> values(skiff_model_num_inputs());
  std::vector<skiff_tensor> inputs(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const skiff_io& io = *skiff_model_input(static_cast<int>(i));
    auto it = std::find_if(o.inputs.begin(), o.inputs.end(),
                           [&](const auto& in) { return in.first == io.name; });
    SKIFF_CHECK(it != o.inputs.end(), "missing input '", io.name, "' (--in ", io.name,
                "=FILE.npy; see --help)");
    values[i] = skiff::read_npy(it->second);
    inputs[i].dtype = static_cast<int>(values[i].dtype());
    inputs[i].rank = values[i].rank();
    for (int d = 0; d < values[i].rank(); ++d) inputs[i].dims[d] = values[i].dim(d);
    inputs[i].data = values[i].raw_data();
  }
  for (const auto& in : o.inputs) {
    bool known = false;
    for (int i = 0; i < skiff_model_num_inputs(); ++i)
      known = known || in.first == skiff_model_input(i)->name;
    SKIFF_CHECK(known, "the model has no input '", in.first, "' (see --help)");
  }
  std::string params = o.params;
  if (params.empty() && !skiff_model_params_embedded()) {
    params = beside_executable(argv[0], "model.skparams");
  }
  skiff_model* model = skiff_model_create(params.empty() ? nullptr : params.c_str());
  SKIFF_CHECK(model, skiff_model_last_error());
  std::vector<skiff_tensor> outputs(skiff_model_num_outputs());
  std::vector<double> ms;
  for (int r = 0; r < o.repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const int status = skiff_model_run(model, inputs.data(), outputs.data());
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (status != 0) {
      const std::string message = skiff_model_last_error();
      skiff_model_destroy(model);
      skiff::fail(message);
    }
  }
  ::mkdir(o.out_dir.c_str(), 0755);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const skiff_tensor& t = outputs[i];
    skiff::Shape shape;
    for (int d = 0; d < t.rank; ++d) shape.push_back(t.dims[d]);
    skiff::Tensor out = skiff::Tensor::empty(shape, static_cast<skiff::DType>(t.dtype));
    if (out.nbytes() > 0) std::memcpy(out.raw_data(), t.data, out.nbytes());
    std::string name = skiff_model_output(static_cast<int>(i))->name;
    std::replace(name.begin(), name.end(), '/', '_');
    skiff::write_npy(o.out_dir + "/" + name + ".npy", out);
  }
  skiff_model_destroy(model);
  if (o.repeat > 1) {
    std::sort(ms.begin(), ms.end());
    std::fprintf(stderr, "median %.4f ms per run over %d runs\n", ms[ms.size() / 2], o.repeat);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      print_help(argv[0]);
      return 0;
    }
  }
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return 1;
  }
}
