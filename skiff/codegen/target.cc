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

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {
      {"x86-64",
       "g++",
       {"-march=native"},
       {},
       true,
       "",
       "libskiff's kernels (oneDNN for matmul, conv and pooling), tuned for this CPU"},
      // -Wno-psabi: the kernels' internal functions pass GCC vectors wider than the
      // baseline ISA; their ABI never crosses a library boundary.
      {"portable",
       "g++",
       {"-DSKIFF_NO_ONEDNN", "-Wno-psabi"},
       {},
       false,
       "",
       "the kernels compiled in from source as plain C++ (no oneDNN, no libskiff)"},
      {"aarch64",
       "aarch64-linux-gnu-g++",
       {"-DSKIFF_NO_ONEDNN", "-Wno-psabi"},
       {"-static"},
       false,
       "qemu-aarch64",
       "portable, cross-compiled for 64-bit ARM Linux and linked statically"},
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

void build_model(const Target& target, const std::string& dir,
                 const std::vector<std::string>& kernel_families, bool shared_library, int jobs) {
  const std::string root = skiff_source_dir();
  SKIFF_CHECK(fs::exists(root + "/skiff/codegen/runtime/model_support.cc"),
              "no skiff source tree at '", root,
              "' (set SKIFF_SOURCE_DIR to one): generated code builds against its headers");
  SKIFF_CHECK(on_path(target.compiler), "target ", target.name, " needs ", target.compiler,
              ", which is not installed",
              target.name == "aarch64" ? " (Debian package g++-aarch64-linux-gnu)" : "");

  std::vector<std::string> model_sources = {"model.cc"};
  if (fs::exists(dir + "/model_params.cc")) model_sources.push_back("model_params.cc");
  std::vector<std::string> library_sources = {"skiff/codegen/runtime/model_support.cc"};
  std::vector<std::string> main_sources = {"skiff/codegen/runtime/model_main.cc"};
  if (!target.links_libskiff) {
    for (const char* core : {"allocator", "dtype", "shape", "tensor"})
      library_sources.push_back(std::string("skiff/core/") + core + ".cc");
    for (const std::string& s : portable_kernel_sources(kernel_families))
      library_sources.push_back(s);
    main_sources.push_back("skiff/runtime/npy.cc");
    main_sources.push_back("skiff/ir/file_io.cc");
  }

  std::vector<std::string> model_objs, library_objs, main_objs;
  std::string rules;
  for (const std::string& s : model_sources) {
    model_objs.push_back(object_name(s));
    rules += object_name(s) + ": " + s + "\n\t@mkdir -p obj\n\t$(CXX) $(CXXFLAGS) -c $< -o $@\n\n";
  }
  auto tree_rule = [&](const std::string& s, std::vector<std::string>* objs) {
    objs->push_back(object_name(s));
    rules += object_name(s) + ": $(SKIFF)/" + s +
             "\n\t@mkdir -p obj\n\t$(CXX) $(CXXFLAGS) -c $< -o $@\n\n";
  };
  for (const std::string& s : library_sources) tree_rule(s, &library_objs);
  for (const std::string& s : main_sources) tree_rule(s, &main_objs);

  std::string link_libs = "-fopenmp";
  if (target.links_libskiff) {
    const std::string lib = skiff_library_dir();
    link_libs = "-L" + lib + " -Wl,-rpath," + lib + " -lskiff -fopenmp";
  }
  std::ostringstream mk;
  mk << "# Makefile: generated by `skiff compile` for target " << target.name << " (" << target.doc
     << ").\n# `make` rebuilds the model after an edit of model.cc.\n\n"
     << "CXX := " << (on_path("ccache") ? "ccache " : "") << target.compiler << "\n"
     << "SKIFF := " << root << "\n"
     << "CXXFLAGS := -std=c++17 -O2 -fvect-cost-model=dynamic -fPIC -fopenmp -Wall -Wextra "
        "-Wno-unused-parameter -Werror "
     << joined(target.flags) << " -I$(SKIFF) -isystem /usr/include/eigen3\n"
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
