// skiff ops: the registry is the source of truth for op docs; this prints it.
#include <algorithm>
#include <iostream>

#include "skiff/cli/commands.h"
#include "skiff/ops/registry.h"

namespace skiff::cli {

const char kOpsHelp[] =
    "usage: skiff ops [TYPE...]\n"
    "\n"
    "Lists every registered op (or only the named ones) with its documentation,\n"
    "input and output slots, and attributes with their types, defaults and docs.\n";

namespace {

struct Row {
  std::string left;
  std::string doc;
};

std::string slot_label(const SlotSchema& s) {
  std::string label = s.name;
  if (s.duplicable) label += " (list)";
  if (s.optional) label += " (optional)";
  return label;
}

std::string attr_label(const AttrSchema& a) {
  std::string label = a.name + ": " + attr_type_name(a.type);
  label += a.default_value ? " = " + attr_str(*a.default_value) : " (required)";
  return label;
}

void print_rows(const char* kind, const std::vector<Row>& rows, size_t width) {
  for (const Row& r : rows) {
    std::cout << "  " << kind << r.left;
    if (!r.doc.empty()) std::cout << std::string(width - r.left.size() + 2, ' ') << r.doc;
    std::cout << "\n";
  }
}

void print_op(const OpSchema& schema) {
  std::cout << schema.type << "\n";
  if (!schema.doc.empty()) std::cout << "  " << schema.doc << "\n";
  std::vector<Row> inputs, outputs, attrs;
  for (const SlotSchema& s : schema.inputs) inputs.push_back({slot_label(s), s.doc});
  for (const SlotSchema& s : schema.outputs) outputs.push_back({slot_label(s), s.doc});
  for (const AttrSchema& a : schema.attrs) attrs.push_back({attr_label(a), a.doc});
  size_t width = 0;
  for (const auto* rows : {&inputs, &outputs, &attrs})
    for (const Row& r : *rows) width = std::max(width, r.left.size());
  print_rows("input  ", inputs, width);
  print_rows("output ", outputs, width);
  print_rows("attr   ", attrs, width);
}

}  // namespace

int ops_command(const Args& args) {
  const OpRegistry& registry = OpRegistry::global();
  std::vector<std::string> types;
  for (const std::string& a : args) {
    if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "'");
    types.push_back(a);
  }
  if (types.empty()) types = registry.types();
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) std::cout << "\n";
    print_op(registry.get(types[i]).schema);
  }
  return 0;
}

}  // namespace skiff::cli
