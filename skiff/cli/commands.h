// The `skiff` command line: one function per command, each taking the arguments
// after the command name and returning the process exit status. Failures are
// thrown as skiff::Error (main prints them on one line and exits with 1);
// UsageError is a malformed command line (exit 2, with a hint to --help).
#pragma once

#include <string>
#include <vector>

#include "skiff/core/error.h"

namespace skiff::cli {

using Args = std::vector<std::string>;

// A malformed command line: main prints it with a hint to --help and exits with 2.
class UsageError : public Error {
 public:
  using Error::Error;
};

// True when `args` asks for help (-h or --help anywhere).
bool wants_help(const Args& args);
// For an option taking a value, `--name=value` or `--name value`: splits args[*i] into
// `*name` and `*value` (advancing *i past a separate value) and returns true; false (and
// nothing changed) for an argument that does not start with "--". Throws UsageError when
// the value is missing.
bool option_value(const Args& args, size_t* i, std::string* name, std::string* value);

// skiff ops [TYPE...]: every registered op (or the named ones) with its doc, slots
// and attributes.
int ops_command(const Args& args);
// skiff passes [NAME...]: every registered pass (or the named ones) with its doc and
// options.
int passes_command(const Args& args);
// skiff print FILE: the program as text.
int print_command(const Args& args);
// skiff verify FILE: "OK" or the first problem (exit 1).
int verify_command(const Args& args);
// skiff run FILE [--params P] [--feed name=x.npy]... [--fetch name]... [--out DIR]
int run_command(const Args& args);
// skiff compile MODEL -o DIR [--target T] [--lib] [--params embed|file]: C++ and a binary.
int compile_command(const Args& args);
// skiff export-onnx MODEL -o FILE.onnx [--opset N]: the program as an ONNX model.
int export_onnx_command(const Args& args);

// skiff serve --model-repository DIR [...]: the inference server (docs/serve.md).
int serve_command(const Args& args);

// skiff launch [launcher arguments] SCRIPT [ARGS...]: python -m skiff.distributed.launch.
int launch_command(const Args& args);
// skiff board --logdir DIR [--port P] [--host H]: python -m skiff.board.
int board_command(const Args& args);
// skiff cloud VERB ...: python -m skiff.cloud (the job service and its client).
int cloud_command(const Args& args);

extern const char kCloudHelp[];
extern const char kOpsHelp[];
extern const char kPassesHelp[];
extern const char kPrintHelp[];
extern const char kVerifyHelp[];
extern const char kRunHelp[];
extern const char kCompileHelp[];
extern const char kExportOnnxHelp[];
extern const char kLaunchHelp[];
extern const char kBoardHelp[];
extern const char kServeHelp[];

}  // namespace skiff::cli
