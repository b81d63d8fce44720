// skiff run: loads and verifies a program, feeds .npy files, runs block 0 with the
// Executor, and saves or prints the fetched tensors.
#include <filesystem>
#include <iostream>
#include <map>

#include "skiff/cli/commands.h"
#include "skiff/cli/tensor_text.h"
#include "skiff/formats/npy.h"
#include "skiff/ir/serialize.h"
#include "skiff/ir/verifier.h"
#include "skiff/ops/registry.h"
#include "skiff/runtime/executor.h"
#include "skiff/runtime/persistables.h"

namespace skiff::cli {

const char kRunHelp[] =
    "usage: skiff run FILE [--params P.skparams] [--feed NAME=X.npy]... [--fetch NAME]...\n"
    "                 [--out DIR]\n"
    "\n"
    "Loads and verifies the program FILE (.skmodel) and runs its block 0.\n"
    "  --params P    load the program's persistable variables (parameters) from P\n"
    "  --feed N=F    feed variable N with the array in the .npy file F (repeatable)\n"
    "  --fetch N     fetch variable N after the run (repeatable)\n"
    "  --out DIR     write each fetched variable to DIR/N.npy instead of printing it\n";

namespace {

struct RunOptions {
  std::string program;
  std::string params;
  std::vector<std::pair<std::string, std::string>> feeds;  // name, .npy path
  std::vector<std::string> fetches;
  std::string out_dir;
};

RunOptions parse_run_options(const Args& args) {
  RunOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i], value;
    const bool is_option = option_value(args, &i, &arg, &value);
    if (arg == "--params") {
      o.params = value;
    } else if (arg == "--feed") {
      size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
        throw UsageError("--feed takes NAME=FILE.npy, got '" + value + "'");
      }
      o.feeds.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (arg == "--fetch") {
      o.fetches.push_back(value);
    } else if (arg == "--out") {
      o.out_dir = value;
    } else if (is_option || (!arg.empty() && arg[0] == '-')) {
      throw UsageError("unknown option '" + arg + "'");
    } else if (o.program.empty()) {
      o.program = arg;
    } else {
      throw UsageError("unexpected argument '" + arg + "' (FILE is '" + o.program + "')");
    }
  }
  if (o.program.empty()) throw UsageError("missing FILE");
  return o;
}

// A file name for variable `name`: path separators would leave DIR.
std::string npy_file_name(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (c == '/' || c == '\\') c = '_';
  return out + ".npy";
}

}  // namespace

int run_command(const Args& args) {
  const RunOptions o = parse_run_options(args);
  Program program = load_program(o.program);
  try {
    verify_program(program, find_op_schema);
  } catch (const Error& e) {
    fail("'", o.program, "' is not a valid program: ", e.what());
  }
  Scope scope;
  if (!o.params.empty()) load_persistables(o.params, program, &scope);
  std::map<std::string, Tensor> feeds;
  for (const auto& [name, path] : o.feeds) {
    if (!feeds.emplace(name, read_npy(path)).second) fail("variable '", name, "' is fed twice");
  }
  std::vector<Tensor> fetched = Executor().run(program, &scope, feeds, o.fetches);

  if (!o.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec) fail("cannot create output folder '", o.out_dir, "': ", ec.message());
  }
  for (size_t i = 0; i < fetched.size(); ++i) {
    const std::string& name = o.fetches[i];
    if (o.out_dir.empty()) {
      std::cout << name << ": " << tensor_to_text(fetched[i]) << "\n";
    } else {
      const std::string path = (std::filesystem::path(o.out_dir) / npy_file_name(name)).string();
      write_npy(path, fetched[i]);
      std::cout << "wrote " << path << " (" << name << ": " << fetched[i].type_str() << ")\n";
    }
  }
  return 0;
}

}  // namespace skiff::cli
