#include "skiff/serve/infer_types.h"

namespace skiff::serve {

namespace {

struct DatatypeName {
  DType dtype;
  const char* name;
};

// The protocol names of skiff's dtypes (the Open Inference Protocol's tensor data types).
constexpr DatatypeName kNames[] = {
    {DType::kBool, "BOOL"}, {DType::kU8, "UINT8"},  {DType::kI8, "INT8"},
    {DType::kI16, "INT16"}, {DType::kI32, "INT32"}, {DType::kI64, "INT64"},
    {DType::kBF16, "BF16"}, {DType::kF32, "FP32"},  {DType::kF64, "FP64"},
};

}  // namespace

std::optional<DType> to_dtype(const std::string& datatype) {
  for (const DatatypeName& n : kNames)
    if (datatype == n.name) return n.dtype;
  return std::nullopt;
}

std::string datatype_name(DType dtype) {
  for (const DatatypeName& n : kNames)
    if (dtype == n.dtype) return n.name;
  fail("datatype_name: ", dtype_name(dtype), " has no Open Inference Protocol datatype");
}

}  // namespace skiff::serve
