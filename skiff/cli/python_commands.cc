// The commands that are Python programs of the skiff package: `skiff launch` runs
// python -m skiff.distributed.launch and `skiff board` python -m skiff.board, with the
// Python that has skiff, so each is the same as its `python -m` form.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "skiff/cli/commands.h"

namespace skiff::cli {

namespace fs = std::filesystem;

namespace {

// Replaces this process with `python -m module args...`. The Python is $SKIFF_PYTHON,
// else the checkout's .venv beside this build, else python3; a build tree's python/
// folder is put on its PYTHONPATH.
[[noreturn]] void exec_python_module(const char* module, const Args& args) {
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
  // the Python side runs `skiff run` for saved programs (the job service) with this binary
  setenv("SKIFF_CLI", exe.c_str(), 1);
  std::vector<std::string> argv = {python, "-m", module};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  execvp(cargv[0], cargv.data());
  fail("cannot run ", python, " (set SKIFF_PYTHON to a Python that has skiff)");
}

}  // namespace

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

int launch_command(const Args& args) { exec_python_module("skiff.distributed.launch", args); }

const char kBoardHelp[] =
    "usage: skiff board --logdir DIR [--port P] [--host H]\n"
    "\n"
    "Serves the training logs under DIR (TensorBoard event files, written by\n"
    "skiff.board.LogWriter, TensorBoard or PyTorch) and the programs there as a web\n"
    "page: python -m skiff.board with the same arguments (docs/board.md). It listens on\n"
    "127.0.0.1:8040 unless told otherwise. The Python is found as for `skiff launch`.\n";

int board_command(const Args& args) { exec_python_module("skiff.board", args); }

const char kCloudHelp[] =
    "usage: skiff cloud serve [--host H] [--port P] [--root DIR] [--slots N]\n"
    "       skiff cloud token create USER [--admin] [--root DIR]\n"
    "       skiff cloud login --server URL --token TOKEN\n"
    "       skiff cloud submit SCRIPT [--workers N] [--nproc N] [--dir DIR] [--follow]\n"
    "                          [-- ARGS...]\n"
    "       skiff cloud list | status JOB | logs JOB [-f] | cancel JOB | artifacts JOB\n"
    "\n"
    "The job service and its client: python -m skiff.cloud with the same arguments\n"
    "(docs/cloud.md). The service listens on 127.0.0.1:8050 unless told otherwise. The\n"
    "Python is found as for `skiff launch`.\n";

int cloud_command(const Args& args) { exec_python_module("skiff.cloud", args); }

}  // namespace skiff::cli
