// Entry point of the `skiff` command line: dispatches to the commands of
// commands.h and turns errors into one line on stderr and a nonzero exit status.
#include <cstring>
#include <iostream>

#include "skiff/cli/commands.h"

namespace skiff::cli {

bool wants_help(const Args& args) {
  for (const std::string& a : args)
    if (a == "-h" || a == "--help") return true;
  return false;
}

bool option_value(const Args& args, size_t* i, std::string* name, std::string* value) {
  const std::string& arg = args[*i];
  if (arg.size() <= 2 || arg.compare(0, 2, "--") != 0) return false;
  const size_t eq = arg.find('=');
  if (eq != std::string::npos) {
    *name = arg.substr(0, eq);
    *value = arg.substr(eq + 1);
  } else if (*i + 1 < args.size()) {
    *name = arg;
    *value = args[++*i];
  } else {
    throw UsageError(arg + " needs a value");
  }
  return true;
}

}  // namespace skiff::cli

namespace {

constexpr char kHelp[] =
    "usage: skiff <command> [arguments]\n"
    "\n"
    "Commands:\n"
    "  ops [TYPE...]   list the registered ops: doc, inputs, outputs, attributes\n"
    "  passes [NAME...]   list the registered program passes and their options\n"
    "  print FILE      show a program file (.skmodel) as text\n"
    "  verify FILE     check a program file against the op schemas\n"
    "  run FILE ...    run block 0 of a program with inputs from .npy files\n"
    "  compile FILE -o DIR   translate a program to C++ and build a native binary\n"
    "  export-onnx FILE -o F.onnx   write a program as an ONNX model\n"
    "  serve --model-repository DIR   serve models over HTTP (Open Inference Protocol)\n"
    "  launch [...] SCRIPT   start the workers of a data-parallel job (distributed)\n"
    "  board --logdir DIR    serve training logs and programs as a web page\n"
    "  cloud VERB ...        the job service: serve, submit, logs, ... (docs/cloud.md)\n"
    "\n"
    "`skiff <command> --help` describes a command.\n";

struct Command {
  const char* name;
  int (*fn)(const skiff::cli::Args&);
  const char* help;
};

const Command kCommands[] = {
    {"ops", skiff::cli::ops_command, skiff::cli::kOpsHelp},
    {"passes", skiff::cli::passes_command, skiff::cli::kPassesHelp},
    {"print", skiff::cli::print_command, skiff::cli::kPrintHelp},
    {"verify", skiff::cli::verify_command, skiff::cli::kVerifyHelp},
    {"run", skiff::cli::run_command, skiff::cli::kRunHelp},
    {"compile", skiff::cli::compile_command, skiff::cli::kCompileHelp},
    {"export-onnx", skiff::cli::export_onnx_command, skiff::cli::kExportOnnxHelp},
    {"serve", skiff::cli::serve_command, skiff::cli::kServeHelp},
    {"launch", skiff::cli::launch_command, skiff::cli::kLaunchHelp},
    {"board", skiff::cli::board_command, skiff::cli::kBoardHelp},
    {"cloud", skiff::cli::cloud_command, skiff::cli::kCloudHelp},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    std::cout << kHelp;
    return argc < 2 ? 2 : 0;
  }
  const std::string name = argv[1];
  const skiff::cli::Args args(argv + 2, argv + argc);
  for (const Command& command : kCommands) {
    if (name != command.name) continue;
    if (skiff::cli::wants_help(args)) {
      std::cout << command.help;
      return 0;
    }
    try {
      return command.fn(args);
    } catch (const skiff::cli::UsageError& e) {
      std::cerr << "skiff " << name << ": " << e.what() << " (see `skiff " << name << " --help`)\n";
      return 2;
    } catch (const skiff::Error& e) {
      std::cerr << "skiff " << name << ": error: " << e.what() << "\n";
      return 1;
    } catch (const std::exception& e) {
      std::cerr << "skiff " << name << ": internal error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "skiff: unknown command '" << name << "' (see `skiff --help`)\n";
  return 2;
}
