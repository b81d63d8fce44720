// Programs on disk (.skmodel). A file is the 8-byte magic "SKIFFMDL", the format
// version (uint32, little-endian), the length of the program data (uint64,
// little-endian), then the program as protobuf (proto/skiff.proto). Loading checks
// everything a later stage indexes by (enum ranges, block numbering, block
// references, attr types), so a bad file ends in a skiff::Error, never a crash;
// verify_program (verifier.h) then checks the program against the op schemas.
//
//   save_program(program, "model.skmodel");
//   Program back = load_program("model.skmodel");   // back == program
#pragma once

#include <string>

#include "skiff/ir/program.h"

namespace skiff {

// The magic every program file starts with.
inline constexpr char kProgramMagic[] = "SKIFFMDL";

// The file bytes of `program` (header + protobuf). Deterministic for equal programs.
std::string program_to_bytes(const Program& program);
// Parses file bytes; throws skiff::Error saying what is wrong (wrong magic, another
// format version, truncated or corrupt data, out-of-range values).
Program program_from_bytes(const std::string& bytes);

// Writes `program` to `path` atomically (temp file + fsync + rename).
void save_program(const Program& program, const std::string& path);
// Reads a program file; errors name the file.
Program load_program(const std::string& path);

}  // namespace skiff
