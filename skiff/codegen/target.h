// Targets of generated code. A target is a kernel library and the compiler that builds
// against it; the generated C++ (codegen.h) is the same for all of them, because every
// target implements the same kernel interface (skiff/kernels/cpu/*.h):
//
//   x86-64    links libskiff (kernels on oneDNN for matmul, conv, pooling, picked at run
//             time for the CPU); the model's own code for --cpu (default x86-64-v3);
//   portable  compiles the kernels it needs from source with SKIFF_NO_ONEDNN (plain C++ and
//             Eigen) into the binary for --cpu (default x86-64-v3), no oneDNN, no libskiff;
//   aarch64   portable, cross-compiled by aarch64-linux-gnu-g++ and linked statically;
//             `runner` (qemu-aarch64) runs its executables on this machine.
//
// A model compiled for a CPU level checks at start that the CPU has its features and stops
// with a message naming the missing ones (codegen/runtime/cpu_check.cc).
//
//   const Target& t = find_target("portable");
//   build_model(t, "x86-64-v3", "out", {"activation", "matmul"}, /*shared_library=*/false, 2);
#pragma once

#include <string>
#include <vector>

namespace skiff::codegen {

struct Target {
  std::string name;
  std::string compiler;                 // a C++17 compiler command
  std::vector<std::string> flags;       // target-specific compile flags
  std::vector<std::string> link_flags;  // target-specific link flags
  bool links_libskiff = false;          // else the kernel sources are compiled in
  std::string runner;                   // prefix that runs its executables here, or ""
  std::string doc;
  std::vector<std::string> cpus;  // the --cpu values it takes (-march=); the first is the default
};

// The target `name`; throws skiff::Error listing the targets for an unknown one.
const Target& find_target(const std::string& name);
// Names of all targets.
std::vector<std::string> target_names();
// The CPU `cpu` names for `target` ("" : the target's default); throws skiff::Error listing
// the target's CPUs for one it does not take.
std::string target_cpu(const Target& target, const std::string& cpu);

// The skiff source tree whose headers (and, for portable targets, kernel sources) generated
// code builds against: $SKIFF_SOURCE_DIR, else the tree this skiff was built from.
std::string skiff_source_dir();
// The folder holding the libskiff this process runs.
std::string skiff_library_dir();

// The .cc files (relative to the source tree) that implement the kernel families
// `families` (skiff/kernels/cpu/<family>.h) and what they call, for a portable target:
// oneDNN-backed files are replaced by their plain C++ forms.
std::vector<std::string> portable_kernel_sources(const std::vector<std::string>& families);

// Writes dir/Makefile for model.cc (+ model_params.cc when present) and runs make: the
// executable dir/model, and with `shared_library` dir/libmodel.so, compiled for `cpu` (one
// of target.cpus); `distributed` (a model with collective ops, on a target that links
// libskiff) also links libskiff_dist. Throws skiff::Error with the end of the compiler's
// output (kept in dir/build.log) when the build fails.
void build_model(const Target& target, const std::string& cpu, const std::string& dir,
                 const std::vector<std::string>& kernel_families, bool distributed,
                 bool shared_library, int jobs);

}  // namespace skiff::codegen
