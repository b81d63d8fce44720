// What an op type accepts: its input/output slots and typed attributes with defaults
// and docs. The registry (skiff/ops) owns one per op; the verifier checks programs
// against them and `skiff ops` prints them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "skiff/ir/attr.h"

namespace skiff {

struct SlotSchema {
  std::string name;
  std::string doc;
  bool duplicable = false;  // may hold several variables
  bool optional = false;    // may be absent or empty
};

struct AttrSchema {
  std::string name;
  AttrType type = AttrType::kInt;
  std::optional<Attr> default_value;  // absent: the attr is required
  std::string doc;
};

struct OpSchema {
  std::string type;
  std::string doc;
  std::vector<SlotSchema> inputs;
  std::vector<SlotSchema> outputs;
  std::vector<AttrSchema> attrs;

  const SlotSchema* find_input(const std::string& name) const;
  const SlotSchema* find_output(const std::string& name) const;
  const AttrSchema* find_attr(const std::string& name) const;
};

}  // namespace skiff
