#include "skiff/cli/tensor_text.h"

#include <cstdio>

namespace skiff::cli {

namespace {

// Element `i` of `t` as text: %.7g for floats (round-trips float32 closely), %.4g for
// bfloat16, integers in full, bools as true/false.
std::string element_text(const Tensor& t, int64_t i) {
  char buffer[64];
  switch (t.dtype()) {
    case DType::kF32:
      std::snprintf(buffer, sizeof buffer, "%.7g", t.data<float>()[i]);
      break;
    case DType::kF64:
      std::snprintf(buffer, sizeof buffer, "%.10g", t.data<double>()[i]);
      break;
    case DType::kI32:
      return std::to_string(t.data<int32_t>()[i]);
    case DType::kI64:
      return std::to_string(t.data<int64_t>()[i]);
    case DType::kBool:
      return t.data<bool>()[i] ? "true" : "false";
    case DType::kBF16:  // 4 digits tell every bfloat16 apart
      std::snprintf(buffer, sizeof buffer, "%.4g", static_cast<float>(t.data<bfloat16>()[i]));
      break;
    case DType::kI8:
      return std::to_string(t.data<int8_t>()[i]);
    case DType::kU8:
      return std::to_string(t.data<uint8_t>()[i]);
    case DType::kI16:
      return std::to_string(t.data<int16_t>()[i]);
    case DType::kC64: {
      const std::complex<float> c = t.data<std::complex<float>>()[i];
      std::snprintf(buffer, sizeof buffer, "%.7g%+.7gj", c.real(), c.imag());
      break;
    }
    case DType::kC128: {
      const std::complex<double> c = t.data<std::complex<double>>()[i];
      std::snprintf(buffer, sizeof buffer, "%.10g%+.10gj", c.real(), c.imag());
      break;
    }
  }
  return buffer;
}

// Appends dims [dim, rank) starting at flat index `*next`; rows of the last two
// dims break lines, indented under their opening bracket.
void append_nested(const Tensor& t, int dim, int64_t* next, std::string* out) {
  if (dim == t.rank()) {
    *out += element_text(t, (*next)++);
    return;
  }
  *out += '[';
  const int64_t n = t.shape()[dim];
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) {
      *out += ',';
      if (dim + 1 < t.rank()) {
        *out += dim + 2 == t.rank() ? "\n" : "\n\n";  // a blank line between matrices
        out->append(static_cast<size_t>(dim) + 1, ' ');
      } else {
        *out += ' ';
      }
    }
    append_nested(t, dim + 1, next, out);
  }
  *out += ']';
}

}  // namespace

std::string tensor_to_text(const Tensor& t, int64_t max_values) {
  if (!t.initialized()) return "(no value)";
  std::string out = t.type_str() + "\n";
  if (t.numel() <= max_values) {
    int64_t next = 0;
    append_nested(t, 0, &next, &out);
    return out;
  }
  constexpr int64_t kShown = 20;
  out += "[";
  for (int64_t i = 0; i < kShown; ++i) out += (i ? ", " : "") + element_text(t, i);
  out += str_cat(", ...]  (", t.numel(), " values; use --out DIR to save them all)");
  return out;
}

}  // namespace skiff::cli
