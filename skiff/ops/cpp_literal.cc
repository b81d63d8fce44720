#include "skiff/ops/cpp_literal.h"

#include <cmath>
#include <cstdio>

#include "skiff/core/error.h"

namespace skiff {

std::string cpp_literal(double v) {
  if (std::isnan(v)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v)) {
    return v > 0 ? "std::numeric_limits<double>::infinity()"
                 : "-std::numeric_limits<double>::infinity()";
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string cpp_literal(int64_t v) {
  // INT64_MIN has no literal of its own.
  if (v == INT64_MIN) return "std::numeric_limits<int64_t>::min()";
  return std::to_string(v);
}

std::string cpp_literal(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

namespace {

template <typename T>
std::string list_literal(const std::vector<T>& v) {
  std::string out = "{";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + cpp_literal(v[i]);
  return out + "}";
}

}  // namespace

std::string cpp_literal(const std::vector<int64_t>& v) { return list_literal(v); }
std::string cpp_literal(const std::vector<double>& v) { return list_literal(v); }

std::string shape_literal(const Shape& s) {
  std::string out = "Shape{";
  for (int i = 0; i < s.rank(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "}";
}

std::string dtype_literal(DType t) {
  switch (t) {
    case DType::kF32:
      return "DType::kF32";
    case DType::kF64:
      return "DType::kF64";
    case DType::kI32:
      return "DType::kI32";
    case DType::kI64:
      return "DType::kI64";
    case DType::kBool:
      return "DType::kBool";
    case DType::kBF16:
      return "DType::kBF16";
    case DType::kI8:
      return "DType::kI8";
    case DType::kU8:
      return "DType::kU8";
    case DType::kI16:
      return "DType::kI16";
    case DType::kC64:
      return "DType::kC64";
    case DType::kC128:
      return "DType::kC128";
  }
  fail("unknown dtype ", static_cast<int>(t));
}

}  // namespace skiff
