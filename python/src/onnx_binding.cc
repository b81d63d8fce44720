// ONNX export from Python (export/onnx/onnx_export.h): skiff.onnx.export traces a
// Layer into an inference program and writes it through export_onnx.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"
#include "python/src/program_handle.h"
#include "skiff/export/onnx/onnx_export.h"
#include "skiff/ir/file_io.h"
#include "skiff/runtime/scope.h"

namespace skiff::python {

void define_onnx(nb::module_& m) {
  m.def(
      "export_onnx",
      [](const ProgramHandle& p, const Scope& params, const std::string& path, int opset,
         std::vector<std::string> input_names) {
        OnnxExportOptions options;
        options.opset = opset;
        options.input_names = std::move(input_names);
        nb::gil_scoped_release unlocked;
        // The program's persistables the scope holds; the exporter names a missing one.
        NamedTensors values;
        for (const std::string& name : persistable_names(*p.ir)) {
          const Variable* v = params.find_var(name);
          if (v && v->tensor() && v->tensor()->initialized())
            values.emplace_back(name, *v->tensor());
        }
        write_file_atomically(path, export_onnx(*p.ir, values, options));
      },
      nb::arg("program"), nb::arg("params"), nb::arg("path"), nb::arg("opset") = 17,
      nb::arg("input_names") = std::vector<std::string>{},
      "Writes block 0 of the program (feeds and fetches recorded) as an ONNX model file, "
      "its parameters read from the scope; input_names rename the inputs (\"\": keep).");
  m.def(
      "onnx_model_to_text",
      [](nb::bytes data) { return onnx_model_to_text(std::string(data.c_str(), data.size())); },
      nb::arg("data"), "An ONNX model's bytes in protobuf text format.");
  m.def("onnx_exportable_ops", &onnx_exportable_ops,
        "The op types that have an ONNX mapping, sorted.");
  m.attr("onnx_min_opset") = kMinOnnxOpset;
  m.attr("onnx_max_opset") = kMaxOnnxOpset;
}

}  // namespace skiff::python
