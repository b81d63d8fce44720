// skiff print and skiff verify: read a program file and show or check it.
#include <iostream>

#include "skiff/cli/commands.h"
#include "skiff/ir/printer.h"
#include "skiff/ir/serialize.h"
#include "skiff/ir/verifier.h"
#include "skiff/ops/registry.h"

namespace skiff::cli {

const char kPrintHelp[] =
    "usage: skiff print FILE\n"
    "\n"
    "Shows a program file (.skmodel) as text: each block's variables, then its ops\n"
    "one per line, with the blocks that while/conditional_block run indented under\n"
    "them. The program is not verified first (see `skiff verify`).\n";

const char kVerifyHelp[] =
    "usage: skiff verify FILE\n"
    "\n"
    "Loads a program file and checks it against the registered op schemas: block\n"
    "structure, op types, slots, attribute types, variable declarations. Prints OK,\n"
    "or the first problem found and exits with status 1.\n";

namespace {

// The single FILE argument of a command.
const std::string& file_argument(const Args& args) {
  if (args.size() != 1) {
    throw UsageError(args.empty() ? "missing FILE" : "expected one FILE argument");
  }
  if (!args[0].empty() && args[0][0] == '-') throw UsageError("unknown option '" + args[0] + "'");
  return args[0];
}

}  // namespace

int print_command(const Args& args) {
  std::cout << program_to_text(load_program(file_argument(args)));
  return 0;
}

int verify_command(const Args& args) {
  const std::string& path = file_argument(args);
  Program program = load_program(path);
  try {
    verify_program(program, find_op_schema);
  } catch (const Error& e) {
    fail("'", path, "' is not a valid program: ", e.what());
  }
  size_t ops = 0;
  for (const Block& b : program.blocks()) ops += b.ops.size();
  std::cout << "OK: " << path << " (" << program.num_blocks() << " blocks, " << ops << " ops)\n";
  return 0;
}

}  // namespace skiff::cli
