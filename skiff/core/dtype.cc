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
    case DType::kC64:
      return "complex64";
    case DType::kC128:
      return "complex128";
  }
  return "unknown";
}

DType dtype_from_name(const std::string& name) {
  for (DType t : {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool, DType::kBF16,
                  DType::kI8, DType::kU8, DType::kI16, DType::kC64, DType::kC128}) {
    if (name == dtype_name(t)) return t;
  }
  fail("unknown dtype name '", name,
       "' (expected float32, float64, int32, int64, bool, bfloat16, int8, uint8, int16, complex64 "
       "or complex128)");
}

DType complex_of(DType t) {
  switch (t) {
    case DType::kF32:
    case DType::kC64:
      return DType::kC64;
    case DType::kF64:
    case DType::kC128:
      return DType::kC128;
    default:
      fail("no complex dtype has ", dtype_name(t), " parts (float32 or float64 expected)");
  }
}

DType real_of(DType t) {
  if (t == DType::kC64) return DType::kF32;
  if (t == DType::kC128) return DType::kF64;
  return t;
}

}  // namespace skiff
