// A program's persistable variables between a Scope and a parameter file (the format:
// formats/params_file.h).
//
//   save_persistables("model.skparams", program, scope);   // after training
//   load_persistables("model.skparams", program, &scope);  // before inference
#pragma once

#include <string>

#include "skiff/formats/params_file.h"
#include "skiff/ir/program.h"
#include "skiff/runtime/scope.h"

namespace skiff {

// Saves every persistable dense-tensor variable declared in `program` (any block)
// from `scope`; errors name a variable that is missing or uninitialized.
void save_persistables(const std::string& path, const Program& program, const Scope& scope);
// Loads the persistable variables of `program` from `path` into `scope`, checking
// each against its declaration (load_program_params).
void load_persistables(const std::string& path, const Program& program, Scope* scope);

}  // namespace skiff
