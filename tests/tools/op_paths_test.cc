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
    {"accuracy", "not a binding yet"},
    {"adagrad", "not a binding yet"},
    {"arange", "not a binding yet"},
    {"cast_grad", "not a binding yet"},
    {"cholesky", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"cholesky_grad", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"concat_grad", "not a binding yet"},
    {"conv2d_transpose", "not a binding yet"},
    {"conv2d_transpose_grad", "not a binding yet"},
    {"conv3d_transpose", "not a binding yet"},
    {"conv3d_transpose_grad", "not a binding yet"},
    {"determinant", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"determinant_grad", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"eigh", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"eigh_grad", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"gaussian_random", "random numbers from the interpreter's generator state: not a binding yet"},
    {"inverse", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"inverse_grad", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"lr_cosine_annealing", "not a binding yet"},
    {"lr_linear_warmup", "not a binding yet"},
    {"lr_step_decay", "not a binding yet"},
    {"print",
     "prints through the interpreter's tensor formatter at run time; not carried into standalone "
     "models"},
    {"print_grad",
     "prints through the interpreter's tensor formatter at run time; not carried into standalone "
     "models"},
    {"qr", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"qr_grad", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"reduce_max", "not a binding yet"},
    {"reduce_max_grad", "not a binding yet"},
    {"reduce_min", "not a binding yet"},
    {"reduce_min_grad", "not a binding yet"},
    {"reduce_prod", "not a binding yet"},
    {"reduce_prod_grad", "not a binding yet"},
    {"rmsprop", "not a binding yet"},
    {"run_program",
     "runs a saved program through the interpreter (to_static's call); a compiled program inlines "
     "its blocks instead"},
    {"run_program_grad",
     "runs a saved program through the interpreter (to_static's call); a compiled program inlines "
     "its blocks instead"},
    {"set_value", "not a binding yet"},
    {"set_value_grad", "not a binding yet"},
    {"shape", "not a binding yet"},
    {"slogdet", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"slogdet_grad", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"solve", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"solve_grad", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"squared_l2_norm", "not a binding yet"},
    {"squared_l2_norm_grad", "not a binding yet"},
    {"strided_slice", "not a binding yet"},
    {"strided_slice_grad", "not a binding yet"},
    {"svd", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"svd_grad", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"triangular_solve", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"triangular_solve_grad", "linear algebra on Eigen's decompositions: not a binding yet"},
    {"tril_triu", "not a binding yet"},
    {"truncated_gaussian_random",
     "random numbers from the interpreter's generator state: not a binding yet"},
    {"uniform_random", "random numbers from the interpreter's generator state: not a binding yet"},
    {"unique", "output shape known only at run time from the values: not a binding yet"},
    {"unique_consecutive",
     "output shape known only at run time from the values: not a binding yet"},
    {"where_index", "output shape known only at run time from the values: not a binding yet"},
};
// The length of kNotCompiled when it was last cut; lower it as ops gain a compile path.
constexpr size_t kMostNotCompiled = 55;

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
