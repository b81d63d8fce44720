// skiff launch: the distributed launcher, which is Python (skiff.distributed.launch): this
// command runs it with the Python that has skiff, so `skiff launch` and
// `python -m skiff.distributed.launch` are the same.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "skiff/cli/commands.h"

namespace skiff::cli {

namespace fs = std::filesystem;

const char kLaunchHelp[] =
    "usage: skiff launch [--nnodes N|MIN:MAX] [--nproc_per_node N] [--etcd HOST:PORT]\n"
    "                    [--job_id ID] [--host ADDR] [--log_dir DIR] [--comm_timeout S]\n"
    "                    [--max_restarts N] SCRIPT [ARGS...]\n"
    "\n"
    "Starts the workers of a data-parallel job on this node: python -m\n"
    "skiff.distributed.launch with the same arguments (docs/distributed.md). Without\n"
    "--etcd a private etcd runs on 127.0.0.1; --nnodes MIN:MAX makes the job elastic.\n"
    "The Python is $SKIFF_PYTHON, else the checkout's .venv beside this build, else\n"
    "python3; a build tree's python/ folder is put on its PYTHONPATH.\n";

int launch_command(const Args& args) {
  const fs::path exe = fs::read_symlink("/proc/self/exe");
  const fs::path build = exe.parent_path().parent_path();  // <build>/bin/skiff
  std::string python = "python3";
  if (const char* chosen = std::getenv("SKIFF_PYTHON")) {
    python = chosen;
  } else if (fs::exists(build.parent_path() / ".venv/bin/python")) {
    python = (build.parent_path() / ".venv/bin/python").string();
  }
  if (fs::exists(build / "python/skiff/__init__.py")) {
    std::string path = (build / "python").string();
    if (const char* old = std::getenv("PYTHONPATH")) path += std::string(":") + old;
    setenv("PYTHONPATH", path.c_str(), 1);
  }
  std::vector<std::string> argv = {python, "-m", "skiff.distributed.launch"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  execvp(cargv[0], cargv.data());
  fail("cannot run ", python, " (set SKIFF_PYTHON to a Python that has skiff)");
}

}  // namespace skiff::cli
