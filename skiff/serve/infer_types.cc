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

DType request_dtype(const std::string& name, const std::string& where) {
  if (std::optional<DType> dtype = to_dtype(name)) return *dtype;
  if (name.empty()) bad_request(where, ": missing field 'datatype'");
  for (const char* known : {"UINT16", "UINT32", "UINT64", "FP16", "BYTES"})
    if (name == known) bad_request(where, ": datatype ", name, " is not supported");
  bad_request(where, ": unknown datatype '", name, "'");
}

Shape request_shape(const std::vector<int64_t>& dims, const std::string& where, int64_t* numel) {
  if (dims.size() > static_cast<size_t>(Shape::kMaxRank))
    bad_request(where, ": shape has ", dims.size(), " dims; at most ", Shape::kMaxRank,
                " are supported");
  Shape shape;
  bool overflow = false;
  int64_t product = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0)
      bad_request(where, ": shape[", i, "] is ", dims[i], "; dims must be non-negative");
    shape.push_back(dims[i]);
    overflow = overflow || __builtin_mul_overflow(product, dims[i], &product);
  }
  if (overflow) bad_request(where, ": shape ", shape, " has more elements than int64 can count");
  *numel = product;
  return shape;
}

std::string datatype_name(DType dtype) {
  for (const DatatypeName& n : kNames)
    if (dtype == n.dtype) return n.name;
  fail("datatype_name: ", dtype_name(dtype), " has no Open Inference Protocol datatype");
}

void check_answerable(const InferOutput& output) {
  const Tensor& value = output.value;
  if (!value.initialized() && value.numel() != 0)
    throw RequestError(500, str_cat("output '", output.name, "' has no value"));
  if (is_complex(value.dtype()))
    throw RequestError(500, str_cat("output '", output.name, "' is ", dtype_name(value.dtype()),
                                    ", which the protocol has no datatype for"));
}

}  // namespace skiff::serve
