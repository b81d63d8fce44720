// ONNX export: an inference program (with its feed and fetch names, as jit.save and
// save_inference_model write it) and its parameters become an ONNX model. Each op
// maps through a rule of the table in onnx_rules.h; `while` becomes Loop and
// `conditional_block` / select_input become If, with the blocks as sub-graphs.
//
//   Program program = load_program("m.skmodel");
//   NamedTensors params = load_program_params("m.skparams", program);
//   std::string model = export_onnx(program, params, {17});   // ModelProto bytes
//   export_onnx_file("m.skmodel", "m.onnx");                   // the same from files
#pragma once

#include <string>
#include <vector>

#include "skiff/formats/params_file.h"
#include "skiff/ir/program.h"

namespace skiff {

// The ONNX operator sets (default domain) the exporter can target.
inline constexpr int kMinOnnxOpset = 13;
inline constexpr int kMaxOnnxOpset = 23;

struct OnnxExportOptions {
  int opset = 17;  // in [kMinOnnxOpset, kMaxOnnxOpset]
  // Names of the model's inputs in feed order (one per feed); empty: the feeds' names.
  std::vector<std::string> input_names;
};

// The serialized ONNX ModelProto of block 0 of `program`: graph inputs are its feed
// names, outputs its fetch names (dims unknown in the program stay symbolic), and
// every parameter it reads is an initializer taken from `params` (by name). Throws skiff::Error
// for a program without feed / fetch names, a missing parameter, or an op without an
// ONNX mapping (naming the op type and the source line that created it).
std::string export_onnx(const Program& program, const NamedTensors& params,
                        const OnnxExportOptions& options = {});

// Exports the program file `model_path` (.skmodel) with the parameters of the
// .skparams file beside it to `onnx_path` (written atomically).
void export_onnx_file(const std::string& model_path, const std::string& onnx_path,
                      const OnnxExportOptions& options = {});

// The op types that have an ONNX mapping, sorted.
std::vector<std::string> onnx_exportable_ops();

// The ONNX IR version written for `opset` (the oldest IR version that allows it).
int onnx_ir_version(int opset);

// A serialized ModelProto in protobuf text format (for inspection and tests).
// Throws skiff::Error when the bytes do not parse.
std::string onnx_model_to_text(const std::string& model_bytes);

}  // namespace skiff
