// Parameter files (.skparams): named tensors in one checksummed file, written
// atomically (temp file + fsync + rename), so a crash never leaves half a file.
//
// Layout (little-endian): magic "SKIFFPRM", format version (uint32), then the
// payload: tensor count (uint64) and per tensor its name (uint32 length + bytes),
// dtype (uint8, skiff::DType), rank (uint8), dims (int64 each), data byte count
// (uint64) and the row-major data; last, the CRC-32 (zlib) of the payload (uint32).
//
//   save_persistables("model.skparams", program, scope);   // after training
//   load_persistables("model.skparams", program, &scope);  // before inference
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "skiff/core/tensor.h"
#include "skiff/ir/program.h"
#include "skiff/runtime/scope.h"

namespace skiff {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// Writes `tensors` (distinct names, initialized dense tensors) to `path` atomically.
void save_params(const std::string& path, const NamedTensors& tensors);
// Reads a parameter file in the order it was written; a corrupt or truncated file
// gives a skiff::Error naming the file.
NamedTensors load_params(const std::string& path);

// Saves every persistable dense-tensor variable declared in `program` (any block)
// from `scope`; errors name a variable that is missing or uninitialized.
void save_persistables(const std::string& path, const Program& program, const Scope& scope);
// Loads the persistable variables of `program` from `path` into `scope`, checking
// each against its declaration (dtype, rank, known dims). Every persistable must
// be in the file; tensors the program does not declare (e.g. optimizer state when
// loading for inference) are ignored.
void load_persistables(const std::string& path, const Program& program, Scope* scope);

}  // namespace skiff
