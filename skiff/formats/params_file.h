// Parameter files (.skparams): named tensors in one checksummed file, written
// atomically (temp file + fsync + rename), so a crash never leaves half a file.
//
// Layout (little-endian): magic "SKIFFPRM", format version (uint32), then the
// payload: tensor count (uint64) and per tensor its name (uint32 length + bytes),
// dtype (uint8, skiff::DType), rank (uint8), dims (int64 each), data byte count
// (uint64) and the row-major data; last, the CRC-32 (zlib) of the payload (uint32).
//
//   save_params("model.skparams", {{"fc.w", w}, {"fc.b", b}});
//   NamedTensors params = load_program_params("model.skparams", program);
//
// Moving them to and from a Scope (save_persistables, load_persistables) is the
// runtime's part: runtime/persistables.h.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "skiff/core/tensor.h"
#include "skiff/ir/program.h"

namespace skiff {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// Writes `tensors` (distinct names, initialized dense tensors) to `path` atomically.
void save_params(const std::string& path, const NamedTensors& tensors);
// Reads a parameter file in the order it was written; a corrupt or truncated file
// gives a skiff::Error naming the file.
NamedTensors load_params(const std::string& path);

// Names of the persistable dense-tensor variables of `program` (any block), sorted: the
// tensors a parameter file of the program holds.
std::vector<std::string> persistable_names(const Program& program);

// Reads `path` and returns the persistable variables of `program` from it (in
// persistable_names order), each checked against its declaration (dtype, rank, known
// dims). Every persistable must be in the file; tensors the program does not declare
// (e.g. optimizer state when loading for inference) are left out.
NamedTensors load_program_params(const std::string& path, const Program& program);

}  // namespace skiff
