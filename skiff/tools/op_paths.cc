#include "skiff/tools/op_paths.h"

#include "skiff/codegen/op_emitter.h"
#include "skiff/export/onnx/onnx_rules.h"
#include "skiff/ops/registry.h"

namespace skiff {

OpPaths op_paths(const std::string& type) {
  const OpInfo& info = OpRegistry::global().get(type);
  OpPaths p;
  p.interpreter = info.runs_blocks() || !info.kernels.empty();
  p.eager = !info.runs_blocks() && !info.kernels.empty();
  p.compile = codegen::find_emit_rule(type) != nullptr;
  p.onnx = onnx_export::onnx_rules().count(type) > 0;
  return p;
}

}  // namespace skiff
