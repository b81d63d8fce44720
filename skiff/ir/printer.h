// The text form of a program, for people (`skiff print`, SKIFF_DUMP_IR). Each block
// lists its variables, then its ops one per line; the block an op runs (while,
// conditional_block) is shown indented under it. Equal programs print equal text.
//
//   block 0 (parent -1):
//     var x: float32[-1, 16] tensor
//     var w: float32[16, 16] tensor persistable
//     {tanh_1} = tanh(X={x})  # model.py:3
#pragma once

#include <string>

#include "skiff/ir/program.h"

namespace skiff {

// The whole program as text. Works on unverified programs too (a dangling or
// repeated block reference is printed as such, never followed twice).
std::string program_to_text(const Program& program);

// One op on one line: "{Out} = type(In={a, b}) {attr=value, ...}  # source".
std::string op_to_text(const OpDesc& op);

}  // namespace skiff
