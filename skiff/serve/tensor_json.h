// The `data` arrays of the Open Inference Protocol's JSON bodies and the skiff Tensors
// they hold: each value checked against the datatype on the way in, written exactly (floats
// round-trip) on the way out.
//
//   Tensor x = tensor_from_json(input["data"], Shape{2, 2}, DType::kI32, "input 'x'");
//   output["data"] = tensor_to_json(y);
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "skiff/core/tensor.h"

namespace skiff::serve {

// The tensor of `shape` and `dtype` whose values `data` (a flat or nested JSON array) holds
// in row-major order; `shape`'s element count must fit int64. Throws RequestError(400)
// naming `where` when data is no array, holds another count of values, or a value does not
// fit the dtype (300 for UINT8, 1.5 for INT32, 1 for BOOL, 1e39 for FP32).
Tensor tensor_from_json(const nlohmann::json& data, const Shape& shape, DType dtype,
                        const std::string& where);

// The values of `tensor` as a flat JSON array: BOOL as true and false, BF16 as the floats
// it holds. Non-finite floats become null (JSON has no NaN or infinity).
nlohmann::ordered_json tensor_to_json(const Tensor& tensor);

}  // namespace skiff::serve
