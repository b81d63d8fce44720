// The bodies of the Open Inference Protocol's HTTP/REST inference (KServe v2, as Triton
// and its tritonclient speak it): the JSON request with its tensors as JSON arrays or as
// raw bytes after the JSON (the binary tensor data extension), and the response likewise.
//
//   InferRequest request = decode_infer_request(body, header_length, DecodeLimits{});
//   size_t json_size = 0;
//   std::string reply = encode_infer_response(response, &json_size);
//   // json_size < reply.size(): send it as Inference-Header-Content-Length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "skiff/serve/infer_types.h"

namespace skiff::serve {

// What one request may hold; past a limit decoding throws RequestError(413).
struct DecodeLimits {
  size_t max_body_bytes = size_t{64} << 20;  // the whole body, JSON and binary data
  int64_t max_elements = int64_t{1} << 28;   // tensor elements over all inputs
  size_t max_inputs = 1024;                  // entries of "inputs" (and of "outputs")
};

// Decodes an inference request body. `json_size` is the Inference-Header-Content-Length
// header: the JSON's length, the inputs' binary data following it; without it the whole
// body is JSON. Throws RequestError(400) naming the field or input at fault, or 413.
InferRequest decode_infer_request(std::string_view body, std::optional<size_t> json_size,
                                  const DecodeLimits& limits);

// Whether the output `name` goes back as binary data: its own binary_data parameter
// where the request lists it with one, else the request's binary_data_output.
bool output_is_binary(const InferRequest& request, const std::string& name);

// The response body: the JSON, then the raw bytes of the outputs marked binary in output
// order. Sets `*json_size` to the JSON's length. An output without a protocol datatype or
// without storage throws RequestError(500).
std::string encode_infer_response(const InferResponse& response, size_t* json_size);

// The body of a failed request: {"error": message}.
std::string encode_error(const std::string& message);

}  // namespace skiff::serve
