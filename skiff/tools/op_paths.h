// Which of skiff's paths run each registered op: the interpreter, eager mode, the
// compiler (skiff compile) and the ONNX exporter. `skiff ops` prints them, and
// tests/tools/op_paths_test.cc keeps the ops without a compile path to a reasoned list.
//
//   OpPaths p = op_paths("gather");   // p.compile: a rule or a binding writes its C++
#pragma once

#include <string>

namespace skiff {

struct OpPaths {
  bool interpreter = false;  // kernels, or run by the runtime itself (control flow)
  bool eager = false;        // kernels eager mode calls (control flow is Python's there)
  bool compile = false;      // a codegen rule or a binding (ops/binding.h)
  bool onnx = false;         // an ONNX mapping (export/onnx/onnx_rules.h)
};

// The paths of registered op `type`; throws naming an unknown type.
OpPaths op_paths(const std::string& type);

}  // namespace skiff
