// The traits ops register (ops/registry.h), which the runtime, append_backward, the
// compiler, the int8 pass and auto_cast read instead of op types matched by name.
#include "skiff/ops/registry.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cstring>

#include "skiff/ops/control_flow.h"

namespace skiff {
namespace {

TEST(OpTraits, BlockRolesAndSlots) {
  const OpRegistry& r = OpRegistry::global();
  EXPECT_EQ(r.get(kWhileOp).block_role, BlockRole::kLoop);
  EXPECT_EQ(r.get("while_grad").block_role, BlockRole::kLoopGrad);
  EXPECT_EQ(r.get(kConditionalBlockOp).block_role, BlockRole::kBranch);
  EXPECT_EQ(r.get("conditional_block_grad").block_role, BlockRole::kBranchGrad);
  EXPECT_STREQ(r.get(kWhileOp).block_slots.cond, "Condition");
  EXPECT_STREQ(r.get(kConditionalBlockOp).block_slots.scopes, "Scope");
  EXPECT_TRUE(r.get(kWhileOp).runs_forward_block());
  EXPECT_FALSE(r.get("while_grad").runs_forward_block());
}

// An op runs blocks exactly when it has a block attribute, and every slot its role names
// is one of its slots.
TEST(OpTraits, EveryOpWithABlockHasARole) {
  const OpRegistry& r = OpRegistry::global();
  for (const std::string& type : r.types()) {
    const OpInfo& info = r.get(type);
    bool has_block = false;
    for (const AttrSchema& a : info.schema.attrs)
      has_block = has_block || a.type == AttrType::kBlock || a.type == AttrType::kBlocks;
    EXPECT_EQ(info.runs_blocks(), has_block) << type;
    if (!info.runs_blocks()) continue;
    const BlockSlots& s = info.block_slots;
    for (const char* slot : {s.reads, s.writes, s.scopes, s.cond}) {
      if (!*slot) continue;
      const bool known =
          info.schema.find_input(slot) != nullptr || info.schema.find_output(slot) != nullptr;
      EXPECT_TRUE(known) << type << " names slot " << slot;
    }
  }
}

TEST(OpTraits, AmpAndInt8Forms) {
  const OpRegistry& r = OpRegistry::global();
  std::vector<std::string> low_precision, int8;
  for (const std::string& type : r.types()) {
    const OpInfo& info = r.get(type);
    if (info.amp == AmpPolicy::kLowPrecision) low_precision.push_back(type);
    if (!info.int8_form) continue;
    int8.push_back(type);
    const OpInfo& q = r.get(info.int8_form->int8_op);  // the int8 op is registered
    EXPECT_NE(q.schema.find_input(info.int8_form->x_scale), nullptr) << type;
    EXPECT_NE(info.schema.find_input(info.int8_form->w), nullptr) << type;
  }
  EXPECT_EQ(low_precision, (std::vector<std::string>{"conv2d", "matmul"}));
  EXPECT_EQ(int8, (std::vector<std::string>{"conv2d", "matmul"}));
  EXPECT_STREQ(amp_policy_name(r.get("relu").amp), "follow");
}

TEST(OpTraits, OpsThatMoveValues) {
  const OpRegistry& r = OpRegistry::global();
  std::vector<std::string> moving;
  for (const std::string& type : r.types())
    if (r.get(type).moves_values) moving.push_back(type);
  EXPECT_EQ(moving,
            (std::vector<std::string>{"flatten", "reshape", "squeeze", "transpose", "unsqueeze"}));
}

// The ops whose Out may name an input (the executor folds `v = assign(P(v))` into them):
// each has one output, Out, and kernels documented to work in place.
TEST(OpTraits, OpsThatWriteInPlace) {
  const OpRegistry& r = OpRegistry::global();
  std::vector<std::string> in_place;
  for (const std::string& type : r.types()) {
    const OpInfo& info = r.get(type);
    if (!info.writes_in_place) continue;
    in_place.push_back(type);
    ASSERT_EQ(info.schema.outputs.size(), 1u) << type;
    EXPECT_EQ(info.schema.outputs[0].name, "Out") << type;
    EXPECT_FALSE(info.runs_blocks()) << type;
  }
  for (const char* type :
       {"elementwise_add", "elementwise_min", "tanh", "relu", "gelu", "pow", "scale", "increment"})
    EXPECT_NE(std::find(in_place.begin(), in_place.end(), type), in_place.end()) << type;
  for (const char* type : {"matmul", "softmax", "assign", "cast", "conv2d"})
    EXPECT_EQ(std::find(in_place.begin(), in_place.end(), type), in_place.end()) << type;
}

}  // namespace
}  // namespace skiff
