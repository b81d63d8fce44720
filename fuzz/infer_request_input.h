// The input format of fuzz_infer_request: two little-endian bytes giving the
// Inference-Header-Content-Length (0xffff: no such header), then the request body.
// fuzz_make_infer_seeds writes request bodies in this format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skiff::fuzzing {

constexpr uint16_t kNoJsonSize = 0xffff;

struct InferRequestInput {
  std::optional<size_t> json_size;
  std::string_view body;
};

// Splits fuzzer bytes into the header value and the body (inputs under two bytes: an
// empty body without header).
inline InferRequestInput split_infer_input(const uint8_t* data, size_t size) {
  if (size < 2) return {std::nullopt, {}};
  const uint16_t prefix = static_cast<uint16_t>(data[0] | (data[1] << 8));
  const std::string_view body(reinterpret_cast<const char*>(data) + 2, size - 2);
  if (prefix == kNoJsonSize) return {std::nullopt, body};
  return {prefix, body};
}

// The fuzzer input for `body` with header value `json_size` (nullopt: no header).
inline std::string join_infer_input(std::optional<uint16_t> json_size, std::string_view body) {
  const uint16_t prefix = json_size.value_or(kNoJsonSize);
  std::string out{static_cast<char>(prefix & 0xff), static_cast<char>(prefix >> 8)};
  out.append(body);
  return out;
}

}  // namespace skiff::fuzzing
