// skiff._C's part of passes/pipeline.h: the registered passes and the one way to run them.
// run_passes runs a list of passes by name, with their options, on a program in place;
// convert_to_int8 (the int8 pass, passes/int8.h) is that with one pass.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/attr_convert.h"
#include "python/src/bindings.h"
#include "python/src/program_handle.h"
#include "skiff/passes/pipeline.h"

namespace skiff::python {

namespace {

nb::dict dict_of(const AttrMap& values) {
  nb::dict d;
  for (const auto& [name, value] : values.items()) d[name.c_str()] = attr_to_python(value);
  return d;
}

// The options of `info` from a Python dict (values converted to each option's type).
PassOptions options_from_dict(const PassInfo& info, nb::handle options) {
  PassOptions out;
  if (options.is_none()) return out;
  for (auto [key, value] : nb::cast<nb::dict>(options)) {
    const std::string name = nb::cast<std::string>(key);
    const AttrSchema* schema = nullptr;
    for (const AttrSchema& a : info.options)
      if (a.name == name) schema = &a;
    // An unknown option is refused by pass(), naming the pass's options.
    out.set(name, schema ? attr_from_python(info.name, *schema, value)
                         : Attr(nb::cast<std::string>(nb::str(value))));
  }
  return out;
}

}  // namespace

// Runs `passes` ([(name, {option: value})] or [name]) on `program` in place; the reports,
// one dict per pass. The program is left as it was when a pass refuses it.
nb::list run_passes(ProgramHandle& program, nb::handle passes) {
  std::vector<Pass> pipeline;
  for (nb::handle p : passes) {
    if (nb::isinstance<nb::str>(p)) {
      pipeline.push_back(pass(nb::cast<std::string>(p)));
      continue;
    }
    if (!nb::isinstance<nb::tuple>(p) || nb::len(p) != 2 || !nb::isinstance<nb::str>(p[0]) ||
        !(p[1].is_none() || nb::isinstance<nb::dict>(p[1]))) {
      const std::string got = nb::cast<std::string>(nb::repr(p));
      throw nb::type_error(
          ("run_passes: each pass is a name or a (name, {option: value}) tuple, got " + got)
              .c_str());
    }
    const std::string name = nb::cast<std::string>(p[0]);
    pipeline.push_back(pass(name, options_from_dict(find_pass(name), p[1])));
  }
  std::vector<PassReport> reports;
  Program out = run_pipeline(*program.ir, pipeline, &reports);
  *program.ir = std::move(out);
  program.touched();
  nb::list result;
  for (const PassReport& r : reports) result.append(dict_of(r));
  return result;
}

void define_passes(nb::module_& m) {
  m.def(
      "passes",
      [] {
        nb::list out;
        for (const PassInfo& info : registered_passes()) {
          nb::dict d;
          d["name"] = info.name;
          d["doc"] = info.doc;
          nb::list options;
          for (const AttrSchema& a : info.options) {
            nb::dict od;
            od["name"] = a.name;
            od["type"] = attr_type_name(a.type);
            od["default"] = a.default_value ? attr_to_python(*a.default_value) : nb::none();
            od["doc"] = a.doc;
            options.append(od);
          }
          d["options"] = options;
          out.append(d);
        }
        return out;
      },
      "Every registered pass: [{'name', 'doc', 'options': [{'name', 'type', 'default', "
      "'doc'}]}], in the pipeline's list order.");
  m.def("run_passes", &run_passes, nb::arg("program"), nb::arg("passes"),
        "Runs passes ([(name, {option: value})] or [name]) in order on the program, in place "
        "(SKIFF_DUMP_IR=1 prints it after each); returns each pass's report, a dict, in order. "
        "A pass that refuses the program leaves it as it was.");
  m.def(
      "convert_to_int8",
      [](ProgramHandle& program) -> nb::object {
        nb::list reports = run_passes(program, nb::make_tuple("convert_to_int8"));
        return reports[0];
      },
      nb::arg("program"),
      "Rewrites the program's fake-quantized matmuls and conv2d's of int8 weights into "
      "quantize_linear + quantized_matmul / quantized_conv2d (int8 passed on between int8 "
      "layers), in place (run_passes(program, ['convert_to_int8'])); returns {'converted': n, "
      "'requantized': n, 'left_float': [why, ...]}.");
}

}  // namespace skiff::python
