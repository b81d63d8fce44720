// Program-to-program passes and the one way to run them. A pass is a free function
// `Program pass(const Program&, const PassOptions&, PassReport*)` registered by name with
// its options' schema (passes/registry.cc, one list); a pipeline is a list of passes run
// in order. With the environment variable SKIFF_DUMP_IR=1 the pipeline prints the program
// (as text) after each pass to stderr. docs/adding_a_pass.md tells how to add one.
//
//   Program optimized = run_pipeline(program, inference_pipeline());
//   std::vector<PassReport> reports;
//   Program int8 = run_pipeline(program, {pass("convert_to_int8")}, &reports);
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "skiff/ir/attr.h"
#include "skiff/ir/op_schema.h"
#include "skiff/ir/program.h"

namespace skiff {

// A pass's options by name (checked against its schema, defaults filled) and what it
// reports back (counts, reasons), both as attribute values.
using PassOptions = AttrMap;
using PassReport = AttrMap;
using PassFn = Program (*)(const Program&, const PassOptions&, PassReport*);

// A registered pass: its name, what it does, its options with types, defaults and docs.
struct PassInfo {
  std::string name;
  std::string doc;
  std::vector<AttrSchema> options;
  PassFn run = nullptr;
};

// Every registered pass, in the order of the list (passes/registry.cc).
const std::vector<PassInfo>& registered_passes();
// The pass named `name`; throws skiff::Error naming the registered ones.
const PassInfo& find_pass(const std::string& name);

// One step of a pipeline: a pass and the options it runs with.
struct Pass {
  std::string name;
  std::function<Program(const Program&, const PassOptions&, PassReport*)> run;
  PassOptions options;

  Pass(std::string name, PassFn fn, PassOptions options = {});
  // A pass with no options and no report (tests, one-off rewrites).
  Pass(std::string name, Program (*fn)(const Program&));
};

// The registered pass `name` with `options`, checked against its schema (an unknown
// option or a value of the wrong type throws skiff::Error naming the pass) and defaults
// filled.
Pass pass(const std::string& name, PassOptions options = {});

// Runs the passes in order, dumping the IR after each when SKIFF_DUMP_IR is set; with
// `reports`, one report per pass, in order.
Program run_pipeline(const Program& program, const std::vector<Pass>& passes,
                     std::vector<PassReport>* reports = nullptr);

// The passes applied to programs that only run forward (inference): fusions that
// are exact in forward but would lose values a backward pass needs.
std::vector<Pass> inference_pipeline();

}  // namespace skiff
