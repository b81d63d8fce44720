// Forward declarations of the board's summary types, for headers that must not include
// the generated protos (log_writer.h).
#pragma once

#include <string>

namespace skiff::board {

namespace proto {
class Event;
class Summary_Value;
class TensorProto;
}  // namespace proto

// A hyperparameter's value: a string, a number or a bool.
struct HParamValue {
  enum class Kind { kString, kNumber, kBool } kind = Kind::kNumber;
  std::string text;
  double number = 0;
  bool flag = false;
};

}  // namespace skiff::board
