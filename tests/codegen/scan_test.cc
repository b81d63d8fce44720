// skiff compile on the running reductions: an executable holding cumsum, cumprod,
// logcumsumexp, cummax and cummin with their grad ops (top_k_grad for the extremes) gives
// the interpreter's outputs and gradients.
#include "skiff/autodiff/backward.h"
#include "skiff/codegen/target.h"
#include "tests/codegen/programs.h"
#include "tests/testing/op_test.h"

namespace skiff::testing {
namespace {

// w [3, 5] (a parameter) * x -> each running reduction -> summed loss; backward appended.
ModelWithParams scan_model(std::vector<std::string>* fetches) {
  ModelWithParams m;
  BlockBuilder b(&m.program);
  b.data("x", DType::kF32, {3, 5});
  b.persistable("w", DType::kF32, {3, 5});
  m.params.push_back({"w", wave({3, 5}, DType::kF32, 0.7, 0.4)});
  const std::string in = b.apply("elementwise_mul", {{"X", {"x"}}, {"Y", {"w"}}});
  std::vector<std::string> outs;
  outs.push_back(b.apply("cumsum", {{"X", {in}}}, {{"axis", int64_t{1}}, {"reverse", true}}));
  outs.push_back(b.apply("cumprod", {{"X", {in}}}, {{"axis", int64_t{0}}}));
  outs.push_back(b.apply("logcumsumexp", {{"X", {in}}}, {{"axis", int64_t{1}}}));
  for (const char* type : {"cummax", "cummin"}) {
    const std::string out = b.unique_name(type);
    b.op(type, {{"X", {in}}}, {{"Out", {out}}, {"Indices", {out + ".idx"}}},
         {{"axis", int64_t{-1}}});
    outs.push_back(out);
  }
  std::string loss;
  for (const std::string& out : outs) {
    const std::string s = b.apply("reduce_sum", {{"X", {out}}}, {{"reduce_all", true}});
    loss = loss.empty() ? s : b.apply("elementwise_add", {{"X", {loss}}, {"Y", {s}}});
  }
  const auto grads = append_backward(m.program, loss);
  m.program.feed_names = {"x"};
  *fetches = outs;
  fetches->push_back(grads.at(0).second);
  m.program.fetch_names = *fetches;
  return m;
}

TEST(ScanCompileTest, ExecutableMatchesInterpreter) {
  std::vector<std::string> fetches;
  const ModelWithParams m = scan_model(&fetches);
  const std::string dir = scratch_dir();
  codegen::CompileOptions o;
  o.out_dir = dir + "/out";
  o.target = "x86-64";
  o.jobs = 2;
  const codegen::CompiledModel c = codegen::compile_model_file(save_model(m, dir), o);
  for (const char* call :
       {"kernels::cumprod_grad(", "kernels::logcumsumexp_grad(", "kernels::top_k_grad("}) {
    EXPECT_NE(c.generated.model_cc.find(call), std::string::npos) << call;
  }
  const Tensor x = wave({3, 5}, DType::kF32, 1.2, 0.3);
  const auto got = run_executable(c.executable, {{"x", x}}, fetches);
  const auto want = interpret(m, {{"x", x}}, fetches);
  for (const std::string& name : fetches) {
    std::string why;
    EXPECT_TRUE(all_close(got.at(name), want.at(name), 1e-6, 1e-6, &why)) << name << ": " << why;
  }
}

}  // namespace
}  // namespace skiff::testing
