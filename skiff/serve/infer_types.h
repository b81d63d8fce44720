// The values the inference server passes between its parts: requests and responses of
// the Open Inference Protocol (KServe v2 / Triton) with their tensors held as skiff
// Tensors, and the error a request causes (an HTTP status and a message naming what was
// wrong). The frontends (HTTP, gRPC) decode into these; the models read and write them.
//
//   InferRequest request = decode_infer_request(body, json_size, limits);  // tensor_codec.h
//   InferResponse response = model.infer(request);                        // model_manager.h
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::serve {

// A failed request: `status` is the HTTP status the frontends answer with (400 bad
// request, 404 unknown model, 429 or 503 overload, 504 past the deadline, 500 the model
// failed); gRPC maps it to a status code (http_to_grpc_code in grpc_server.h).
class RequestError : public std::runtime_error {
 public:
  RequestError(int status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// The server's name and version, as both frontends' server metadata give them.
inline constexpr char kServerName[] = "skiff";
inline constexpr char kServerVersion[] = "0.1.0";

// Throws RequestError 400 (a bad request) or 413 (past a limit) with the parts written one
// after another, for the decoders' messages: bad_request("input 'x': shape[", i, "] is ", d).
template <typename... Args>
[[noreturn]] void bad_request(Args&&... parts) {
  throw RequestError(400, str_cat(std::forward<Args>(parts)...));
}
template <typename... Args>
[[noreturn]] void too_large(Args&&... parts) {
  throw RequestError(413, str_cat(std::forward<Args>(parts)...));
}

// The protocol's datatype names ("FP32", "INT64", "BOOL", ...) and skiff's dtypes. Not
// every protocol type has a skiff dtype: to_dtype returns nullopt for those (UINT16,
// UINT32, UINT64, FP16, BYTES).
std::optional<DType> to_dtype(const std::string& datatype);
// The protocol name of a skiff dtype ("FP32" for float32, ...).
std::string datatype_name(DType dtype);
// The dtype of a request's datatype `name`; a 400 naming `where` (an input) and telling an
// unknown name from a protocol type skiff has no dtype for.
DType request_dtype(const std::string& name, const std::string& where);
// The shape of a request's `dims` and its element count; a 400 naming `where` for more
// dims than a Tensor has, a negative dim, or a count past int64 (even with a later 0 dim:
// Shape::numel() multiplies in order).
Shape request_shape(const std::vector<int64_t>& dims, const std::string& where, int64_t* numel);

// One input tensor of a request, decoded: the values in a Tensor of the datatype's dtype
// and the request's shape.
struct InferInput {
  std::string name;
  Tensor value;
};

// An output the client asked for; `binary` asks for it as raw bytes after the JSON (the
// binary tensor extension) instead of a JSON array.
struct RequestedOutput {
  std::string name;
  bool binary = false;
};

struct InferRequest {
  std::string id;                        // echoed in the response ("" when absent)
  std::vector<InferInput> inputs;        // in the order the request gave them
  std::vector<RequestedOutput> outputs;  // empty: every output of the model
  bool binary_outputs = false;           // the request's binary_data_output parameter
  int64_t timeout_us = 0;                // the request's timeout parameter; 0: none
  // A deadline the transport gives (the gRPC client's); the earlier of it and the timeout
  // applies.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

struct InferOutput {
  std::string name;
  Tensor value;
  bool binary = false;
};

// Throws RequestError 500 unless `output` can be answered: a value (or no elements) of a
// dtype the protocol has a datatype for.
void check_answerable(const InferOutput& output);

struct InferResponse {
  std::string model_name;
  std::string model_version;
  std::string id;
  std::vector<InferOutput> outputs;
};

}  // namespace skiff::serve
