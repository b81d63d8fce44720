// The types of the ops that run sub-blocks (ops/control_flow.cc), for the code that builds
// them (api/builder.cc). Code that meets such an op reads its traits instead
// (OpInfo::block_role, OpInfo::block_slots in ops/registry.h).
#pragma once

namespace skiff {

inline constexpr char kWhileOp[] = "while";                         // BlockRole::kLoop
inline constexpr char kConditionalBlockOp[] = "conditional_block";  // BlockRole::kBranch

}  // namespace skiff
