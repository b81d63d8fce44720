#include "skiff/serve/grpc_tensor_codec.h"

#include <cstring>
#include <limits>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

namespace skiff::serve {

namespace {

using inference::InferParameter;
using inference::InferTensorContents;
using inference::ModelInferRequest;

// An input's name, shape and dtype, checked, before its values are read.
struct InputHeader {
  std::string name;
  std::string where;  // "input 'x'"
  Shape shape;
  DType dtype = DType::kF32;
  int64_t numel = 0;
};

Shape read_shape(const google::protobuf::RepeatedField<int64_t>& dims, const std::string& where,
                 int64_t* numel) {
  return request_shape(std::vector<int64_t>(dims.begin(), dims.end()), where, numel);
}

void reject_parameter(const google::protobuf::Map<std::string, InferParameter>& params,
                      const char* key, const std::string& where, const char* what) {
  if (params.count(key) != 0)
    bad_request(where, ": ", what, " (parameter '", key, "') are not supported");
}

// The request's timeout parameter in microseconds (0: none).
int64_t timeout_parameter(const ModelInferRequest& message) {
  const auto it = message.parameters().find("timeout");
  if (it == message.parameters().end()) return 0;
  const InferParameter& p = it->second;
  if (p.parameter_choice_case() == InferParameter::kInt64Param && p.int64_param() >= 0)
    return p.int64_param();
  if (p.parameter_choice_case() == InferParameter::kUint64Param &&
      p.uint64_param() <= uint64_t{std::numeric_limits<int64_t>::max()})
    return static_cast<int64_t>(p.uint64_param());
  bad_request("request: parameter 'timeout' must be a non-negative integer (microseconds)");
}

InputHeader read_input(const ModelInferRequest::InferInputTensor& input, size_t index) {
  if (input.name().empty()) bad_request("inputs[", index, "]: 'name' must be a non-empty string");
  InputHeader header;
  header.name = input.name();
  header.where = str_cat("input '", input.name(), "'");
  header.shape = read_shape(input.shape(), header.where, &header.numel);
  header.dtype = request_dtype(input.datatype(), header.where);
  reject_parameter(input.parameters(), "shared_memory_region", header.where,
                   "shared-memory inputs");
  return header;
}

// The tensor an input's raw bytes hold (little-endian, row-major, BOOL one byte 0 or 1).
Tensor tensor_from_raw(const std::string& bytes, const InputHeader& input) {
  const size_t needed = static_cast<size_t>(input.numel) * dtype_size(input.dtype);
  if (bytes.size() != needed)
    bad_request(input.where, ": raw_input_contents holds ", bytes.size(), " bytes but shape ",
                input.shape, " of ", datatype_name(input.dtype), " needs ", needed, " bytes");
  if (input.dtype == DType::kBool) {
    for (size_t i = 0; i < bytes.size(); ++i)
      if (bytes[i] != 0 && bytes[i] != 1)
        bad_request(input.where, ": BOOL element ", i, " is byte ",
                    static_cast<int>(static_cast<unsigned char>(bytes[i])), "; must be 0 or 1");
  }
  Tensor t = Tensor::empty(input.shape, input.dtype);
  if (needed != 0) std::memcpy(t.raw_data(), bytes.data(), needed);
  return t;
}

// The contents fields, their names and how many values each holds.
struct ContentsField {
  const char* name;
  int count;
};

std::vector<ContentsField> filled_fields(const InferTensorContents& c) {
  std::vector<ContentsField> all = {
      {"bool_contents", c.bool_contents_size()},     {"int_contents", c.int_contents_size()},
      {"int64_contents", c.int64_contents_size()},   {"uint_contents", c.uint_contents_size()},
      {"uint64_contents", c.uint64_contents_size()}, {"fp32_contents", c.fp32_contents_size()},
      {"fp64_contents", c.fp64_contents_size()},     {"bytes_contents", c.bytes_contents_size()}};
  std::vector<ContentsField> filled;
  for (const ContentsField& f : all)
    if (f.count > 0) filled.push_back(f);
  return filled;
}

// The contents field that carries values of `dtype`, or nullptr (BF16 has none).
const char* field_for(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "bool_contents";
    case DType::kU8:
      return "uint_contents";
    case DType::kI8:
    case DType::kI16:
    case DType::kI32:
      return "int_contents";
    case DType::kI64:
      return "int64_contents";
    case DType::kF32:
      return "fp32_contents";
    case DType::kF64:
      return "fp64_contents";
    default:
      return nullptr;
  }
}

// Copies `values` into a new tensor of the input's dtype `T`, each checked to fit T.
template <typename T, typename Values>
Tensor copy_values(const Values& values, const InputHeader& input) {
  Tensor t = Tensor::empty(input.shape, input.dtype);
  T* out = static_cast<T*>(t.raw_data());
  for (int i = 0; i < values.size(); ++i) {
    const auto v = values[i];
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                  sizeof(T) < sizeof(decltype(v))) {
      const int64_t wide = static_cast<int64_t>(v);  // int32 or uint32: fits
      if (wide < int64_t{std::numeric_limits<T>::min()} ||
          wide > int64_t{std::numeric_limits<T>::max()})
        bad_request(input.where, ": element ", i, " is ", v, ", outside ",
                    datatype_name(input.dtype));
    }
    out[i] = static_cast<T>(v);
  }
  return t;
}

Tensor tensor_from_contents(const InferTensorContents& contents, const InputHeader& input) {
  const char* field = field_for(input.dtype);
  if (field == nullptr)
    bad_request(input.where, ": ", datatype_name(input.dtype),
                " values must be sent in raw_input_contents (the protocol has no contents "
                "field for them)");
  const std::vector<ContentsField> filled = filled_fields(contents);
  for (const ContentsField& f : filled)
    if (std::strcmp(f.name, field) != 0)
      bad_request(input.where, ": datatype ", datatype_name(input.dtype), " takes its values in ",
                  field, ", got ", f.name);
  const int64_t count = filled.empty() ? 0 : filled[0].count;
  if (count != input.numel)
    bad_request(input.where, ": ", field, " holds ", count, " values but shape ", input.shape,
                " has ", input.numel, " elements");
  switch (input.dtype) {
    case DType::kBool:
      return copy_values<bool>(contents.bool_contents(), input);
    case DType::kU8:
      return copy_values<uint8_t>(contents.uint_contents(), input);
    case DType::kI8:
      return copy_values<int8_t>(contents.int_contents(), input);
    case DType::kI16:
      return copy_values<int16_t>(contents.int_contents(), input);
    case DType::kI32:
      return copy_values<int32_t>(contents.int_contents(), input);
    case DType::kI64:
      return copy_values<int64_t>(contents.int64_contents(), input);
    case DType::kF32:
      return copy_values<float>(contents.fp32_contents(), input);
    default:
      return copy_values<double>(contents.fp64_contents(), input);
  }
}

RequestedOutput read_output(const ModelInferRequest::InferRequestedOutputTensor& output,
                            size_t index) {
  if (output.name().empty()) bad_request("outputs[", index, "]: 'name' must be a non-empty string");
  const std::string where = str_cat("output '", output.name(), "'");
  reject_parameter(output.parameters(), "shared_memory_region", where, "shared-memory outputs");
  reject_parameter(output.parameters(), "classification", where, "classification outputs");
  return {output.name(), /*binary=*/true};
}

}  // namespace

InferRequest decode_grpc_infer_request(const ModelInferRequest& message,
                                       const DecodeLimits& limits) {
  InferRequest request;
  request.id = message.id();
  request.binary_outputs = true;
  request.timeout_us = timeout_parameter(message);

  const size_t n = static_cast<size_t>(message.inputs_size());
  if (n > limits.max_inputs)
    too_large("request has ", n, " inputs, over the limit of ", limits.max_inputs);
  const bool raw = message.raw_input_contents_size() > 0;
  if (raw && static_cast<size_t>(message.raw_input_contents_size()) != n)
    bad_request("request: raw_input_contents has ", message.raw_input_contents_size(),
                " entries but the request has ", n, " inputs (one entry per input, in order)");
  std::unordered_set<std::string> names;
  int64_t elements = 0;
  for (size_t i = 0; i < n; ++i) {
    const ModelInferRequest::InferInputTensor& entry = message.inputs(static_cast<int>(i));
    const InputHeader input = read_input(entry, i);
    if (!names.insert(input.name).second) bad_request("duplicate input '", input.name, "'");
    if (input.numel > limits.max_elements - elements)
      too_large(input.where, ": the inputs hold more than the limit of ", limits.max_elements,
                " elements");
    elements += input.numel;
    if (raw && entry.has_contents() && !filled_fields(entry.contents()).empty())
      bad_request(input.where, " has both contents and raw_input_contents");
    Tensor value = raw ? tensor_from_raw(message.raw_input_contents(static_cast<int>(i)), input)
                       : tensor_from_contents(entry.contents(), input);
    request.inputs.push_back({input.name, std::move(value)});
  }

  if (static_cast<size_t>(message.outputs_size()) > limits.max_inputs)
    too_large("request asks for ", message.outputs_size(), " outputs, over the limit of ",
              limits.max_inputs);
  names.clear();
  for (int i = 0; i < message.outputs_size(); ++i) {
    request.outputs.push_back(read_output(message.outputs(i), static_cast<size_t>(i)));
    if (!names.insert(request.outputs.back().name).second)
      bad_request("duplicate output '", request.outputs.back().name, "'");
  }
  return request;
}

void encode_grpc_infer_response(const InferResponse& response,
                                inference::ModelInferResponse* reply) {
  reply->set_model_name(response.model_name);
  reply->set_model_version(response.model_version);
  reply->set_id(response.id);
  for (const InferOutput& output : response.outputs) {
    check_answerable(output);
    const Tensor& value = output.value;
    inference::ModelInferResponse::InferOutputTensor* tensor = reply->add_outputs();
    tensor->set_name(output.name);
    tensor->set_datatype(datatype_name(value.dtype()));
    for (int64_t d : value.shape().vec()) tensor->add_shape(d);
    std::string* bytes = reply->add_raw_output_contents();
    if (value.nbytes() != 0)
      bytes->assign(static_cast<const char*>(value.raw_data()), value.nbytes());
  }
}

}  // namespace skiff::serve
