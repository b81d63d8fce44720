#include "skiff/core/dtype.h"

namespace skiff {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kF32:
      return "float32";
    case DType::kF64:
      return "float64";
    case DType::kI32:
      return "int32";
    case DType::kI64:
      return "int64";
    case DType::kBool:
      return "bool";
    case DType::kBF16:
      return "bfloat16";
    case DType::kI8:
      return "int8";
    case DType::kU8:
      return "uint8";
    case DType::kI16:
      return "int16";
  }
  return "unknown";
}

DType dtype_from_name(const std::string& name) {
  for (DType t : {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool, DType::kBF16,
                  DType::kI8, DType::kU8, DType::kI16}) {
    if (name == dtype_name(t)) return t;
  }
  fail("unknown dtype name '", name,
       "' (expected float32, float64, int32, int64, bool, bfloat16, int8, uint8 or int16)");
}

}  // namespace skiff
