#include "skiff/serve/tensor_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace skiff::serve {
namespace {

using nlohmann::json;

InferRequest decode(std::string_view body, std::optional<size_t> json_size = std::nullopt) {
  return decode_infer_request(body, json_size, DecodeLimits{});
}

// The error decoding `body` throws; a body that decodes fails the test.
RequestError decode_error(std::string_view body, std::optional<size_t> json_size = std::nullopt,
                          const DecodeLimits& limits = DecodeLimits{}) {
  try {
    decode_infer_request(body, json_size, limits);
  } catch (const RequestError& e) {
    return e;
  }
  ADD_FAILURE() << "decoded without an error: " << body;
  return RequestError(0, "");
}

// Expects `body` to fail with `status` and a message holding each of `parts`.
void expect_error(std::string_view body, int status, const std::vector<std::string>& parts,
                  std::optional<size_t> json_size = std::nullopt) {
  const RequestError e = decode_error(body, json_size);
  EXPECT_EQ(e.status(), status) << e.what();
  for (const std::string& part : parts)
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
        << "'" << e.what() << "' does not name " << part;
}

// A request with one input `x` of `datatype` and `shape` whose data is `data` (JSON text).
std::string one_input(const std::string& datatype, const std::string& shape,
                      const std::string& data) {
  return R"({"inputs": [{"name": "x", "datatype": ")" + datatype + R"(", "shape": )" + shape +
         R"(, "data": )" + data + "}]}";
}

// A body of JSON `header` followed by `binary`, and the header's size.
std::string with_binary(const json& header, const std::string& binary, size_t* json_size) {
  const std::string text = header.dump();
  *json_size = text.size();
  return text + binary;
}

template <typename T>
std::string bytes_of(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

std::string bytes_of(const Tensor& t) {
  return std::string(static_cast<const char*>(t.raw_data()), t.nbytes());
}

TEST(TensorCodecTest, DecodesEveryDatatypeFromJson) {
  const Tensor b = decode(one_input("BOOL", "[3]", "[true, false, true]")).inputs[0].value;
  EXPECT_EQ(b.dtype(), DType::kBool);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(decode(one_input("UINT8", "[2]", "[0, 255]")).inputs[0].value.to_vector<uint8_t>(),
            (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(decode(one_input("INT8", "[2]", "[-128, 127]")).inputs[0].value.to_vector<int8_t>(),
            (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(
      decode(one_input("INT16", "[2]", "[-32768, 32767]")).inputs[0].value.to_vector<int16_t>(),
      (std::vector<int16_t>{-32768, 32767}));
  EXPECT_EQ(decode(one_input("INT32", "[3]", "[-2147483648, 2147483647, 7.0]"))
                .inputs[0]
                .value.to_vector<int32_t>(),
            (std::vector<int32_t>{-2147483647 - 1, 2147483647, 7}));
  EXPECT_EQ(decode(one_input("INT64", "[2]", "[-9223372036854775808, 9223372036854775807]"))
                .inputs[0]
                .value.to_vector<int64_t>(),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max()}));
  EXPECT_EQ(decode(one_input("FP32", "[3]", "[0.1, -2, 3.4028235e38]"))
                .inputs[0]
                .value.to_vector<float>(),
            (std::vector<float>{0.1f, -2.0f, std::numeric_limits<float>::max()}));
  EXPECT_EQ(decode(one_input("FP64", "[2]", "[0.1, 1e300]")).inputs[0].value.to_vector<double>(),
            (std::vector<double>{0.1, 1e300}));
  const Tensor h = decode(one_input("BF16", "[3]", "[1.5, -2, 0.1]")).inputs[0].value;
  ASSERT_EQ(h.dtype(), DType::kBF16);
  EXPECT_EQ(static_cast<float>(h.data<bfloat16>()[0]), 1.5f);
  EXPECT_EQ(static_cast<float>(h.data<bfloat16>()[1]), -2.0f);
  EXPECT_EQ(static_cast<float>(h.data<bfloat16>()[2]), 0.10009765625f);
}

TEST(TensorCodecTest, FlattensNestedDataInRowMajorOrder) {
  const Tensor t = decode(one_input("INT32", "[2, 3]", "[[1, 2, 3], [4, 5, 6]]")).inputs[0].value;
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  const Tensor u = decode(one_input("FP64", "[2, 1, 2]", "[[[1], [2]], [[3, 4]]]")).inputs[0].value;
  EXPECT_EQ(u.to_vector<double>(), (std::vector<double>{1, 2, 3, 4}));
  const Tensor scalar = decode(one_input("INT64", "[]", "[42]")).inputs[0].value;
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.item<int64_t>(), 42);
  EXPECT_EQ(decode(one_input("FP32", "[0, 3]", "[]")).inputs[0].value.numel(), 0);
  // "-0" is a zero, for dims and counts alike.
  EXPECT_EQ(decode(one_input("FP32", "[-0]", "[]")).inputs[0].value.numel(), 0);
  EXPECT_EQ(decode(R"({"parameters": {"timeout": -0}, "inputs": []})").timeout_us, 0);
}

TEST(TensorCodecTest, DeeplyNestedDataNeitherRecursesNorCrashes) {
  const int depth = 200000;
  const std::string data = std::string(depth, '[') + "7" + std::string(depth, ']');
  EXPECT_EQ(decode(one_input("INT8", "[1]", data)).inputs[0].value.item<int>(), 7);
  expect_error(one_input("INT8", "[2]", data), 400, {"input 'x'", "holds 1 values"});
}

TEST(TensorCodecTest, DecodesRequestFieldsAndParameters) {
  const InferRequest r = decode(R"({
    "id": "req-7",
    "parameters": {"binary_data_output": true, "timeout": 2500, "priority": 1, "custom": "x"},
    "inputs": [{"name": "a", "datatype": "FP32", "shape": [1], "data": [1]},
               {"name": "b", "datatype": "INT64", "shape": [2], "data": [2, 3]}],
    "outputs": [{"name": "y", "parameters": {"binary_data": false}}, {"name": "z"}]})");
  EXPECT_EQ(r.id, "req-7");
  EXPECT_TRUE(r.binary_outputs);
  EXPECT_EQ(r.timeout_us, 2500);
  ASSERT_EQ(r.inputs.size(), 2u);
  EXPECT_EQ(r.inputs[0].name, "a");
  EXPECT_EQ(r.inputs[1].name, "b");
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_FALSE(r.outputs[0].binary);
  EXPECT_TRUE(r.outputs[1].binary);  // binary_data_output applies where binary_data is absent
  EXPECT_FALSE(output_is_binary(r, "y"));
  EXPECT_TRUE(output_is_binary(r, "z"));
  EXPECT_TRUE(output_is_binary(r, "unlisted"));

  const InferRequest plain = decode(one_input("FP32", "[1]", "[1]"));
  EXPECT_EQ(plain.id, "");
  EXPECT_FALSE(plain.binary_outputs);
  EXPECT_EQ(plain.timeout_us, 0);
  EXPECT_TRUE(plain.outputs.empty());
  EXPECT_FALSE(output_is_binary(plain, "y"));
}

TEST(TensorCodecTest, DecodesBinaryInputsMixedWithJsonInputs) {
  const std::vector<float> a = {1.5f, -0.25f};
  const std::vector<uint8_t> c = {1, 0, 1};
  const json header = {{"inputs",
                        {{{"name", "a"},
                          {"datatype", "FP32"},
                          {"shape", {2}},
                          {"parameters", {{"binary_data_size", 8}}}},
                         {{"name", "b"}, {"datatype", "INT32"}, {"shape", {2}}, {"data", {4, 5}}},
                         {{"name", "c"},
                          {"datatype", "BOOL"},
                          {"shape", {3}},
                          {"parameters", {{"binary_data_size", 3}}}}}}};
  size_t json_size = 0;
  const std::string body = with_binary(header, bytes_of(a) + bytes_of(c), &json_size);
  const InferRequest r = decode(body, json_size);
  ASSERT_EQ(r.inputs.size(), 3u);
  EXPECT_EQ(r.inputs[0].value.to_vector<float>(), a);
  EXPECT_EQ(r.inputs[1].value.to_vector<int32_t>(), (std::vector<int32_t>{4, 5}));
  EXPECT_EQ(r.inputs[2].value.to_vector<bool>(), (std::vector<bool>{true, false, true}));
}

TEST(TensorCodecTest, EncodesJsonAndBinaryOutputsInOrder) {
  InferResponse response;
  response.model_name = "m";
  response.model_version = "3";
  response.id = "req-1";
  response.outputs.push_back({"p", Tensor::from_vector<float>({2}, {0.5f, 2.0f}), true});
  response.outputs.push_back({"q", Tensor::from_vector<int64_t>({1, 2}, {7, -8}), false});
  response.outputs.push_back({"r", Tensor::from_vector<int16_t>({3}, {1, 2, 3}), true});
  size_t json_size = 0;
  const std::string body = encode_infer_response(response, &json_size);
  const json j = json::parse(body.substr(0, json_size));
  EXPECT_EQ(j["model_name"], "m");
  EXPECT_EQ(j["model_version"], "3");
  EXPECT_EQ(j["id"], "req-1");
  ASSERT_EQ(j["outputs"].size(), 3u);
  EXPECT_EQ(j["outputs"][0]["name"], "p");
  EXPECT_EQ(j["outputs"][0]["datatype"], "FP32");
  EXPECT_EQ(j["outputs"][0]["parameters"]["binary_data_size"], 8);
  EXPECT_FALSE(j["outputs"][0].contains("data"));
  EXPECT_EQ(j["outputs"][1]["shape"], json({1, 2}));
  EXPECT_EQ(j["outputs"][1]["data"], json({7, -8}));
  EXPECT_EQ(j["outputs"][2]["parameters"]["binary_data_size"], 6);
  EXPECT_EQ(body.substr(json_size),
            bytes_of(std::vector<float>{0.5f, 2.0f}) + bytes_of(std::vector<int16_t>{1, 2, 3}));

  response.id.clear();
  response.outputs = {{"q", Tensor::from_vector<int64_t>({1}, {1}), false}};
  const std::string plain = encode_infer_response(response, &json_size);
  EXPECT_EQ(json_size, plain.size());
  EXPECT_FALSE(json::parse(plain).contains("id"));
}

// One tensor of each datatype with values at its edges.
std::vector<InferOutput> edge_values() {
  const float fmin = std::numeric_limits<float>::denorm_min();
  std::vector<InferOutput> outputs = {
      {"bool", Tensor::from_vector<bool>({2}, {true, false})},
      {"u8", Tensor::from_vector<uint8_t>({2}, {0, 255})},
      {"i8", Tensor::from_vector<int8_t>({2}, {-128, 127})},
      {"i16", Tensor::from_vector<int16_t>({2}, {-32768, 32767})},
      {"i32", Tensor::from_vector<int32_t>({2}, {std::numeric_limits<int32_t>::min(), 5})},
      {"i64", Tensor::from_vector<int64_t>(
                  {2}, {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()})},
      {"f32", Tensor::from_vector<float>({2, 2}, {0.1f, 1.0f / 3, fmin, 3.4028235e38f})},
      {"f64", Tensor::from_vector<double>({3}, {0.1, 1.0 / 3, 5e-324})},
      {"bf16", Tensor::from_vector<bfloat16>({2}, {bfloat16(0.1f), bfloat16(-3e38f)})},
  };
  return outputs;
}

// The response's outputs as the inputs of a request, as JSON data or binary data alike.
std::string as_request(const std::string& response, size_t response_json_size, size_t* json_size) {
  json header = json::parse(response.substr(0, response_json_size));
  json inputs = header["outputs"];
  return with_binary({{"inputs", inputs}}, response.substr(response_json_size), json_size);
}

TEST(TensorCodecTest, EveryDatatypeRoundTripsExactlyAsJsonAndAsBinary) {
  for (bool binary : {false, true}) {
    InferResponse response;
    response.model_name = "m";
    response.model_version = "1";
    response.outputs = edge_values();
    for (InferOutput& o : response.outputs) o.binary = binary;
    size_t response_json_size = 0, json_size = 0;
    const std::string encoded = encode_infer_response(response, &response_json_size);
    const std::string body = as_request(encoded, response_json_size, &json_size);
    const InferRequest request = decode(body, json_size);
    ASSERT_EQ(request.inputs.size(), response.outputs.size());
    for (size_t i = 0; i < request.inputs.size(); ++i) {
      const Tensor& sent = response.outputs[i].value;
      const Tensor& got = request.inputs[i].value;
      EXPECT_EQ(request.inputs[i].name, response.outputs[i].name);
      EXPECT_EQ(got.dtype(), sent.dtype()) << response.outputs[i].name;
      EXPECT_EQ(got.shape(), sent.shape()) << response.outputs[i].name;
      EXPECT_EQ(bytes_of(got), bytes_of(sent)) << response.outputs[i].name << " binary " << binary;
    }
  }
}

TEST(TensorCodecTest, EncodesErrorsAsJson) {
  EXPECT_EQ(json::parse(encode_error("input 'x': \"bad\"\n")),
            json({{"error", "input 'x': \"bad\"\n"}}));
  // Bytes that are not UTF-8 are replaced, never thrown over.
  EXPECT_TRUE(json::parse(encode_error("name \xff\xfe"))["error"].is_string());
}

TEST(TensorCodecTest, RejectsOutputsItCannotEncode) {
  InferResponse response;
  response.outputs = {{"y", Tensor()}};
  size_t json_size = 0;
  try {
    encode_infer_response(response, &json_size);
    ADD_FAILURE() << "an output without a value was encoded";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.status(), 500);
    EXPECT_NE(std::string(e.what()).find("output 'y'"), std::string::npos);
  }
  response.outputs = {{"c", Tensor::zeros({1}, DType::kC64)}};
  try {
    encode_infer_response(response, &json_size);
    ADD_FAILURE() << "a complex output was encoded";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.status(), 500);
    EXPECT_NE(std::string(e.what()).find("complex64"), std::string::npos);
  }
}

TEST(TensorCodecTest, RejectsMalformedJson) {
  expect_error(R"({"inputs": [)", 400, {"malformed request JSON", "line 1, column"});
  expect_error("", 400, {"malformed request JSON"});
  expect_error(R"({"inputs": [1e400]})", 400, {"malformed request JSON", "1e400"});
  expect_error("[1, 2]", 400, {"must be an object", "array"});
  expect_error("{\"id\": \"\xff\", \"inputs\": []}", 400, {"malformed request JSON"});
}

TEST(TensorCodecTest, RejectsMissingAndMistypedFields) {
  expect_error(R"({"id": "a"})", 400, {"missing field 'inputs'"});
  expect_error(R"({"inputs": {}})", 400, {"'inputs' must be an array"});
  expect_error(R"({"id": 5, "inputs": []})", 400, {"'id' must be a string"});
  expect_error(R"({"inputs": [{"datatype": "FP32", "shape": [1], "data": [1]}]})", 400,
               {"inputs[0]", "missing field 'name'"});
  expect_error(R"({"inputs": [3]})", 400, {"inputs[0] must be an object"});
  expect_error(R"({"inputs": [{"name": "x", "datatype": "FP32", "data": [1]}]})", 400,
               {"input 'x'", "missing field 'shape'"});
  expect_error(R"({"inputs": [{"name": "x", "shape": [1], "data": [1]}]})", 400,
               {"input 'x'", "missing field 'datatype'"});
  expect_error(R"({"inputs": [{"name": "x", "datatype": "FP32", "shape": [1]}]})", 400,
               {"input 'x'", "missing field 'data'"});
  expect_error(one_input("FP32", "[1]", "5"), 400, {"input 'x'", "'data' must be an array"});
  expect_error(one_input("FP32", "[\"1\"]", "[1]"), 400, {"input 'x'", "shape[0]"});
  expect_error(R"({"inputs": [{"name": "x", "datatype": 7, "shape": [1], "data": [1]}]})", 400,
               {"input 'x'", "'datatype' must be a string"});
  expect_error(R"({"inputs": [], "outputs": [{"parameters": {}}]})", 400,
               {"outputs[0]", "missing field 'name'"});
}

TEST(TensorCodecTest, RejectsMistypedParameters) {
  expect_error(R"({"parameters": [], "inputs": []})", 400,
               {"request", "'parameters' must be an object"});
  expect_error(R"({"parameters": {"binary_data_output": 1}, "inputs": []})", 400,
               {"binary_data_output", "true or false"});
  expect_error(R"({"parameters": {"timeout": -5}, "inputs": []})", 400,
               {"timeout", "non-negative integer"});
  expect_error(
      R"({"inputs": [], "outputs": [{"name": "y", "parameters": {"binary_data": "yes"}}]})", 400,
      {"output 'y'", "binary_data"});
  expect_error(R"({"inputs": [{"name": "x", "datatype": "FP32", "shape": [1],
                   "parameters": {"binary_data_size": -4}}]})",
               400, {"input 'x'", "binary_data_size", "non-negative integer"});
  expect_error(R"({"inputs": [{"name": "x", "datatype": "FP32", "shape": [1],
                   "parameters": {"shared_memory_region": "r"}}]})",
               400, {"input 'x'", "shared_memory_region", "not supported"});
  expect_error(R"({"inputs": [], "outputs": [{"name": "y", "parameters": {"classification": 3}}]})",
               400, {"output 'y'", "classification", "not supported"});
}

TEST(TensorCodecTest, RejectsUnknownAndUnsupportedDatatypes) {
  expect_error(one_input("FP128", "[1]", "[1]"), 400, {"input 'x'", "unknown datatype 'FP128'"});
  for (const char* name : {"FP16", "UINT16", "UINT32", "UINT64", "BYTES"})
    expect_error(one_input(name, "[1]", "[1]"), 400, {"input 'x'", name, "not supported"});
}

TEST(TensorCodecTest, RejectsBadShapes) {
  expect_error(one_input("FP32", "[2, -3]", "[]"), 400, {"input 'x'", "shape[1] is -3"});
  expect_error(one_input("FP32", "[1.5]", "[1]"), 400, {"input 'x'", "shape[0]", "integer"});
  expect_error(one_input("FP32", "[1, 1, 1, 1, 1, 1, 1, 1, 1]", "[1]"), 400,
               {"input 'x'", "9 dims", "at most 8"});
  expect_error(one_input("FP32", "[4294967296, 4294967296, 2]", "[]"), 400,
               {"input 'x'", "more elements than int64"});
  expect_error(one_input("FP32", "[4294967296, 4294967296, 0]", "[]"), 400,
               {"input 'x'", "more elements than int64"});
  expect_error(one_input("FP32", "[9223372036854775808]", "[]"), 400, {"input 'x'", "past int64"});
  expect_error(one_input("FP32", "\"2\"", "[]"), 400, {"input 'x'", "'shape' must be an array"});
}

TEST(TensorCodecTest, RejectsDataThatDoesNotMatchTheShape) {
  expect_error(one_input("INT32", "[2, 2]", "[1, 2, 3]"), 400,
               {"input 'x'", "holds 3 values", "shape [2, 2]", "4 elements"});
  expect_error(one_input("INT32", "[1]", "[1, 2]"), 400, {"input 'x'", "holds 2 values"});
}

TEST(TensorCodecTest, RejectsValuesThatDoNotFitTheDatatype) {
  expect_error(one_input("UINT8", "[2]", "[1, 300]"), 400,
               {"input 'x'", "data[1] is 300", "UINT8"});
  expect_error(one_input("UINT8", "[1]", "[-1]"), 400, {"data[0] is -1", "out of range"});
  expect_error(one_input("INT8", "[1]", "[128]"), 400, {"data[0] is 128", "INT8"});
  expect_error(one_input("INT16", "[1]", "[-32769]"), 400, {"data[0] is -32769", "INT16"});
  expect_error(one_input("INT32", "[2]", "[1, 1.5]"), 400,
               {"input 'x'", "data[1] is 1.5", "not an integer", "INT32"});
  expect_error(one_input("INT32", "[1]", "[2147483648]"), 400, {"out of range", "INT32"});
  expect_error(one_input("INT64", "[1]", "[9223372036854775808]"), 400, {"out of range", "INT64"});
  expect_error(one_input("INT64", "[1]", "[1e19]"), 400, {"out of range", "INT64"});
  expect_error(one_input("INT32", "[1]", "[true]"), 400, {"data[0] is true", "not a number"});
  expect_error(one_input("BOOL", "[2]", "[true, 1]"), 400,
               {"input 'x'", "data[1] is 1", "not true or false", "BOOL"});
  expect_error(one_input("FP32", "[1]", "[\"1\"]"), 400, {"data[0] is a string", "FP32"});
  expect_error(one_input("FP32", "[1]", "[null]"), 400, {"data[0] is null", "FP32"});
  expect_error(one_input("FP64", "[1]", "[{}]"), 400, {"data[0] is an object", "FP64"});
  expect_error(one_input("FP32", "[1]", "[1e39]"), 400,
               {"data[0] is 1e+39", "out of range", "FP32"});
  expect_error(one_input("BF16", "[1]", "[1e39]"), 400, {"out of range", "BF16"});
}

TEST(TensorCodecTest, RejectsDuplicateNames) {
  expect_error(R"({"inputs": [{"name": "x", "datatype": "FP32", "shape": [1], "data": [1]},
                              {"name": "x", "datatype": "FP32", "shape": [1], "data": [2]}]})",
               400, {"duplicate input 'x'"});
  expect_error(R"({"inputs": [], "outputs": [{"name": "y"}, {"name": "y"}]})", 400,
               {"duplicate output 'y'"});
}

// A request with binary FP32 input `x` of `shape` declaring `size` bytes.
json binary_header(const std::vector<int64_t>& shape, int64_t size) {
  return {{"inputs",
           {{{"name", "x"},
             {"datatype", "FP32"},
             {"shape", shape},
             {"parameters", {{"binary_data_size", size}}}}}}};
}

TEST(TensorCodecTest, RejectsBinaryDataThatDoesNotAddUp) {
  size_t json_size = 0;
  std::string body = with_binary(binary_header({2}, 8), std::string(12, '\0'), &json_size);
  expect_error(body, 400, {"add up to 8 bytes", "12 bytes follow the JSON"}, json_size);
  body = with_binary(binary_header({2}, 8), std::string(4, '\0'), &json_size);
  expect_error(body, 400, {"input 'x'", "binary_data_size 8", "more than the 4 bytes"}, json_size);
  body = with_binary(binary_header({3}, 8), std::string(8, '\0'), &json_size);
  expect_error(body, 400, {"input 'x'", "binary_data_size is 8", "shape [3]", "needs 12 bytes"},
               json_size);
  body = with_binary(json::parse(one_input("FP32", "[1]", "[1]")), "tail", &json_size);
  expect_error(body, 400, {"add up to 0 bytes", "4 bytes follow"}, json_size);
  expect_error(binary_header({1}, 4).dump(), 400,
               {"input 'x'", "no Inference-Header-Content-Length"});
  body = with_binary(binary_header({1}, 4), std::string(4, '\0'), &json_size);
  expect_error(body, 400, {"Inference-Header-Content-Length is", "holds only"}, body.size() + 1);
}

TEST(TensorCodecTest, RejectsBinaryBoolBytesOtherThanZeroAndOne) {
  const json header = {{"inputs",
                        {{{"name", "flags"},
                          {"datatype", "BOOL"},
                          {"shape", {3}},
                          {"parameters", {{"binary_data_size", 3}}}}}}};
  size_t json_size = 0;
  const std::string body = with_binary(header, std::string("\x01\x00\x02", 3), &json_size);
  expect_error(body, 400, {"input 'flags'", "element 2 is byte 2"}, json_size);
}

TEST(TensorCodecTest, RejectsDataAndBinaryDataTogether) {
  size_t json_size = 0;
  json header = binary_header({1}, 4);
  header["inputs"][0]["data"] = {1};
  const std::string body = with_binary(header, std::string(4, '\0'), &json_size);
  expect_error(body, 400, {"input 'x'", "both 'data' and parameter 'binary_data_size'"}, json_size);
}

TEST(TensorCodecTest, EnforcesLimits) {
  const std::string body = one_input("INT32", "[4]", "[1, 2, 3, 4]");
  DecodeLimits limits;
  limits.max_body_bytes = body.size() - 1;
  RequestError e = decode_error(body, std::nullopt, limits);
  EXPECT_EQ(e.status(), 413);
  EXPECT_NE(std::string(e.what()).find("over the limit"), std::string::npos);
  limits.max_body_bytes = body.size();
  EXPECT_EQ(decode_infer_request(body, std::nullopt, limits).inputs.size(), 1u);

  limits = DecodeLimits{};
  limits.max_elements = 3;
  e = decode_error(body, std::nullopt, limits);
  EXPECT_EQ(e.status(), 413);
  EXPECT_NE(std::string(e.what()).find("input 'x'"), std::string::npos);
  // An empty input's shape may be anything whose product fits, data or not.
  EXPECT_EQ(
      decode_infer_request(one_input("INT32", "[0, 1000000000000]", "[]"), std::nullopt, limits)
          .inputs[0]
          .value.numel(),
      0);

  limits = DecodeLimits{};
  limits.max_inputs = 1;
  e = decode_error(R"({"inputs": [{"name": "a", "datatype": "FP32", "shape": [1], "data": [1]},
                                  {"name": "b", "datatype": "FP32", "shape": [1], "data": [2]}]})",
                   std::nullopt, limits);
  EXPECT_EQ(e.status(), 413);
  EXPECT_NE(std::string(e.what()).find("2 inputs"), std::string::npos);
}

}  // namespace
}  // namespace skiff::serve
