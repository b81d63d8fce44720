#include "skiff/serve/tensor_codec.h"

#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_set>
#include <utility>
#include <vector>

#include "skiff/serve/tensor_json.h"

namespace skiff::serve {

namespace {

using nlohmann::json;

// The member `key` of `object`, or nullptr.
const json* find(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const json& require(const json& object, const char* key, const std::string& where) {
  const json* value = find(object, key);
  if (value == nullptr) bad_request(where, ": missing field '", key, "'");
  return *value;
}

// The object `parameters` of `owner`, or nullptr when it has none.
const json* parameters_of(const json& owner, const std::string& where) {
  const json* params = find(owner, "parameters");
  if (params != nullptr && !params->is_object())
    bad_request(where, ": 'parameters' must be an object, got ", params->type_name());
  return params;
}

std::optional<bool> bool_parameter(const json* params, const char* key, const std::string& where) {
  const json* value = params ? find(*params, key) : nullptr;
  if (value == nullptr) return std::nullopt;
  if (!value->is_boolean())
    bad_request(where, ": parameter '", key, "' must be true or false, got ", value->type_name());
  return value->get<bool>();
}

// A JSON integer as an int64 when it is one and not negative ("-0" is zero).
std::optional<int64_t> non_negative_int64(const json& value) {
  if (value.is_number_unsigned()) {
    if (value.get<uint64_t>() > uint64_t{std::numeric_limits<int64_t>::max()}) return std::nullopt;
    return value.get<int64_t>();
  }
  if (value.is_number_integer() && value.get<int64_t>() >= 0) return value.get<int64_t>();
  return std::nullopt;
}

std::optional<int64_t> count_parameter(const json* params, const char* key,
                                       const std::string& where) {
  const json* value = params ? find(*params, key) : nullptr;
  if (value == nullptr) return std::nullopt;
  const std::optional<int64_t> count = non_negative_int64(*value);
  if (!count) bad_request(where, ": parameter '", key, "' must be a non-negative integer");
  return count;
}

void reject_parameter(const json* params, const char* key, const std::string& where,
                      const char* what) {
  if (params != nullptr && params->contains(key))
    bad_request(where, ": ", what, " (parameter '", key, "') are not supported");
}

// An entry of "inputs", checked, before its values are read.
struct InputHeader {
  std::string name;
  Shape shape;
  DType dtype = DType::kF32;
  int64_t numel = 0;
  const json* data = nullptr;          // the values as JSON, or
  std::optional<int64_t> binary_size;  // the values as bytes after the JSON
};

// The shape `dims` gives and its element count (request_shape's checks).
Shape read_shape(const json& dims, const std::string& where, int64_t* numel) {
  if (!dims.is_array()) bad_request(where, ": 'shape' must be an array, got ", dims.type_name());
  if (dims.size() > static_cast<size_t>(Shape::kMaxRank))
    bad_request(where, ": shape has ", dims.size(), " dims; at most ", Shape::kMaxRank,
                " are supported");
  std::vector<int64_t> values;
  for (size_t i = 0; i < dims.size(); ++i) {
    const json& d = dims[i];
    if (!d.is_number_integer())
      bad_request(where, ": shape[", i, "] must be an integer, got ",
                  d.is_number() ? d.dump() : d.type_name());
    const std::optional<int64_t> dim = non_negative_int64(d);
    if (!dim && d.is_number_unsigned())
      bad_request(where, ": shape[", i, "] is ", d.dump(), ", past int64");
    if (!dim) bad_request(where, ": shape[", i, "] is ", d.dump(), "; dims must be non-negative");
    values.push_back(*dim);
  }
  return request_shape(values, where, numel);
}

DType read_datatype(const json& datatype, const std::string& where) {
  if (!datatype.is_string())
    bad_request(where, ": 'datatype' must be a string, got ", datatype.type_name());
  return request_dtype(datatype.get_ref<const std::string&>(), where);
}

InputHeader read_input(const json& entry, size_t index) {
  const std::string at = str_cat("inputs[", index, "]");
  if (!entry.is_object()) bad_request(at, " must be an object, got ", entry.type_name());
  const json& name = require(entry, "name", at);
  if (!name.is_string() || name.get_ref<const std::string&>().empty())
    bad_request(at, ": 'name' must be a non-empty string");
  InputHeader input;
  input.name = name.get<std::string>();
  const std::string where = str_cat("input '", input.name, "'");
  input.shape = read_shape(require(entry, "shape", where), where, &input.numel);
  input.dtype = read_datatype(require(entry, "datatype", where), where);
  const json* params = parameters_of(entry, where);
  reject_parameter(params, "shared_memory_region", where, "shared-memory inputs");
  input.binary_size = count_parameter(params, "binary_data_size", where);
  input.data = find(entry, "data");
  if (input.data != nullptr && input.binary_size)
    bad_request(where, " has both 'data' and parameter 'binary_data_size'");
  if (input.data == nullptr && !input.binary_size)
    bad_request(where, ": missing field 'data' (or parameter 'binary_data_size')");
  return input;
}

RequestedOutput read_output(const json& entry, size_t index, bool default_binary) {
  const std::string at = str_cat("outputs[", index, "]");
  if (!entry.is_object()) bad_request(at, " must be an object, got ", entry.type_name());
  const json& name = require(entry, "name", at);
  if (!name.is_string() || name.get_ref<const std::string&>().empty())
    bad_request(at, ": 'name' must be a non-empty string");
  RequestedOutput output;
  output.name = name.get<std::string>();
  const std::string where = str_cat("output '", output.name, "'");
  const json* params = parameters_of(entry, where);
  reject_parameter(params, "shared_memory_region", where, "shared-memory outputs");
  reject_parameter(params, "classification", where, "classification outputs");
  output.binary = bool_parameter(params, "binary_data", where).value_or(default_binary);
  return output;
}

// The tensor an input's raw bytes hold (little-endian, row-major, BOOL one byte 0 or 1).
Tensor tensor_from_bytes(std::string_view bytes, const InputHeader& input) {
  const std::string where = str_cat("input '", input.name, "'");
  const size_t needed = static_cast<size_t>(input.numel) * dtype_size(input.dtype);
  if (bytes.size() != needed)
    bad_request(where, ": binary_data_size is ", bytes.size(), " but shape ", input.shape, " of ",
                datatype_name(input.dtype), " needs ", needed, " bytes");
  if (input.dtype == DType::kBool) {
    for (size_t i = 0; i < bytes.size(); ++i)
      if (bytes[i] != 0 && bytes[i] != 1)
        bad_request(where, ": BOOL element ", i, " is byte ",
                    static_cast<int>(static_cast<unsigned char>(bytes[i])), "; must be 0 or 1");
  }
  Tensor t = Tensor::empty(input.shape, input.dtype);
  if (needed != 0) std::memcpy(t.raw_data(), bytes.data(), needed);
  return t;
}

// The inputs' binary data: each input with binary_data_size gets its slice of `binary`, in
// input order; the sizes must add up to exactly the bytes there are.
std::vector<std::string_view> split_binary(const std::vector<InputHeader>& inputs,
                                           std::string_view binary, bool has_header) {
  uint64_t declared = 0;
  for (const InputHeader& input : inputs) {
    if (!input.binary_size) continue;
    if (!has_header)
      bad_request("input '", input.name,
                  "' has binary_data_size but the request has no Inference-Header-Content-Length");
    if (static_cast<uint64_t>(*input.binary_size) > binary.size())
      bad_request("input '", input.name, "': binary_data_size ", *input.binary_size,
                  " is more than the ", binary.size(), " bytes after the JSON");
    declared += static_cast<uint64_t>(*input.binary_size);  // at most inputs × body size
  }
  if (declared != binary.size())
    bad_request("binary data: the inputs' binary_data_size add up to ", declared, " bytes but ",
                binary.size(), " bytes follow the JSON");
  std::vector<std::string_view> slices(inputs.size());
  size_t offset = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].binary_size) continue;
    slices[i] = binary.substr(offset, static_cast<size_t>(*inputs[i].binary_size));
    offset += slices[i].size();
  }
  return slices;
}

json parse_json(std::string_view text) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    // what() is "[json.exception.parse_error.101] parse error at line 1, column 5: ...".
    std::string message = e.what();
    const size_t tag_end = message.find("] ");
    if (tag_end != std::string::npos) message.erase(0, tag_end + 2);
    bad_request("malformed request JSON: ", message);
  }
}

void read_request_parameters(const json& body, InferRequest* request) {
  const json* params = parameters_of(body, "request");
  request->binary_outputs = bool_parameter(params, "binary_data_output", "request").value_or(false);
  request->timeout_us = count_parameter(params, "timeout", "request").value_or(0);
}

std::string dump(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

InferRequest decode_infer_request(std::string_view body, std::optional<size_t> json_size,
                                  const DecodeLimits& limits) {
  if (body.size() > limits.max_body_bytes)
    too_large("request body of ", body.size(), " bytes is over the limit of ",
              limits.max_body_bytes, " bytes");
  if (json_size && *json_size > body.size())
    bad_request("Inference-Header-Content-Length is ", *json_size, " but the body holds only ",
                body.size(), " bytes");
  const size_t json_end = json_size.value_or(body.size());
  const json parsed = parse_json(body.substr(0, json_end));
  if (!parsed.is_object()) bad_request("request JSON must be an object, got ", parsed.type_name());

  InferRequest request;
  if (const json* id = find(parsed, "id")) {
    if (!id->is_string()) bad_request("request: 'id' must be a string, got ", id->type_name());
    request.id = id->get<std::string>();
  }
  read_request_parameters(parsed, &request);

  const json& inputs = require(parsed, "inputs", "request");
  if (!inputs.is_array())
    bad_request("request: 'inputs' must be an array, got ", inputs.type_name());
  if (inputs.size() > limits.max_inputs)
    too_large("request has ", inputs.size(), " inputs, over the limit of ", limits.max_inputs);
  std::vector<InputHeader> headers;
  std::unordered_set<std::string> names;
  int64_t elements = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    headers.push_back(read_input(inputs[i], i));
    const InputHeader& input = headers.back();
    if (!names.insert(input.name).second) bad_request("duplicate input '", input.name, "'");
    if (input.numel > limits.max_elements - elements)
      too_large("input '", input.name, "': the inputs hold more than the limit of ",
                limits.max_elements, " elements");
    elements += input.numel;
  }

  const std::vector<std::string_view> slices =
      split_binary(headers, body.substr(json_end), json_size.has_value());
  for (size_t i = 0; i < headers.size(); ++i) {
    const InputHeader& input = headers[i];
    Tensor value = input.binary_size ? tensor_from_bytes(slices[i], input)
                                     : tensor_from_json(*input.data, input.shape, input.dtype,
                                                        str_cat("input '", input.name, "'"));
    request.inputs.push_back({input.name, std::move(value)});
  }

  if (const json* outputs = find(parsed, "outputs")) {
    if (!outputs->is_array())
      bad_request("request: 'outputs' must be an array, got ", outputs->type_name());
    if (outputs->size() > limits.max_inputs)
      too_large("request asks for ", outputs->size(), " outputs, over the limit of ",
                limits.max_inputs);
    names.clear();
    for (size_t i = 0; i < outputs->size(); ++i) {
      request.outputs.push_back(read_output((*outputs)[i], i, request.binary_outputs));
      if (!names.insert(request.outputs.back().name).second)
        bad_request("duplicate output '", request.outputs.back().name, "'");
    }
  }
  return request;
}

bool output_is_binary(const InferRequest& request, const std::string& name) {
  for (const RequestedOutput& output : request.outputs)
    if (output.name == name) return output.binary;
  return request.binary_outputs;
}

std::string encode_infer_response(const InferResponse& response, size_t* json_size) {
  nlohmann::ordered_json body = {{"model_name", response.model_name},
                                 {"model_version", response.model_version}};
  if (!response.id.empty()) body["id"] = response.id;
  nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
  std::vector<const Tensor*> binary;
  for (const InferOutput& output : response.outputs) {
    check_answerable(output);
    const Tensor& value = output.value;
    nlohmann::ordered_json entry = {{"name", output.name},
                                    {"datatype", datatype_name(value.dtype())},
                                    {"shape", value.shape().vec()}};
    if (output.binary) {
      entry["parameters"] = {{"binary_data_size", value.nbytes()}};
      binary.push_back(&value);
    } else {
      entry["data"] = tensor_to_json(value);
    }
    outputs.push_back(std::move(entry));
  }
  body["outputs"] = std::move(outputs);
  std::string out = dump(body);
  *json_size = out.size();
  for (const Tensor* value : binary)
    if (value->nbytes() != 0)
      out.append(static_cast<const char*>(value->raw_data()), value->nbytes());
  return out;
}

std::string encode_error(const std::string& message) {
  return dump(nlohmann::ordered_json{{"error", message}});
}

}  // namespace skiff::serve
