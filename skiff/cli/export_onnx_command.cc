// skiff export-onnx: writes a saved inference program (.skmodel, with the parameters
// of the .skparams beside it) as an ONNX model.
#include <iostream>

#include "skiff/cli/commands.h"
#include "skiff/export/onnx/onnx_export.h"

namespace skiff::cli {

namespace {

std::string exportable_ops_text() {
  std::string text;
  size_t column = 0;
  for (const std::string& type : onnx_exportable_ops()) {
    if (column + type.size() + 1 > 78) {
      text += "\n";
      column = 0;
    }
    text += column ? " " : "  ";
    text += type;
    column += type.size() + 1;
  }
  return text + "\n";
}

}  // namespace

const char kExportOnnxHelp[] =
    "usage: skiff export-onnx MODEL.skmodel -o FILE.onnx [--opset N]\n"
    "\n"
    "Writes the inference program MODEL (as jit.save or save_inference_model wrote it;\n"
    "parameters from the .skparams file beside it) as an ONNX model: its feeds become\n"
    "the graph inputs, its fetch targets the outputs, its parameters initializers;\n"
    "`while` becomes Loop and if/else If.\n"
    "  -o, --out FILE   the ONNX file to write\n"
    "  --opset N        the ONNX operator set to target (13 to 23; default 17)\n"
    "An op without an ONNX mapping is an error naming it; `skiff export-onnx --ops`\n"
    "lists the op types that export.\n";

int export_onnx_command(const Args& args) {
  std::string model, out;
  OnnxExportOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--ops") {
      std::cout << exportable_ops_text();
      return 0;
    }
    if (arg == "-o" || arg == "--out" || arg == "--opset") {
      if (i + 1 >= args.size()) throw UsageError(arg + " needs a value");
      const std::string& value = args[++i];
      if (arg == "--opset") {
        try {
          size_t used = 0;
          options.opset = std::stoi(value, &used);
          if (used != value.size()) throw std::invalid_argument(value);
        } catch (const std::exception&) {
          throw UsageError("--opset takes a number, got '" + value + "'");
        }
      } else {
        out = value;
      }
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError("unknown option '" + arg + "'");
    } else if (model.empty()) {
      model = arg;
    } else {
      throw UsageError("unexpected argument '" + arg + "' (MODEL is '" + model + "')");
    }
  }
  if (model.empty()) throw UsageError("missing MODEL");
  if (out.empty()) throw UsageError("missing -o FILE.onnx");
  export_onnx_file(model, out, options);
  std::cout << "wrote " << out << " (ONNX opset " << options.opset << ")\n";
  return 0;
}

}  // namespace skiff::cli
