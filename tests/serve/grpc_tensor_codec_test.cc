#include "skiff/serve/grpc_tensor_codec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "skiff/serve/grpc_server.h"

namespace skiff::serve {
namespace {

using inference::ModelInferRequest;

// A request with one input `x` of `datatype` and `shape`, its values still to be set.
ModelInferRequest one_input(const std::string& datatype, std::vector<int64_t> shape) {
  ModelInferRequest request;
  request.set_model_name("m");
  ModelInferRequest::InferInputTensor* x = request.add_inputs();
  x->set_name("x");
  x->set_datatype(datatype);
  for (int64_t d : shape) x->add_shape(d);
  return request;
}

// Expects decoding `request` to fail with `status` and a message holding each of `parts`.
void expect_error(const ModelInferRequest& request, int status,
                  const std::vector<std::string>& parts, const DecodeLimits& limits = {}) {
  try {
    decode_grpc_infer_request(request, limits);
    ADD_FAILURE() << "decoded without an error: " << request.ShortDebugString();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.status(), status) << e.what();
    for (const std::string& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "'" << e.what() << "' does not name " << part;
  }
}

template <typename T>
std::vector<T> values_of(const Tensor& t) {
  std::vector<T> out(static_cast<size_t>(t.numel()));
  std::memcpy(out.data(), t.raw_data(), t.nbytes());
  return out;
}

TEST(GrpcTensorCodec, RawContentsInInputOrder) {
  ModelInferRequest request = one_input("FP32", {2});
  ModelInferRequest::InferInputTensor* y = request.add_inputs();
  y->set_name("y");
  y->set_datatype("INT64");
  y->add_shape(1);
  const float xs[] = {1.5f, -2.f};
  const int64_t ys[] = {7};
  request.add_raw_input_contents(std::string(reinterpret_cast<const char*>(xs), sizeof xs));
  request.add_raw_input_contents(std::string(reinterpret_cast<const char*>(ys), sizeof ys));
  request.set_id("r1");
  const InferRequest decoded = decode_grpc_infer_request(request, {});
  ASSERT_EQ(decoded.inputs.size(), 2u);
  EXPECT_EQ(decoded.id, "r1");
  EXPECT_EQ(decoded.inputs[0].name, "x");
  EXPECT_EQ(values_of<float>(decoded.inputs[0].value), (std::vector<float>{1.5f, -2.f}));
  EXPECT_EQ(decoded.inputs[1].value.dtype(), DType::kI64);
  EXPECT_EQ(values_of<int64_t>(decoded.inputs[1].value), (std::vector<int64_t>{7}));
}

TEST(GrpcTensorCodec, TypedContentsPerDatatype) {
  ModelInferRequest i8 = one_input("INT8", {3});
  for (int v : {-128, 0, 127}) i8.mutable_inputs(0)->mutable_contents()->add_int_contents(v);
  EXPECT_EQ(values_of<int8_t>(decode_grpc_infer_request(i8, {}).inputs[0].value),
            (std::vector<int8_t>{-128, 0, 127}));

  ModelInferRequest u8 = one_input("UINT8", {2});
  for (unsigned v : {0u, 255u}) u8.mutable_inputs(0)->mutable_contents()->add_uint_contents(v);
  EXPECT_EQ(values_of<uint8_t>(decode_grpc_infer_request(u8, {}).inputs[0].value),
            (std::vector<uint8_t>{0, 255}));

  ModelInferRequest b = one_input("BOOL", {2, 1});
  b.mutable_inputs(0)->mutable_contents()->add_bool_contents(true);
  b.mutable_inputs(0)->mutable_contents()->add_bool_contents(false);
  const Tensor t = decode_grpc_infer_request(b, {}).inputs[0].value;
  EXPECT_EQ(t.shape(), Shape({2, 1}));
  EXPECT_EQ(values_of<uint8_t>(t), (std::vector<uint8_t>{1, 0}));

  ModelInferRequest f64 = one_input("FP64", {1});
  f64.mutable_inputs(0)->mutable_contents()->add_fp64_contents(0.25);
  EXPECT_EQ(values_of<double>(decode_grpc_infer_request(f64, {}).inputs[0].value),
            (std::vector<double>{0.25}));
}

TEST(GrpcTensorCodec, ContentsThatDoNotFitAreRefusedNamingTheInput) {
  ModelInferRequest out_of_range = one_input("INT16", {1});
  out_of_range.mutable_inputs(0)->mutable_contents()->add_int_contents(40000);
  expect_error(out_of_range, 400, {"input 'x'", "element 0 is 40000", "INT16"});

  ModelInferRequest wrong_field = one_input("INT32", {1});
  wrong_field.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1);
  expect_error(wrong_field, 400, {"input 'x'", "int_contents", "got fp32_contents"});

  ModelInferRequest too_few = one_input("FP32", {2, 2});
  too_few.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1);
  expect_error(too_few, 400, {"input 'x'", "holds 1 values", "4 elements"});

  expect_error(one_input("BF16", {1}), 400, {"input 'x'", "raw_input_contents"});
  expect_error(one_input("FP16", {1}), 400, {"input 'x'", "FP16 is not supported"});
  expect_error(one_input("COMPLEX", {1}), 400, {"input 'x'", "unknown datatype 'COMPLEX'"});
  expect_error(one_input("FP32", {-1}), 400, {"input 'x'", "shape[0] is -1"});

  ModelInferRequest bad_bool = one_input("BOOL", {1});
  bad_bool.add_raw_input_contents(std::string(1, '\2'));
  expect_error(bad_bool, 400, {"input 'x'", "must be 0 or 1"});

  ModelInferRequest both = one_input("FP32", {1});
  both.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1);
  both.add_raw_input_contents(std::string(4, '\0'));
  expect_error(both, 400, {"input 'x'", "both contents and raw_input_contents"});
}

TEST(GrpcTensorCodec, RequestLevelChecks) {
  ModelInferRequest twice = one_input("FP32", {0});
  *twice.add_inputs() = twice.inputs(0);
  expect_error(twice, 400, {"duplicate input 'x'"});

  ModelInferRequest unnamed = one_input("FP32", {0});
  unnamed.mutable_inputs(0)->clear_name();
  expect_error(unnamed, 400, {"inputs[0]", "'name'"});

  ModelInferRequest timeout = one_input("FP32", {0});
  (*timeout.mutable_parameters())["timeout"].set_string_param("soon");
  expect_error(timeout, 400, {"'timeout'"});
  (*timeout.mutable_parameters())["timeout"].set_int64_param(1500);
  EXPECT_EQ(decode_grpc_infer_request(timeout, {}).timeout_us, 1500);

  ModelInferRequest big = one_input("FP32", {1000});
  DecodeLimits limits;
  limits.max_elements = 10;
  expect_error(big, 413, {"input 'x'", "limit of 10 elements"}, limits);

  ModelInferRequest outputs = one_input("FP32", {0});
  outputs.add_outputs()->set_name("y");
  outputs.add_outputs()->set_name("y");
  expect_error(outputs, 400, {"duplicate output 'y'"});
}

TEST(GrpcTensorCodec, ResponseCarriesRawOutputs) {
  InferResponse response;
  response.model_name = "m";
  response.model_version = "2";
  response.id = "r";
  Tensor y = Tensor::empty(Shape({2}), DType::kI32);
  const int32_t ys[] = {3, -4};
  std::memcpy(y.raw_data(), ys, sizeof ys);
  response.outputs.push_back({"y", y, true});
  inference::ModelInferResponse reply;
  encode_grpc_infer_response(response, &reply);
  EXPECT_EQ(reply.model_version(), "2");
  EXPECT_EQ(reply.id(), "r");
  ASSERT_EQ(reply.outputs_size(), 1);
  EXPECT_EQ(reply.outputs(0).datatype(), "INT32");
  EXPECT_EQ(reply.outputs(0).shape(0), 2);
  EXPECT_EQ(reply.raw_output_contents(0), std::string(reinterpret_cast<const char*>(ys), 8));
}

TEST(GrpcTensorCodec, HttpStatusesMapToGrpcCodes) {
  // grpc::StatusCode values: INVALID_ARGUMENT 3, DEADLINE_EXCEEDED 4, NOT_FOUND 5,
  // RESOURCE_EXHAUSTED 8, INTERNAL 13, UNAVAILABLE 14, UNAUTHENTICATED 16.
  EXPECT_EQ(http_to_grpc_code(400), 3);
  EXPECT_EQ(http_to_grpc_code(504), 4);
  EXPECT_EQ(http_to_grpc_code(404), 5);
  EXPECT_EQ(http_to_grpc_code(413), 8);
  EXPECT_EQ(http_to_grpc_code(429), 8);
  EXPECT_EQ(http_to_grpc_code(500), 13);
  EXPECT_EQ(http_to_grpc_code(503), 14);
  EXPECT_EQ(http_to_grpc_code(401), 16);
}

}  // namespace
}  // namespace skiff::serve
