// Checks a program against the op schemas before it is run, compiled or exported:
// block structure (parents valid and acyclic, sub-blocks nested in their op's
// block), op types known, slots and attributes as the schema declares them, input
// variables declared where the op can see them, step-scope variables only where ops
// that run blocks keep them. The first problem found is thrown as a skiff::Error
// naming the block, the op index and type, and the offending slot, variable or attr.
//
//   verify_program(program, find_op_schema);   // find_op_schema: skiff/ops/registry.h
#pragma once

#include <functional>
#include <string>

#include "skiff/ir/op_schema.h"
#include "skiff/ir/program.h"

namespace skiff {

// The schema of an op type, or nullptr when the type is unknown.
using OpSchemaLookup = std::function<const OpSchema*(const std::string& type)>;

// Throws skiff::Error describing the first problem of `program`; returns if none.
void verify_program(const Program& program, const OpSchemaLookup& find_schema);

}  // namespace skiff
