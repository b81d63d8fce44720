// What the fuzz target and its seed writer share: the file form of a fuzz input,
// the op schemas the target verifies against, and the seed programs.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "skiff/ir/op_schema.h"
#include "skiff/ir/program.h"

namespace skiff::fuzzing {

// A fuzz input is one mode byte then data: with an even mode byte the data is a
// whole program file; with an odd one it is the protobuf payload, put behind a
// valid header (so mutations reach the decoder instead of the length check).
std::string input_to_file(const std::string& input);
// The fuzz input (mode 1) whose file is `program_to_bytes(program)`.
std::string payload_input(const Program& program);

// The schemas of the ops the seed programs use; nullptr for other types.
const OpSchema* find_schema(const std::string& type);

// Named valid programs (loops, branches, grad blocks, every attr type).
std::vector<std::pair<std::string, Program>> seed_programs();

}  // namespace skiff::fuzzing
