// skiff passes: the registered passes (passes/registry.cc) with their docs and options.
#include <iostream>

#include "skiff/cli/commands.h"
#include "skiff/passes/pipeline.h"

namespace skiff::cli {

const char kPassesHelp[] =
    "usage: skiff passes [NAME...]\n"
    "\n"
    "Lists every registered program pass (or only the named ones) with its documentation\n"
    "and its options: type, default and doc. Passes run by name, with their options,\n"
    "through the pipeline (docs/adding_a_pass.md).\n";

int passes_command(const Args& args) {
  std::vector<const PassInfo*> passes;
  for (const std::string& a : args) {
    if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "'");
    passes.push_back(&find_pass(a));
  }
  if (passes.empty()) {
    for (const PassInfo& info : registered_passes()) passes.push_back(&info);
  }
  for (size_t i = 0; i < passes.size(); ++i) {
    const PassInfo& info = *passes[i];
    if (i) std::cout << "\n";
    std::cout << info.name << "\n  " << info.doc << "\n";
    for (const AttrSchema& o : info.options) {
      std::cout << "  option " << o.name << ": " << attr_type_name(o.type)
                << (o.default_value ? " = " + attr_str(*o.default_value) : " (required)") << "  "
                << o.doc << "\n";
    }
  }
  return 0;
}

}  // namespace skiff::cli
