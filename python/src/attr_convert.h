// Python values -> op attributes, converted to the type the op's schema declares
// (ints for int attrs, floats for float attrs, sequences for list attrs).
#pragma once

#include <string>

#include "python/src/bindings.h"
#include "skiff/ir/attr.h"
#include "skiff/ir/op_schema.h"

namespace skiff::python {

// `value` as an attr of `schema`'s type; errors name the op, the attr and the value.
Attr attr_from_python(const std::string& op, const AttrSchema& schema, nb::handle value);
// Every entry of `attrs` (a dict) converted against op `type`'s schema; unknown names throw.
AttrMap attrs_from_dict(const std::string& type, nb::handle attrs);
// An attr as a Python value (lists for list attrs).
nb::object attr_to_python(const Attr& a);

}  // namespace skiff::python
