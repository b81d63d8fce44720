#include "skiff/codegen/target.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "skiff/core/error.h"

#ifndef SKIFF_SOURCE_DIR
#error "SKIFF_SOURCE_DIR (the skiff source tree) must be defined when building target.cc"
#endif

namespace skiff::codegen {

namespace fs = std::filesystem;

namespace {

// The CPU levels of x86-64 (the psABI's): v2 SSE4.2, v3 AVX2 + FMA, v4 AVX-512; native: the
// machine that compiles. The default is libskiff's baseline.
const std::vector<std::string>& x86_cpus() {
  static const std::vector<std::string> cpus = {"x86-64-v3", "x86-64-v4", "x86-64-v2", "x86-64",
                                                "native"};
  return cpus;
}

const std::vector<Target>& targets() {
  // -DSKIFF_NO_ISA_KERNELS: the kernels compiled in take their portable loops only (the
  // per-instruction-set files belong to libskiff); -Wno-psabi: their internal functions
  // pass GCC vectors wider than the baseline ISA, an ABI that never crosses a library.
  static const std::vector<Target> all = {
      {"x86-64",
       "g++",
       {},
       {},
       true,
       "",
       "libskiff's kernels (oneDNN for matmul, conv and pooling), chosen at run time for the CPU",
       x86_cpus()},
      {"portable",
       "g++",
       {"-DSKIFF_NO_ONEDNN", "-DSKIFF_NO_ISA_KERNELS", "-Wno-psabi"},
       {},
       false,
       "",
       "the kernels compiled in from source as plain C++ (no oneDNN, no libskiff)",
       x86_cpus()},
      {"aarch64",
       "aarch64-linux-gnu-g++",
       {"-DSKIFF_NO_ONEDNN", "-DSKIFF_NO_ISA_KERNELS", "-Wno-psabi"},
       {"-static"},
       false,
       "qemu-aarch64",
       "portable, cross-compiled for 64-bit ARM Linux and linked statically",
       {"armv8-a"}},
  };
  return all;
}

// Kernel families implemented (in part) by a file not named after them.
const std::multimap<std::string, std::string>& extra_implementations() {
  static const std::multimap<std::string, std::string> extra = {
      {"elementwise", "elementwise_grad"},
      {"conv", "conv_transpose"},
      {"conv_geometry", "conv_direct"},
      {"conv_geometry", "conv_onednn"},
      {"pool", "pool_planes"},
      {"pool_geometry", "pool_planes"},
      {"norm", "batch_norm"},
      {"norm", "layer_norm"},
      {"softmax", "softmax_rows"},
      {"log_softmax", "softmax_rows"},
  };
  return extra;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  SKIFF_CHECK(f.good(), "cannot read '", path, "'");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The kernel families a source file includes ("skiff/kernels/cpu/<family>.h").
std::vector<std::string> included_families(const std::string& text) {
  const std::string marker = "#include \"skiff/kernels/cpu/";
  std::vector<std::string> out;
  for (size_t pos = text.find(marker); pos != std::string::npos; pos = text.find(marker, pos + 1)) {
    const size_t start = pos + marker.size(), end = text.find(".h\"", start);
    if (end != std::string::npos) out.push_back(text.substr(start, end - start));
  }
  return out;
}

std::string object_name(const std::string& source) {
  std::string stem = fs::path(source).replace_extension("").string();
  for (char& c : stem)
    if (c == '/') c = '_';
  return "obj/" + stem + ".o";
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : " ") + p;
  return out;
}

bool on_path(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace

const Target& find_target(const std::string& name) {
  for (const Target& t : targets())
    if (t.name == name) return t;
  fail("unknown target '", name, "'; the targets are ", joined(target_names()));
}

std::string target_cpu(const Target& target, const std::string& cpu) {
  if (cpu.empty()) return target.cpus.front();
  for (const std::string& c : target.cpus)
    if (c == cpu) return c;
  fail("target ", target.name, " takes --cpu ", joined(target.cpus), ", not '", cpu, "'");
}

std::vector<std::string> target_names() {
  std::vector<std::string> out;
  for (const Target& t : targets()) out.push_back(t.name);
  return out;
}

std::string skiff_source_dir() {
  const char* env = std::getenv("SKIFF_SOURCE_DIR");
  return env && *env ? env : SKIFF_SOURCE_DIR;
}

std::string skiff_library_dir() {
  Dl_info info;
  SKIFF_CHECK(dladdr(reinterpret_cast<void*>(&skiff_library_dir), &info) && info.dli_fname,
              "cannot find the libskiff this process runs");
  return fs::absolute(fs::path(info.dli_fname)).parent_path().string();
}

std::vector<std::string> portable_kernel_sources(const std::vector<std::string>& families) {
  const std::string root = skiff_source_dir();
  std::set<std::string> seen_families, sources;
  std::vector<std::string> pending(families.begin(), families.end());
  while (!pending.empty()) {
    const std::string family = pending.back();
    pending.pop_back();
    if (!seen_families.insert(family).second) continue;
    std::vector<std::string> files = {family};
    auto range = extra_implementations().equal_range(family);
    for (auto it = range.first; it != range.second; ++it) files.push_back(it->second);
    for (const std::string& f : files) {
      if (f == "onednn_cache") continue;  // oneDNN's engine and cache: not in portable builds
      std::string rel = "skiff/kernels/cpu/" + f + ".cc";
      if (f == "conv_onednn") rel = "skiff/codegen/runtime/conv_portable.cc";
      if (!fs::exists(root + "/" + rel) || !sources.insert(rel).second) continue;
      for (const std::string& inc : included_families(read_text(root + "/" + rel)))
        pending.push_back(inc);
    }
    // Families whose header alone includes others (declarations used by callers).
    const std::string header = root + "/skiff/kernels/cpu/" + family + ".h";
    if (fs::exists(header))
      for (const std::string& inc : included_families(read_text(header))) pending.push_back(inc);
  }
  return std::vector<std::string>(sources.begin(), sources.end());
}

void build_model(const Target& target, const std::string& cpu, const std::string& dir,
                 const std::vector<std::string>& kernel_families, bool distributed,
                 bool shared_library, int jobs) {
  const std::string root = skiff_source_dir();
  SKIFF_CHECK(fs::exists(root + "/skiff/codegen/runtime/model_support.cc"),
              "no skiff source tree at '", root,
              "' (set SKIFF_SOURCE_DIR to one): generated code builds against its headers");
  SKIFF_CHECK(on_path(target.compiler), "target ", target.name, " needs ", target.compiler,
              ", which is not installed",
              target.name == "aarch64" ? " (Debian package g++-aarch64-linux-gnu)" : "");

  SKIFF_CHECK(!distributed || target.links_libskiff,
              "a model with collective ops needs a "
              "target that links libskiff, not ",
              target.name);

  std::vector<std::string> model_sources = {"model.cc"};
  if (fs::exists(dir + "/model_params.cc")) model_sources.push_back("model_params.cc");
  std::vector<std::string> library_sources = {"skiff/codegen/runtime/model_support.cc"};
  std::vector<std::string> main_sources = {"skiff/codegen/runtime/model_main.cc"};
  // Compiled for any CPU of the architecture: the check that runs before the model's code.
  std::vector<std::string> library_any_cpu = {"skiff/codegen/runtime/cpu_check.cc"};
  std::vector<std::string> main_any_cpu = {"skiff/codegen/runtime/cpu_check_main.cc"};
  if (!target.links_libskiff) {
    for (const char* core : {"allocator", "dtype", "shape", "tensor"})
      library_sources.push_back(std::string("skiff/core/") + core + ".cc");
    library_any_cpu.push_back("skiff/core/cpu.cc");
    for (const std::string& s : portable_kernel_sources(kernel_families))
      library_sources.push_back(s);
    main_sources.push_back("skiff/formats/npy.cc");
    main_sources.push_back("skiff/ir/file_io.cc");
  }

  std::vector<std::string> model_objs, library_objs, main_objs;
  std::string rules;
  auto rule = [&](const std::string& source, const std::string& path, const char* flags,
                  std::vector<std::string>* objs) {
    objs->push_back(object_name(source));
    rules += object_name(source) + ": " + path + "\n\t@mkdir -p obj\n\t$(CXX) $(" + flags +
             ") -c $< -o $@\n\n";
  };
  for (const std::string& s : model_sources) rule(s, s, "CXXFLAGS", &model_objs);
  for (const std::string& s : library_sources) rule(s, "$(SKIFF)/" + s, "CXXFLAGS", &library_objs);
  for (const std::string& s : library_any_cpu)
    rule(s, "$(SKIFF)/" + s, "ANY_CPU_CXXFLAGS", &library_objs);
  for (const std::string& s : main_sources) rule(s, "$(SKIFF)/" + s, "CXXFLAGS", &main_objs);
  for (const std::string& s : main_any_cpu)
    rule(s, "$(SKIFF)/" + s, "ANY_CPU_CXXFLAGS", &main_objs);

  std::string link_libs = "-fopenmp";
  if (target.links_libskiff) {
    const std::string lib = skiff_library_dir();
    link_libs = "-L" + lib + " -Wl,-rpath," + lib + (distributed ? " -lskiff_dist" : "") +
                " -lskiff -fopenmp";
  }
  std::ostringstream mk;
  mk << "# Makefile: generated by `skiff compile` for target " << target.name << " (" << target.doc
     << "),\n# CPU " << cpu << ". `make` rebuilds the model after an edit of model.cc.\n\n"
     << "CXX := " << (on_path("ccache") ? "ccache " : "") << target.compiler << "\n"
     << "SKIFF := " << root << "\n"
     << "ANY_CPU_CXXFLAGS := -std=c++17 -O2 -fvect-cost-model=dynamic -fPIC -fopenmp -Wall "
        "-Wextra -Wno-unused-parameter -Werror "
     << joined(target.flags) << " -I$(SKIFF) -isystem /usr/include/eigen3\n"
     << "CXXFLAGS := $(ANY_CPU_CXXFLAGS) -march=" << cpu << "\n"
     << "LIBS := " << link_libs << "\n\n"
     << "MODEL_OBJS := " << joined(model_objs) << "\n"
     << "LIBRARY_OBJS := " << joined(library_objs) << "\n"
     << "MAIN_OBJS := " << joined(main_objs) << "\n\n"
     << "all: model" << (shared_library ? " libmodel.so" : "") << "\n\n"
     << "model: $(MODEL_OBJS) $(LIBRARY_OBJS) $(MAIN_OBJS)\n\t$(CXX) -o $@ $^ "
     << joined(target.link_flags) << " $(LIBS)\n\n"
     << "libmodel.so: $(MODEL_OBJS) $(LIBRARY_OBJS)\n\t$(CXX) -shared -o $@ $^ $(LIBS)\n\n"
     << rules << ".PHONY: all\n";
  {
    std::ofstream f(dir + "/Makefile");
    f << mk.str();
    SKIFF_CHECK(f.good(), "cannot write ", dir, "/Makefile");
  }
  const int n = jobs > 0 ? jobs : std::max(1u, std::thread::hardware_concurrency());
  const std::string command =
      "make -s -C '" + dir + "' -j" + std::to_string(n) + " all > '" + dir + "/build.log' 2>&1";
  if (std::system(command.c_str()) != 0) {
    std::string log = read_text(dir + "/build.log");
    if (log.size() > 4000) log = "..." + log.substr(log.size() - 4000);
    fail("building for target ", target.name, " failed (", dir, "/build.log):\n", log);
  }
}

}  // namespace skiff::codegen
