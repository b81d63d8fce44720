#include "skiff/ir/op_schema.h"

namespace skiff {

namespace {
template <typename T>
const T* find_named(const std::vector<T>& items, const std::string& name) {
  for (const T& item : items)
    if (item.name == name) return &item;
  return nullptr;
}
}  // namespace

const SlotSchema* OpSchema::find_input(const std::string& name) const {
  return find_named(inputs, name);
}
const SlotSchema* OpSchema::find_output(const std::string& name) const {
  return find_named(outputs, name);
}
const AttrSchema* OpSchema::find_attr(const std::string& name) const {
  return find_named(attrs, name);
}

}  // namespace skiff
