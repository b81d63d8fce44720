// skiff compile: a .skmodel (and the .skparams beside it) to C++ and a native binary.
#include <iostream>

#include "skiff/cli/commands.h"
#include "skiff/codegen/codegen.h"
#include "skiff/codegen/target.h"

namespace skiff::cli {

const char kCompileHelp[] =
    "usage: skiff compile MODEL.skmodel -o DIR [--target x86-64|portable|aarch64] [--cpu CPU]\n"
    "                     [--lib] [--params embed|file] [--feed NAME]... [--fetch NAME]...\n"
    "                     [-j N]\n"
    "\n"
    "Translates the program into one C++ file (DIR/model.cc) that calls skiff's kernels, with\n"
    "loops and branches as C++ while / if, and builds DIR/model:\n"
    "  DIR/model --in NAME=FILE.npy ... --out OUTDIR   writes OUTDIR/NAME.npy per output;\n"
    "  DIR/model --help                                lists the inputs and outputs.\n"
    "The parameters come from the .skparams file beside MODEL.\n"
    "  --target T      x86-64 (default: libskiff's kernels, oneDNN), portable (plain C++\n"
    "                  kernels compiled in, no oneDNN), aarch64 (portable, cross-compiled\n"
    "                  with aarch64-linux-gnu-g++, static)\n"
    "  --cpu CPU       the CPU the model's code is compiled for (-march): x86-64-v3 (default:\n"
    "                  any x86-64 CPU with AVX2 + FMA), x86-64-v4 (AVX-512), x86-64-v2,\n"
    "                  x86-64, or native (this machine's CPU); aarch64: armv8-a. The model\n"
    "                  stops with a message naming the missing features on a CPU without them\n"
    "  --lib           also DIR/libmodel.so and DIR/model.h (C API: create / run / destroy)\n"
    "  --params MODE   embed (default): inside the binary; file: DIR/model.skparams, read when\n"
    "                  a context is made\n"
    "  --feed NAME     an input (repeatable); default: the program's feed names, else the\n"
    "                  variables block 0 reads before writing\n"
    "  --fetch NAME    an output (repeatable); default: the program's fetch names\n"
    "  -j N            parallel compiler processes (default: the number of CPUs)\n";

int compile_command(const Args& args) {
  std::string model;
  codegen::CompileOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UsageError(arg + " needs a value");
      return args[++i];
    };
    if (arg == "-o" || arg == "--out") {
      o.out_dir = value();
    } else if (arg == "--target") {
      o.target = value();
      codegen::find_target(o.target);
    } else if (arg == "--cpu") {
      o.cpu = value();
    } else if (arg == "--lib") {
      o.shared_library = true;
    } else if (arg == "--params") {
      const std::string mode = value();
      if (mode != "embed" && mode != "file") {
        throw UsageError("--params takes embed or file, got '" + mode + "'");
      }
      o.embed_params = mode == "embed";
    } else if (arg == "--feed") {
      o.feeds.push_back(value());
    } else if (arg == "--fetch") {
      o.fetches.push_back(value());
    } else if (arg == "-j") {
      o.jobs = std::stoi(value());
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError("unknown option '" + arg + "'");
    } else if (model.empty()) {
      model = arg;
    } else {
      throw UsageError("unexpected argument '" + arg + "' (MODEL is '" + model + "')");
    }
  }
  if (model.empty()) throw UsageError("missing MODEL");
  if (o.out_dir.empty()) throw UsageError("missing -o DIR");
  const codegen::CompiledModel m = codegen::compile_model_file(model, o);
  std::cout << "wrote " << m.source << "\nbuilt " << m.executable << "\n";
  if (!m.library.empty()) std::cout << "built " << m.library << " and " << m.header << "\n";
  if (!m.params_file.empty()) std::cout << "parameters in " << m.params_file << "\n";
  return 0;
}

}  // namespace skiff::cli
