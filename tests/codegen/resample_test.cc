// skiff compile on the resize and window ops: an executable holding bilinear (sizes from
// attributes), bicubic (a scale), nearest (an OutSize input), unfold, fold and their grad
// ops gives the interpreter's outputs and gradients.
#include "skiff/autodiff/backward.h"
#include "skiff/codegen/target.h"
#include "tests/codegen/programs.h"
#include "tests/testing/op_test.h"

namespace skiff::testing {
namespace {

using Ints = std::vector<int64_t>;

// img [1, 3, 4, 5] (a parameter) * x -> resizes and windows -> loss; backward appended.
ModelWithParams resample_model(std::vector<std::string>* fetches) {
  ModelWithParams m;
  BlockBuilder b(&m.program);
  b.data("x", DType::kF32, {1, 3, 4, 5});
  b.persistable("img", DType::kF32, {1, 3, 4, 5});
  m.params.push_back({"img", wave({1, 3, 4, 5}, DType::kF32, 0.7, 0.4)});
  const std::string in = b.apply("elementwise_mul", {{"X", {"x"}}, {"Y", {"img"}}});
  const std::string up =
      b.apply("bilinear_interp_v2", {{"X", {in}}},
              {{"out_h", int64_t{6}}, {"out_w", int64_t{7}}, {"align_corners", true}});
  const AttrList window{{"kernel_sizes", Ints{2, 3}}, {"paddings", Ints{1, 0, 1, 2}}};
  const std::string cols = b.apply("unfold", {{"X", {up}}}, window);
  AttrList fold_attrs = window;
  fold_attrs.push_back({"output_sizes", Ints{6, 7}});
  const std::string back = b.apply("fold", {{"X", {cols}}}, fold_attrs);
  b.op("fill_constant", {}, {{"Out", {"size"}}},
       {{"shape", Ints{2}}, {"value", 5.0}, {"dtype", std::string("int32")}});
  const std::string near = b.apply("nearest_interp_v2", {{"X", {back}}, {"OutSize", {"size"}}}, {});
  const std::string cubic =
      b.apply("bicubic_interp_v2", {{"X", {in}}},
              {{"scale", std::vector<double>{1.5}}, {"align_mode", int64_t{0}}});
  const std::string a = b.apply("reduce_sum", {{"X", {near}}}, {{"reduce_all", true}});
  const std::string c = b.apply("reduce_sum", {{"X", {cubic}}}, {{"reduce_all", true}});
  const std::string loss = b.apply("elementwise_add", {{"X", {a}}, {"Y", {c}}});
  const auto grads = append_backward(m.program, loss);
  m.program.feed_names = {"x"};
  *fetches = {near, cubic, grads.at(0).second};
  m.program.fetch_names = *fetches;
  return m;
}

TEST(ResampleCompileTest, ExecutableMatchesInterpreter) {
  std::vector<std::string> fetches;
  const ModelWithParams m = resample_model(&fetches);
  const std::string dir = scratch_dir();
  codegen::CompileOptions o;
  o.out_dir = dir + "/out";
  o.target = "x86-64";
  o.jobs = 2;
  const codegen::CompiledModel c = codegen::compile_model_file(save_model(m, dir), o);
  EXPECT_NE(c.generated.model_cc.find("kernels::with_size_inputs("), std::string::npos);
  EXPECT_NE(c.generated.model_cc.find("kernels::fold("), std::string::npos);
  const Tensor x = wave({1, 3, 4, 5}, DType::kF32, 1.2, 0.3);
  const auto got = run_executable(c.executable, {{"x", x}}, fetches);
  const auto want = interpret(m, {{"x", x}}, fetches);
  for (const std::string& name : fetches) {
    std::string why;
    EXPECT_TRUE(all_close(got.at(name), want.at(name), 1e-6, 1e-6, &why)) << name << ": " << why;
  }
}

}  // namespace
}  // namespace skiff::testing
