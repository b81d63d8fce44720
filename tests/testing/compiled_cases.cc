#include "tests/testing/compiled_cases.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "skiff/codegen/codegen.h"
#include "skiff/codegen/op_emitter.h"
#include "skiff/formats/npy.h"
#include "skiff/ops/registry.h"
#include "tests/testing/op_test.h"

namespace skiff::testing {

namespace {

namespace fs = std::filesystem;

struct Case {
  std::string what;
  std::vector<std::string> fetches;  // in the suite's program
  std::vector<Tensor> results;
  double atol, rtol;
};

// All recorded cases as one program: case k's variables are prefixed "cK_".
struct Suite {
  Program program;
  std::map<std::string, Tensor> feeds;
  std::vector<Case> cases;
  // The last case as recorded (a test checking several outputs of one case records it
  // once).
  Program last_program;
  std::map<std::string, Tensor> last_feeds;
};

bool same_values(const std::map<std::string, Tensor>& a, const std::map<std::string, Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
    if (i->first != j->first || i->second.shape() != j->second.shape() ||
        i->second.dtype() != j->second.dtype() ||
        std::memcmp(i->second.raw_data(), j->second.raw_data(), i->second.nbytes()) != 0) {
      return false;
    }
  }
  return true;
}

Suite& suite() {
  static Suite* s = new Suite;  // never destroyed: its tensors outlive the buffer pool
  return *s;
}

bool carried(DType t) { return t != DType::kBF16; }

// Whether the compiled model can run `program` as the interpreter did.
bool compilable(const Program& program, const std::vector<Tensor>& results) {
  if (program.num_blocks() != 1) return false;
  for (const auto& [name, var] : program.global_block().vars)
    if (var.kind != VarKind::kDenseTensor || !carried(var.dtype)) return false;
  for (const Tensor& t : results)
    if (!carried(t.dtype())) return false;
  for (const OpDesc& op : program.global_block().ops) {
    if (!codegen::find_emit_rule(op.type)) return false;
    OpDesc filled = op;
    fill_default_attrs(filled);
    if (filled.attrs.has("seed") && filled.attr<int64_t>("seed") == 0) return false;
  }
  return true;
}

std::string renamed(const std::string& prefix, const std::string& name) {
  return name.empty() ? name : prefix + name;
}

class CompiledCases : public ::testing::Environment {
 public:
  void TearDown() override {
    Suite& s = suite();
    if (s.cases.empty()) return;
    const fs::path dir =
        fs::temp_directory_path() / ("skiff_compiled_cases_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "run");
    codegen::CompileOptions options;
    options.out_dir = (dir / "model").string();
    options.jobs = 2;
    options.origin = "the op tests' cases";
    for (const auto& [name, value] : s.feeds) options.feeds.push_back(name);
    for (const Case& c : s.cases)
      options.fetches.insert(options.fetches.end(), c.fetches.begin(), c.fetches.end());
    codegen::CompiledModel model;
    try {
      model = codegen::compile_model(s.program, "", options);
    } catch (const Error& e) {
      ADD_FAILURE() << "compiling the " << s.cases.size() << " cases failed: " << e.what();
      return;
    }
    // Run in the inputs' folder, naming them relatively: with a thousand cases the command
    // is tens of kilobytes, and one shell argument may hold at most 128 KiB.
    std::string command = "cd " + (dir / "run").string() + " && " + model.executable;
    for (const auto& [name, value] : s.feeds) {
      write_npy((dir / "run" / (name + ".npy")).string(), value);
      command += " --in " + name + "=" + name + ".npy";
    }
    const fs::path out = dir / "run" / "out";
    command += " --out out > " + (dir / "run.log").string() + " 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << "the compiled cases failed: see " << dir;
    for (const Case& c : s.cases) {
      for (size_t i = 0; i < c.fetches.size(); ++i) {
        const Tensor got = read_npy((out / (c.fetches[i] + ".npy")).string());
        std::string why;
        EXPECT_TRUE(all_close(got, c.results[i], c.atol, c.rtol, &why))
            << c.what << ", compiled: " << c.fetches[i] << ": " << why;
      }
    }
    std::printf("compiled cases: %zu cases of %zu ops in one model, each as the interpreter\n",
                s.cases.size(), s.program.global_block().ops.size());
    if (!::testing::Test::HasFailure()) fs::remove_all(dir);
  }
};

const ::testing::Environment* const kRegistered =
    ::testing::AddGlobalTestEnvironment(new CompiledCases);

}  // namespace

bool recording_compiled_cases() {
  const char* v = std::getenv("SKIFF_TEST_COMPILED_CASES");
  return v && *v && std::string(v) != "0";
}

void record_compiled_case(const std::string& what, const Program& program,
                          const std::map<std::string, Tensor>& feeds,
                          const std::vector<std::string>& fetches,
                          const std::vector<Tensor>& results, double atol, double rtol) {
  if (!recording_compiled_cases() || !compilable(program, results)) return;
  Suite& s = suite();
  if (!s.cases.empty() && program == s.last_program && same_values(feeds, s.last_feeds)) return;
  s.last_program = program;
  s.last_feeds = feeds;
  const std::string prefix = "c" + std::to_string(s.cases.size()) + "_";
  Block& block = s.program.global_block();
  for (const auto& [name, var] : program.global_block().vars) {
    VarDesc v = var;
    v.name = prefix + name;
    v.persistable = false;  // every value is fed
    block.add_var(v);
  }
  for (OpDesc op : program.global_block().ops) {
    for (auto* slots : {&op.inputs, &op.outputs})
      for (Slot& slot : *slots)
        for (std::string& name : slot.second) name = renamed(prefix, name);
    block.ops.push_back(std::move(op));
  }
  std::set<std::string> read;  // feeds no op reads are not inputs of the model
  for (const OpDesc& op : program.global_block().ops)
    for (const Slot& slot : op.inputs) read.insert(slot.second.begin(), slot.second.end());
  for (const auto& [name, value] : feeds)
    if (read.count(name)) s.feeds[prefix + name] = value;
  Case c{what, {}, results, atol, rtol};
  for (const std::string& f : fetches) c.fetches.push_back(prefix + f);
  s.cases.push_back(std::move(c));
}

}  // namespace skiff::testing
