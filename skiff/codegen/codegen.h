// Program -> C++ -> native binaries: the compiler behind `skiff compile`.
//
//   CompileOptions o;
//   o.out_dir = "out";
//   o.target = "x86-64";                 // or "portable", "aarch64"
//   o.cpu = "x86-64-v4";                  // default x86-64-v3 (any AVX2 CPU)
//   o.shared_library = true;              // also out/libmodel.so + out/model.h
//   CompiledModel m = compile_model_file("mlp.skmodel", o);   // mlp.skparams beside it
//   // out/model.cc, out/model (--in NAME=FILE.npy ... --out DIR)
//
// generate_model writes the C++ alone: one translation unit (model.cc) whose run_program
// calls the kernel library (skiff/kernels/cpu) op by op, with loops and branches as C++
// while / if, the variables as fields of one struct per context (Tensor, TensorArray or
// SelectedRows, by the variable's kind), buffers of statically shaped variables allocated
// once when a context is made, and the C interface of skiff/codegen/runtime/model_api.h.
// build_model (target.h) compiles it.
#pragma once

#include <string>
#include <vector>

#include "skiff/formats/params_file.h"
#include "skiff/ir/program.h"

namespace skiff::codegen {

struct CodegenOptions {
  // Inputs and outputs by variable name; empty: the program's feed_names / fetch_names,
  // and for inputs without them the data variables (read before written in block 0).
  std::vector<std::string> feeds, fetches;
  // Parameters inside the binary (true) or read from a .skparams file when a context is
  // made (false).
  bool embed_params = true;
  // Named in the file's header comment: where the program came from, the target.
  std::string origin = "a program";
  std::string target = "x86-64";
  // The CPU model.cc is compiled for (-march: "x86-64-v3", "x86-64-v4", "native", ...; see
  // target.h); "" takes the target's default.
  std::string cpu;
};

// The generated sources of one model.
struct GeneratedModel {
  std::string model_cc;      // the program as C++ and the C interface
  std::string model_h;       // the C interface (model_api.h) with this model's inputs/outputs
  std::string model_params;  // model_params.cc: the embedded parameter image ("" when read
                             // from a file)
  std::vector<std::string> kernel_families;  // skiff/kernels/cpu/<family>.h it includes
  std::vector<std::string> inputs, outputs;  // variable names, in interface order
  // The model has collective ops: a context joins the job the process was launched in
  // (dist/parallel_env.h; a world of one outside a job), and the model links libskiff_dist.
  bool distributed = false;
};

// Translates `program`; `params` holds the values of (at least) every persistable variable
// the program uses, embedded when options.embed_params. Throws skiff::Error naming the op
// and its source line for an op without an emitter rule, and naming the variable for a
// missing parameter or an unknown input or output, and naming the op when the program has
// collective ops and the target does not link libskiff.
GeneratedModel generate_model(const Program& program, const NamedTensors& params,
                              const CodegenOptions& options);

struct CompileOptions : CodegenOptions {
  std::string out_dir;          // created if missing
  bool shared_library = false;  // also libmodel.so and model.h
  int jobs = 0;                 // parallel compiler processes (0: the number of CPUs)
};

// What compile_model left in out_dir (absolute paths; "" for what was not asked for).
struct CompiledModel {
  std::string source, executable, library, header, params_file;
  GeneratedModel generated;
};

// Generates the sources for `program` (parameters from the .skparams file `params_path`)
// into options.out_dir and builds them for options.target (target.h). Throws
// skiff::Error with the compiler's output when a build fails.
CompiledModel compile_model(const Program& program, const std::string& params_path,
                            const CompileOptions& options);
// compile_model for a .skmodel file and the .skparams beside it (same stem), if any.
CompiledModel compile_model_file(const std::string& model_path, const CompileOptions& options);

}  // namespace skiff::codegen
