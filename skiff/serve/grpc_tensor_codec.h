// The gRPC protocol's inference messages (proto/grpc_inference.proto: ModelInferRequest,
// ModelInferResponse) and the server's InferRequest and InferResponse: inputs from
// raw_input_contents or from the typed contents fields, checked per input and datatype as
// the HTTP codec checks its bodies; outputs as raw_output_contents.
//
//   InferRequest request = decode_grpc_infer_request(message, DecodeLimits{});
//   encode_grpc_infer_response(model.infer(...), &reply);
#pragma once

#include "grpc_inference.pb.h"
#include "skiff/serve/infer_types.h"
#include "skiff/serve/tensor_codec.h"

namespace skiff::serve {

// The request `message` holds. Each input's values come from raw_input_contents (one entry
// per input, in input order, exactly shape × element size bytes) or from its contents field
// of the datatype (fp32_contents for FP32, int_contents for INT8/16/32, ...), as many values
// as the shape has elements. Throws RequestError(400) naming the input or field at fault,
// or 413 past `limits` (the byte limit is gRPC's own message limit, not checked here).
InferRequest decode_grpc_infer_request(const inference::ModelInferRequest& message,
                                       const DecodeLimits& limits);

// Fills `reply` with `response`: names, id, and each output's datatype, shape and raw bytes
// (little-endian, BOOL one byte). An output without a protocol datatype or without storage
// throws RequestError(500).
void encode_grpc_infer_response(const InferResponse& response,
                                inference::ModelInferResponse* reply);

}  // namespace skiff::serve
