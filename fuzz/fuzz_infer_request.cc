// libFuzzer target: any bytes through decode_infer_request (fuzz/infer_request_input.h
// splits off the Inference-Header-Content-Length) must end in a request or a
// RequestError; never a crash, a sanitizer report, or another exception. A decoded
// request must survive a round trip: its inputs encoded as a response's binary outputs
// and decoded again give the same bytes; as JSON outputs, the same bytes too unless a
// value has no JSON form (NaN or infinity, written as null).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "fuzz/infer_request_input.h"
#include "skiff/serve/tensor_codec.h"

namespace {

using skiff::serve::DecodeLimits;
using skiff::serve::InferRequest;
using skiff::serve::InferResponse;
using skiff::serve::RequestError;

// Decodes `request`'s inputs after encoding them as outputs (binary or JSON); aborts when
// a value comes back different. A JSON encoding of NaN or infinity must fail as null.
void check_round_trip(const InferRequest& request, bool binary) {
  InferResponse response;
  for (const skiff::serve::InferInput& input : request.inputs)
    response.outputs.push_back({input.name, input.value, binary});
  size_t json_size = 0;
  const std::string encoded = encode_infer_response(response, &json_size);
  nlohmann::json inputs = nlohmann::json::parse(encoded.substr(0, json_size))["outputs"];
  const std::string header = nlohmann::json{{"inputs", inputs}}.dump();
  InferRequest back;
  try {
    back = decode_infer_request(header + encoded.substr(json_size), header.size(), DecodeLimits{});
  } catch (const RequestError& e) {
    if (binary || std::strstr(e.what(), "is null") == nullptr) std::abort();
    return;
  }
  if (back.inputs.size() != request.inputs.size()) std::abort();
  for (size_t i = 0; i < back.inputs.size(); ++i) {
    const skiff::Tensor& a = request.inputs[i].value;
    const skiff::Tensor& b = back.inputs[i].value;
    if (a.dtype() != b.dtype() || a.shape() != b.shape() ||
        (a.nbytes() != 0 && std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) != 0))
      std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const skiff::fuzzing::InferRequestInput input = skiff::fuzzing::split_infer_input(data, size);
  InferRequest request;
  try {
    request = decode_infer_request(input.body, input.json_size, DecodeLimits{});
  } catch (const RequestError& e) {
    // A clear rejection is the expected outcome for most inputs.
    if (e.status() != 400 && e.status() != 413) std::abort();
    return 0;
  }
  check_round_trip(request, /*binary=*/true);
  check_round_trip(request, /*binary=*/false);
  return 0;
}
