// Every registered op runs in the interpreter and either compiles or is listed below with
// the reason it does not. The list may only shrink: an op that gains a compile path must
// leave it (the test names it), and a new op comes with a compile path or a reason here.
#include "skiff/tools/op_paths.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "skiff/ops/registry.h"

namespace skiff {
namespace {

const std::map<std::string, std::string> kNotCompiled = {
    {"run_program",
     "runs a saved program through the interpreter (to_static's call); a compiled program inlines "
     "its blocks instead"},
    {"run_program_grad",
     "runs a saved program through the interpreter (to_static's call); a compiled program inlines "
     "its blocks instead"},
};
// The length of kNotCompiled when it was last cut; lower it as ops gain a compile path.
constexpr size_t kMostNotCompiled = 2;

TEST(OpPaths, EveryOpCompilesOrSaysWhyNot) {
  for (const std::string& type : OpRegistry::global().types()) {
    const OpPaths p = op_paths(type);
    EXPECT_TRUE(p.interpreter) << type << " has no kernel and does not run blocks";
    if (p.compile) {
      EXPECT_EQ(kNotCompiled.count(type), 0u) << type << " compiles now: take it off kNotCompiled";
    } else {
      EXPECT_EQ(kNotCompiled.count(type), 1u)
          << type << " has no compile path (a binding, ops/binding.h, or a codegen rule) and no "
          << "reason in kNotCompiled";
    }
  }
  for (const auto& [type, reason] : kNotCompiled)
    EXPECT_NE(OpRegistry::global().find(type), nullptr) << type << " is not a registered op";
  EXPECT_LE(kNotCompiled.size(), kMostNotCompiled) << "kNotCompiled may only shrink";
}

TEST(OpPaths, BindingsAndRulesAreCounted) {
  const OpPaths gather = op_paths("gather");  // a binding
  EXPECT_TRUE(gather.interpreter && gather.eager && gather.compile && gather.onnx);
  const OpPaths loop = op_paths("while");  // run by the runtime itself; a codegen rule
  EXPECT_TRUE(loop.interpreter && loop.compile);
  EXPECT_FALSE(loop.eager);
  EXPECT_THROW(op_paths("no_such_op"), Error);
}

}  // namespace
}  // namespace skiff
