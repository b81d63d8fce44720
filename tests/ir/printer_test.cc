// The text form of programs: exact output for a small loop, and robustness on
// programs that do not verify.
#include "skiff/ir/printer.h"

#include <gtest/gtest.h>

#include "tests/ir/sample_programs.h"

namespace skiff {
namespace {

Program small_loop() {
  Program p;
  Block& g = p.global_block();
  g.add_var(VarDesc("x", DType::kF32, Shape{2, 3}));
  VarDesc w("w", DType::kF32, Shape{3, 3});
  w.persistable = true;
  g.add_var(w);
  g.add_var(VarDesc("i", DType::kI64, Shape{1}));
  g.add_var(VarDesc("n", DType::kI64, Shape{1}));
  g.add_var(VarDesc("c", DType::kBool, Shape{1}));
  g.add_var(VarDesc("scopes", DType::kF32, Shape{}, VarKind::kStepScopes));
  g.append_op("fill_constant")
      .set_output("Out", {"i"})
      .set_attr("shape", std::vector<int64_t>{1})
      .set_attr("value", 0.0)
      .set_attr("dtype", std::string("int64"));
  g.append_op("less_than").set_input("X", {"i"}).set_input("Y", {"n"}).set_output("Out", {"c"});
  const int body = p.add_block(0).idx;
  p.global_block()
      .append_op("while")
      .set_input("X", {"x", "w", "i", "n"})
      .set_input("Condition", {"c"})
      .set_output("Out", {"x", "i", "c"})
      .set_output("StepScopes", {"scopes"})
      .set_attr("sub_block", BlockRef{body})
      .set_attr(kSourceAttr, std::string("model.py:9"));
  Block& b = p.block(body);
  b.add_var(VarDesc("h", DType::kF32, Shape{2, 3}));
  b.append_op("matmul").set_input("X", {"x"}).set_input("Y", {"w"}).set_output("Out", {"h"});
  b.append_op("tanh").set_input("X", {"h"}).set_output("Out", {"x"});
  b.append_op("increment").set_input("X", {"i"}).set_output("Out", {"i"}).set_attr("step", 1.0);
  b.append_op("less_than").set_input("X", {"i"}).set_input("Y", {"n"}).set_output("Out", {"c"});
  return p;
}

TEST(Printer, SmallLoop) {
  EXPECT_EQ(program_to_text(small_loop()),
            "block 0 (parent -1):\n"
            "  var c: bool[1] tensor\n"
            "  var i: int64[1] tensor\n"
            "  var n: int64[1] tensor\n"
            "  var scopes: step_scopes\n"
            "  var w: float32[3, 3] tensor persistable\n"
            "  var x: float32[2, 3] tensor\n"
            "  {i} = fill_constant() {dtype=\"int64\", shape=[1], value=0}\n"
            "  {c} = less_than(X={i}, Y={n})\n"
            "  {Out={x, i, c}, StepScopes={scopes}} = while(X={x, w, i, n}, Condition={c}) "
            "{sub_block=block 1}  # model.py:9\n"
            "    block 1 (parent 0):\n"
            "      var h: float32[2, 3] tensor\n"
            "      {h} = matmul(X={x}, Y={w})\n"
            "      {x} = tanh(X={h})\n"
            "      {i} = increment(X={i}) {step=1}\n"
            "      {c} = less_than(X={i}, Y={n})\n");
}

TEST(Printer, ShowsFeedAndFetchTargetsFirst) {
  Program p = small_loop();
  p.feed_names = {"x", "n"};
  p.fetch_names = {"x"};
  EXPECT_EQ(program_to_text(p).substr(0, 47), "feeds {x, n}, fetches {x}\nblock 0 (parent -1):\n");
}

TEST(Printer, EmptyNamesAndOtherSlots) {
  OpDesc op("tanh_grad");
  op.set_input("Out", {"y"}).set_input("Out@GRAD", {"y@GRAD"}).set_output("X@GRAD", {""});
  EXPECT_EQ(op_to_text(op), "{X@GRAD={_}} = tanh_grad(Out={y}, Out@GRAD={y@GRAD})");
}

TEST(Printer, IsDeterministic) {
  Program p = testing::loop_with_backward_program();
  EXPECT_EQ(program_to_text(p), program_to_text(testing::loop_with_backward_program()));
  // Every block is shown once.
  std::string text = program_to_text(p);
  for (int i = 0; i < p.num_blocks(); ++i) {
    std::string header = str_cat("block ", i, " (parent ");
    size_t at = text.find(header);
    ASSERT_NE(at, std::string::npos) << header;
    EXPECT_EQ(text.find(header, at + 1), std::string::npos) << header;
  }
}

TEST(Printer, ShowsBadReferencesWithoutFollowingThem) {
  Program p = small_loop();
  p.global_block().append_op("while").set_attr("sub_block", BlockRef{1});
  p.global_block().append_op("while").set_attr("sub_block", BlockRef{5});
  p.add_block(0);  // run by no op
  std::string text = program_to_text(p);
  EXPECT_NE(text.find("    (block 1 is shown above)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    (block 5 does not exist)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nblock 2 (parent 0):\n"), std::string::npos) << text;
}

TEST(Printer, DeepNestingDoesNotRecurseWithoutBound) {
  Program p;
  for (int i = 1; i <= 500; ++i) {
    p.add_block(i - 1);
    p.block(i - 1).append_op("while").set_attr("sub_block", BlockRef{i});
  }
  std::string text = program_to_text(p);
  for (int i = 0; i <= 500; ++i) {
    EXPECT_NE(text.find(str_cat("block ", i, " (parent ", i - 1, "):\n")), std::string::npos);
  }
}

}  // namespace
}  // namespace skiff
