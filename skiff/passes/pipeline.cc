#include "skiff/passes/pipeline.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "skiff/ir/printer.h"

namespace skiff {

namespace {

bool dump_enabled() {
  const char* v = std::getenv("SKIFF_DUMP_IR");
  return v && *v && std::strcmp(v, "0") != 0;
}

// `options` checked against the pass's schema, with its defaults filled.
PassOptions checked_options(const PassInfo& info, const PassOptions& options) {
  for (const auto& [name, value] : options.items()) {
    const AttrSchema* schema = nullptr;
    for (const AttrSchema& a : info.options)
      if (a.name == name) schema = &a;
    if (!schema) {
      std::string known;
      for (const AttrSchema& a : info.options) known += (known.empty() ? "" : ", ") + a.name;
      fail("pass '", info.name, "' has no option '", name,
           "' (its options: ", known.empty() ? "none" : known, ")");
    }
    SKIFF_CHECK(attr_type(value) == schema->type, "pass '", info.name, "': option '", name,
                "' takes type ", attr_type_name(schema->type), ", got ",
                attr_type_name(attr_type(value)));
  }
  PassOptions out = options;
  for (const AttrSchema& a : info.options) {
    if (out.has(a.name)) continue;
    SKIFF_CHECK(a.default_value, "pass '", info.name, "' needs option '", a.name, "': ", a.doc);
    out.set(a.name, *a.default_value);
  }
  return out;
}

}  // namespace

const PassInfo& find_pass(const std::string& name) {
  for (const PassInfo& p : registered_passes())
    if (p.name == name) return p;
  std::string known;
  for (const PassInfo& p : registered_passes()) known += (known.empty() ? "" : ", ") + p.name;
  fail("no pass named '", name, "' (the passes: ", known, ")");
}

Pass::Pass(std::string name, PassFn fn, PassOptions options)
    : name(std::move(name)), run(fn), options(std::move(options)) {}

Pass::Pass(std::string name, Program (*fn)(const Program&))
    : name(std::move(name)),
      run([fn](const Program& p, const PassOptions&, PassReport*) { return fn(p); }) {}

Pass pass(const std::string& name, PassOptions options) {
  const PassInfo& info = find_pass(name);
  return Pass(info.name, info.run, checked_options(info, options));
}

Program run_pipeline(const Program& program, const std::vector<Pass>& passes,
                     std::vector<PassReport>* reports) {
  const bool dump = dump_enabled();
  Program current = program;
  if (dump) std::fprintf(stderr, "=== input ===\n%s\n", program_to_text(current).c_str());
  for (const Pass& pass : passes) {
    PassReport report;
    current = pass.run(current, pass.options, &report);
    if (reports) reports->push_back(std::move(report));
    if (dump) {
      std::fprintf(stderr, "=== after %s ===\n%s\n", pass.name.c_str(),
                   program_to_text(current).c_str());
    }
  }
  return current;
}

std::vector<Pass> inference_pipeline() { return {pass("fuse_conv_bias_relu")}; }

}  // namespace skiff
