// Hand-encoded protobuf wire data for tests that need program files the C++ API
// cannot produce (type fields disagreeing with values, duplicate entries). Field
// numbers follow proto/skiff.proto.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "skiff/ir/program.h"
#include "skiff/ir/serialize.h"

namespace skiff::testing {

class Wire {
 public:
  // A varint field (ints, enums, bools; negative int32 as 10 bytes, like protobuf).
  Wire& varint(int field, int64_t value) {
    tag(field, 0);
    raw_varint(static_cast<uint64_t>(value));
    return *this;
  }
  Wire& bytes(int field, const std::string& value) {
    tag(field, 2);
    raw_varint(value.size());
    out_ += value;
    return *this;
  }
  Wire& message(int field, const Wire& value) { return bytes(field, value.str()); }
  Wire& float64(int field, double value) {
    tag(field, 1);
    char raw[8];
    std::memcpy(raw, &value, 8);
    out_.append(raw, 8);
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  void tag(int field, int wire_type) { raw_varint(static_cast<uint64_t>(field) << 3 | wire_type); }
  void raw_varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  std::string out_;
};

// Program file bytes: header (magic, `version`, payload length) + `payload`.
inline std::string program_file(const std::string& payload, uint32_t version = kProgramVersion) {
  std::string out(kProgramMagic);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((version >> (8 * i)) & 0xff));
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((uint64_t{payload.size()} >> (8 * i)) & 0xff));
  return out + payload;
}

// The file bytes of a one-block program whose single op is encoded by `op_fields`.
inline std::string one_op_program(const Wire& op_fields) {
  Wire block;
  block.varint(1, 0).varint(2, -1).message(4, op_fields);
  Wire program;
  program.varint(1, kProgramVersion).message(2, block);
  return program_file(program.str());
}

}  // namespace skiff::testing
