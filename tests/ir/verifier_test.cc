// verify_program against a small table of test schemas (so each rule is checked in
// isolation), and against the real registry on programs built and differentiated by
// the library.
#include "skiff/ir/verifier.h"

#include <gtest/gtest.h>

#include <map>

#include "skiff/ops/registry.h"
#include "tests/ir/sample_programs.h"

namespace skiff {
namespace {

SlotSchema slot(const char* name, bool duplicable = false, bool optional = false) {
  return SlotSchema{name, "", duplicable, optional};
}

const std::map<std::string, OpSchema>& test_schemas() {
  static const auto* schemas = [] {
    auto* m = new std::map<std::string, OpSchema>;
    (*m)["tanh"] = OpSchema{"tanh", "", {slot("X")}, {slot("Out")}, {}};
    (*m)["sum"] = OpSchema{"sum", "", {slot("X", true)}, {slot("Out")}, {}};
    (*m)["scale"] = OpSchema{"scale",
                             "",
                             {slot("X")},
                             {slot("Out")},
                             {AttrSchema{"scale", AttrType::kFloat, Attr(1.0), ""},
                              AttrSchema{"bias_after", AttrType::kBool, Attr(false), ""}}};
    (*m)["fill"] = OpSchema{
        "fill", "", {}, {slot("Out")}, {AttrSchema{"shape", AttrType::kInts, std::nullopt, ""}}};
    (*m)["while"] = OpSchema{"while",
                             "",
                             {slot("X", true), slot("Condition")},
                             {slot("Out", true), slot("StepScopes", false, true)},
                             {AttrSchema{"sub_block", AttrType::kBlock, std::nullopt, ""}}};
    return m;
  }();
  return *schemas;
}

const OpSchema* find_test_schema(const std::string& type) {
  auto it = test_schemas().find(type);
  return it == test_schemas().end() ? nullptr : &it->second;
}

std::string verify_error(const Program& p) {
  try {
    verify_program(p, find_test_schema);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// x -> tanh -> y; a while loop whose body (block 1) reads x and y and writes c.
Program valid_program() {
  Program p;
  Block& g = p.global_block();
  g.add_var(VarDesc("x", DType::kF32, Shape{-1, 4}));
  g.add_var(VarDesc("y", DType::kF32, Shape{-1, 4}));
  g.add_var(VarDesc("c", DType::kBool, Shape{1}));
  g.add_var(VarDesc("scopes", DType::kF32, Shape{}, VarKind::kStepScopes));
  g.append_op("tanh").set_input("X", {"x"}).set_output("Out", {"y"});
  const int body = p.add_block(0).idx;
  p.block(body).add_var(VarDesc("t", DType::kF32, Shape{-1, 4}));
  p.block(body).append_op("sum").set_input("X", {"x", "y"}).set_output("Out", {"t"});
  p.block(body)
      .append_op("scale")
      .set_input("X", {"t"})
      .set_output("Out", {"y"})
      .set_attr("scale", 2.0);
  p.global_block()
      .append_op("while")
      .set_input("X", {"x", "y"})
      .set_input("Condition", {"c"})
      .set_output("Out", {"y"})
      .set_output("StepScopes", {"scopes"})
      .set_attr("sub_block", BlockRef{body});
  return p;
}

TEST(Verifier, AcceptsAValidProgram) { EXPECT_EQ(verify_error(valid_program()), ""); }

TEST(Verifier, BlockZeroMustBeTheRoot) {
  Program p = valid_program();
  p.blocks()[0].parent_idx = 1;
  EXPECT_EQ(verify_error(p), "block 0 (the global block) must have parent -1, not 1");
}

TEST(Verifier, RejectsBadAndCyclicParents) {
  Program p = valid_program();
  p.blocks()[1].parent_idx = 9;
  EXPECT_EQ(verify_error(p), "block 1: parent block 9 does not exist (the program has 2 blocks)");
  Program q = valid_program();
  q.add_block(1);
  q.blocks()[1].parent_idx = 2;
  EXPECT_EQ(verify_error(q),
            "block 1: its parent chain 1 -> 2 -> 1 is cyclic and never reaches block 0");
  Program r = valid_program();
  r.add_block(1);
  r.add_block(2);
  r.blocks()[2].parent_idx = 3;  // 1 -> 0 is fine; 2 -> 3 -> 2 loops without 1
  EXPECT_NE(verify_error(r).find("block 2: its parent chain 2 -> 3 -> 2 is cyclic"),
            std::string::npos);
  Program s = valid_program();
  s.blocks()[1].idx = 4;
  EXPECT_EQ(verify_error(s), "the block at position 1 says it is block 4");
}

TEST(Verifier, RejectsUnknownOps) {
  Program p = valid_program();
  p.block(1).append_op("frobnicate");
  EXPECT_EQ(verify_error(p), "block 1, op 2 (frobnicate): unknown op type 'frobnicate'");
}

TEST(Verifier, NamesTheSourceOfTheOp) {
  Program p = valid_program();
  p.global_block().append_op("frobnicate").set_attr(kSourceAttr, std::string("model.py:12"));
  EXPECT_EQ(verify_error(p),
            "block 0, op 2 (frobnicate, created at model.py:12): unknown op type 'frobnicate'");
}

TEST(Verifier, InputsMustBeDeclaredInTheBlockOrAnAncestor) {
  Program p = valid_program();
  p.block(1).ops[1].set_input("X", {"nope"});
  EXPECT_EQ(verify_error(p),
            "block 1, op 1 (scale): input X='nope' is not declared in block 1 or its ancestors");
  // "t" lives in block 1; block 0 cannot see it.
  Program q = valid_program();
  q.global_block().ops[0].set_input("X", {"t"});
  EXPECT_EQ(verify_error(q),
            "block 0, op 0 (tanh): input X='t' is not declared in block 0 or its ancestors");
  // An empty name (an absent optional input) is fine.
  Program r = valid_program();
  r.block(1).ops[0].set_input("X", {"x", ""});
  EXPECT_EQ(verify_error(r), "");
}

TEST(Verifier, ChecksSlots) {
  Program p = valid_program();
  p.global_block().ops[0].set_input("Y", {"x"});
  EXPECT_EQ(verify_error(p),
            "block 0, op 0 (tanh): tanh has no input slot 'Y' (its inputs are: X)");
  Program q = valid_program();
  q.global_block().ops[0].set_input("X", {"x", "y"});
  EXPECT_EQ(verify_error(q),
            "block 0, op 0 (tanh): input slot 'X' takes one variable, got 2 ('x', 'y')");
  Program r = valid_program();
  r.global_block().ops[0].set_output("Extra", {"y"});
  EXPECT_NE(verify_error(r).find("tanh has no output slot 'Extra' (its outputs are: Out)"),
            std::string::npos);
  Program s = valid_program();
  s.global_block().ops[0].inputs.push_back({"X", {"x"}});
  EXPECT_EQ(verify_error(s), "block 0, op 0 (tanh): input slot 'X' appears twice");
}

TEST(Verifier, ChecksAttributes) {
  Program p = valid_program();
  p.block(1).ops[1].set_attr("scale", std::string("big"));
  EXPECT_EQ(verify_error(p),
            "block 1, op 1 (scale): attribute 'scale' must be float, got string \"big\"");
  Program q = valid_program();
  q.block(1).ops[1].set_attr("scale", int64_t{3});  // an int where a float is declared
  EXPECT_EQ(verify_error(q), "");
  Program r = valid_program();
  r.block(1).ops[1].set_attr("bias_after", int64_t{1});
  EXPECT_NE(verify_error(r).find("attribute 'bias_after' must be bool, got int"),
            std::string::npos);
  Program s = valid_program();
  s.block(1).ops[1].set_attr("colour", std::string("red"));
  EXPECT_EQ(verify_error(s),
            "block 1, op 1 (scale): scale has no attribute 'colour' (its attributes are: scale, "
            "bias_after)");
  Program t = valid_program();
  t.global_block().append_op("fill").set_output("Out", {"x"});
  EXPECT_EQ(verify_error(t), "block 0, op 2 (fill): required attribute 'shape' (ints) is missing");
  Program u = valid_program();
  u.global_block().ops[0].set_attr(kSourceAttr, int64_t{12});
  EXPECT_NE(verify_error(u).find("attribute 'op_source' must be a string"), std::string::npos);
}

TEST(Verifier, SubBlocksMustBeNestedInTheOpsBlock) {
  Program p = valid_program();
  p.global_block().ops[1].set_attr("sub_block", BlockRef{0});
  EXPECT_EQ(verify_error(p),
            "block 0, op 1 (while): attribute 'sub_block' refers to block 0 (parent -1), which is "
            "not nested in this op's block 0");
  Program q = valid_program();
  q.global_block().ops[1].set_attr("sub_block", BlockRef{7});
  EXPECT_EQ(verify_error(q),
            "block 0, op 1 (while): attribute 'sub_block' refers to block 7, but the program has "
            "2 blocks");
  // A block nested deeper (as grad blocks are: children of the forward body) is fine.
  Program r = valid_program();
  const int deeper = r.add_block(1).idx;
  r.global_block().ops[1].set_attr("sub_block", BlockRef{deeper});
  EXPECT_EQ(verify_error(r), "");
}

TEST(Verifier, StepScopesOnlyWhereBlockRunningOpsKeepThem) {
  Program p = valid_program();
  p.global_block().ops[0].set_input("X", {"scopes"});
  EXPECT_NE(verify_error(p).find("block 0, op 0 (tanh): variable 'scopes' in slot X holds step "
                                 "scopes"),
            std::string::npos);
  Program q = valid_program();
  q.global_block().ops[1].set_output("StepScopes", {"x"});
  EXPECT_EQ(verify_error(q),
            "block 0, op 1 (while): slot StepScopes must hold a step_scopes variable, but 'x' is "
            "a tensor");
}

TEST(Verifier, ChecksVariableDeclarations) {
  Program p = valid_program();
  p.global_block().vars["x"].dtype = static_cast<DType>(11);
  EXPECT_EQ(verify_error(p), "block 0, variable 'x': unknown dtype number 11");
  Program q = valid_program();
  q.global_block().vars["x"].name = "z";
  EXPECT_EQ(verify_error(q), "block 0, variable 'x' is stored under another name ('z')");
}

TEST(Verifier, FeedAndFetchTargetsMustBeDeclaredInBlockZero) {
  Program p = valid_program();
  p.feed_names = {"x"};
  p.fetch_names = {"y"};
  EXPECT_EQ(verify_error(p), "");
  p.fetch_names = {"t"};  // declared in the loop body only
  EXPECT_EQ(verify_error(p), "the program's fetch target 't' is not declared in block 0");
}

TEST(Verifier, AcceptsProgramsBuiltByTheLibrary) {
  EXPECT_NO_THROW(verify_program(testing::counting_loop_program(), find_op_schema));
  EXPECT_NO_THROW(verify_program(testing::loop_with_backward_program(), find_op_schema));
}

TEST(Verifier, RegistryRejectsUnregisteredOps) {
  Program p = testing::counting_loop_program();
  p.global_block().append_op("no_such_op");
  EXPECT_THROW(verify_program(p, find_op_schema), Error);
}

}  // namespace
}  // namespace skiff
