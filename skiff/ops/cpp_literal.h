// C++ literals of attribute values, as the compiler writes them into generated code
// (codegen) and bindings pass them to the calls they write (ops/binding.h).
//
//   cpp_literal(0.5)                          // "0.5"
//   cpp_literal(std::vector<int64_t>{1, 2})   // "{1, 2}"
//   shape_literal(Shape{2, 3})                // "Shape{2, 3}"
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "skiff/core/dtype.h"
#include "skiff/core/shape.h"

namespace skiff {

std::string cpp_literal(double v);  // "1.0", "std::numeric_limits<double>::infinity()"
std::string cpp_literal(int64_t v);
inline std::string cpp_literal(bool v) { return v ? "true" : "false"; }
std::string cpp_literal(const std::string& s);  // a quoted, escaped string
// (Not the bool overload, which a const char* would otherwise pick.)
inline std::string cpp_literal(const char* s) { return cpp_literal(std::string(s)); }
std::string cpp_literal(const std::vector<int64_t>& v);  // "{1, 2}"
std::string cpp_literal(const std::vector<double>& v);   // "{0.5, 1.0}"
std::string shape_literal(const Shape& s);               // "Shape{1, 2}"
std::string dtype_literal(DType t);                      // "DType::kF32"

}  // namespace skiff
