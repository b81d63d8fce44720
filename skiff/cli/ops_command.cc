// skiff ops: the registry is the source of truth for op docs; this prints it.
#include <algorithm>
#include <iostream>

#include "skiff/cli/commands.h"
#include "skiff/ops/registry.h"
#include "skiff/tools/op_paths.h"

namespace skiff::cli {

const char kOpsHelp[] =
    "usage: skiff ops [--paths] [TYPE...]\n"
    "\n"
    "Lists every registered op (or only the named ones) with its documentation,\n"
    "input and output slots, attributes with their types, defaults and docs, the\n"
    "paths that run it (the interpreter, eager mode, the compiler (skiff compile) and\n"
    "the ONNX exporter) and its traits (runs blocks, auto_cast policy, int8 form).\n"
    "--paths prints only the paths, a column each, with totals.\n";

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

std::string paths_label(const OpPaths& p) {
  std::string label;
  for (const auto& [on, name] : {std::pair{p.interpreter, "interpreter"},
                                 {p.eager, "eager"},
                                 {p.compile, "compile"},
                                 {p.onnx, "onnx"}}) {
    if (on) label += (label.empty() ? "" : ", ") + std::string(name);
  }
  return label.empty() ? "none" : label;
}

void print_paths_table(const std::vector<std::string>& types) {
  size_t width = 4;
  for (const std::string& t : types) width = std::max(width, t.size());
  std::cout << "type" << std::string(width - 2, ' ') << "interpreter  eager  compile  onnx\n";
  int totals[4] = {};
  auto cell = [](bool on, int w) {
    return (on ? std::string("yes") : std::string("-")) + std::string(w - (on ? 3 : 1), ' ');
  };
  for (const std::string& t : types) {
    const OpPaths p = op_paths(t);
    const bool on[4] = {p.interpreter, p.eager, p.compile, p.onnx};
    for (int k = 0; k < 4; ++k) totals[k] += on[k];
    std::cout << t << std::string(width - t.size() + 2, ' ') << cell(on[0], 13) << cell(on[1], 7)
              << cell(on[2], 9) << (on[3] ? "yes" : "-") << "\n";
  }
  std::cout << types.size() << " ops: interpreter " << totals[0] << ", eager " << totals[1]
            << ", compile " << totals[2] << ", onnx " << totals[3] << "\n";
}

// The op's traits that differ from an ordinary op's (ops/registry.h), or "".
std::string traits_label(const OpInfo& info) {
  std::string label;
  auto add = [&](const std::string& t) { label += (label.empty() ? "" : ", ") + t; };
  if (info.runs_blocks()) add(std::string("runs blocks: ") + block_role_name(info.block_role));
  if (info.amp != AmpPolicy::kFollow) add(std::string("amp: ") + amp_policy_name(info.amp));
  if (info.int8_form) add(std::string("int8 form: ") + info.int8_form->int8_op);
  if (info.moves_values) add("moves values");
  if (info.views_input) add("a view of X");
  if (info.writes_in_place) add("writes in place");
  return label;
}

void print_op(const OpInfo& info) {
  const OpSchema& schema = info.schema;
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
  std::cout << "  runs in: " << paths_label(op_paths(schema.type)) << "\n";
  const std::string traits = traits_label(info);
  if (!traits.empty()) std::cout << "  traits: " << traits << "\n";
}

}  // namespace

int ops_command(const Args& args) {
  const OpRegistry& registry = OpRegistry::global();
  std::vector<std::string> types;
  bool paths_only = false;
  for (const std::string& a : args) {
    if (a == "--paths") {
      paths_only = true;
      continue;
    }
    if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "'");
    types.push_back(a);
  }
  if (types.empty()) types = registry.types();
  for (const std::string& t : types) registry.get(t);  // names an unknown type
  if (paths_only) {
    print_paths_table(types);
    return 0;
  }
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) std::cout << "\n";
    print_op(registry.get(types[i]));
  }
  return 0;
}

}  // namespace skiff::cli
