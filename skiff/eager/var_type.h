// What eager mode knows of a value's type before running anything on it: the
// declaration a program would carry for it, and a short key for kernel caches.
#pragma once

#include <string>

#include "skiff/core/variable.h"
#include "skiff/ir/program.h"

namespace skiff::eager {

// A VarDesc for `value`: its kind, dtype and shape (selected rows: [height, row dims]).
VarDesc describe_value(const std::string& name, const Variable& value);
// Appends two characters naming the value's kind and dtype.
void append_type_key(const Variable& value, std::string* key);

}  // namespace skiff::eager
