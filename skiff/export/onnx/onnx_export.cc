#include "skiff/export/onnx/onnx_export.h"

#include <google/protobuf/text_format.h>

#include <filesystem>
#include <map>
#include <set>

#include "skiff/export/onnx/graph_emitter.h"
#include "skiff/export/onnx/onnx_rules.h"
#include "skiff/formats/params_file.h"
#include "skiff/ir/file_io.h"
#include "skiff/ir/serialize.h"
#include "skiff/ir/verifier.h"
#include "skiff/ops/registry.h"

namespace skiff {

using onnx_export::DimStyle;
using onnx_export::GraphEmitter;
using onnx_export::ModelContext;
using onnx_export::set_value_info;
namespace pb = onnx_export::pb;

namespace {

const VarDesc& global_var(const Program& program, const std::string& name, const char* what) {
  const VarDesc* d = program.global_block().find_local_var(name);
  SKIFF_CHECK(d, "ONNX export: ", what, " '", name, "' is not a variable of block 0");
  SKIFF_CHECK(d->kind == VarKind::kDenseTensor, "ONNX export: ", what, " '", name, "' is a ",
              var_kind_name(d->kind), "; model inputs and outputs must be tensors");
  return *d;
}

// Every value name a node of `graph` (or of its sub-graphs) reads, and its outputs.
void collect_uses(const pb::GraphProto& graph, std::set<std::string>* used) {
  for (const pb::NodeProto& node : graph.node()) {
    used->insert(node.input().begin(), node.input().end());
    for (const pb::AttributeProto& a : node.attribute()) {
      if (a.has_g()) collect_uses(a.g(), used);
      for (const pb::GraphProto& g : a.graphs()) collect_uses(g, used);
    }
  }
  for (const pb::ValueInfoProto& out : graph.output()) used->insert(out.name());
}

// Drops the initializers no node reads (constants a rule made but did not need).
void drop_unused_initializers(pb::GraphProto* graph) {
  std::set<std::string> used;
  collect_uses(*graph, &used);
  google::protobuf::RepeatedPtrField<pb::TensorProto> kept;
  for (pb::TensorProto& t : *graph->mutable_initializer())
    if (used.count(t.name())) *kept.Add() = std::move(t);
  graph->mutable_initializer()->Swap(&kept);
}

}  // namespace

int onnx_ir_version(int opset) {
  if (opset <= 14) return 7;
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  if (opset <= 22) return 10;
  return 11;
}

std::string export_onnx(const Program& program, const NamedTensors& params,
                        const OnnxExportOptions& options) {
  SKIFF_CHECK(options.opset >= kMinOnnxOpset && options.opset <= kMaxOnnxOpset,
              "ONNX export: opset ", options.opset, " is not supported (", kMinOnnxOpset, " to ",
              kMaxOnnxOpset, ")");
  SKIFF_CHECK(!program.fetch_names.empty(),
              "ONNX export: the program names no fetch targets; export a program saved by "
              "jit.save or save_inference_model, which record its inputs and outputs");
  pb::ModelProto model;
  model.set_ir_version(onnx_ir_version(options.opset));
  pb::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(options.opset);
  model.set_producer_name("skiff");
  pb::GraphProto* graph = model.mutable_graph();
  graph->set_name("skiff_program");

  ModelContext context(program, params, options.opset, graph);
  GraphEmitter root(&context, graph, nullptr, 0);
  const std::vector<std::string>& renamed = options.input_names;
  SKIFF_CHECK(renamed.empty() || renamed.size() == program.feed_names.size(),
              "ONNX export: ", renamed.size(), " input names for ", program.feed_names.size(),
              " feeds");
  std::map<std::string, std::string> feeds;  // feed -> the model input's name
  for (size_t i = 0; i < program.feed_names.size(); ++i) {
    const std::string& feed = program.feed_names[i];
    const VarDesc& d = global_var(program, feed, "feed");
    const std::string name = renamed.empty() || renamed[i].empty() ? feed : renamed[i];
    SKIFF_CHECK(!context.taken(name), "ONNX export: two inputs are named '", name, "'");
    context.reserve(name);
    set_value_info(graph->add_input(), name, d, DimStyle::kSymbolic);
    root.bind(feed, name);
    feeds[feed] = name;
  }
  std::set<std::string> fetches;
  std::vector<std::string> computed;
  for (const std::string& fetch : program.fetch_names) {
    global_var(program, fetch, "fetch target");
    SKIFF_CHECK(fetches.insert(fetch).second, "ONNX export: fetch target '", fetch,
                "' is listed twice");
    if (feeds.count(fetch)) continue;
    SKIFF_CHECK(!context.taken(fetch), "ONNX export: output '", fetch,
                "' has the name of an input");
    context.reserve(fetch);
    computed.push_back(fetch);
  }
  root.set_final_names(computed);
  try {
    root.emit_block();
  } catch (const Error& e) {
    throw Error(std::string("ONNX export: ") + e.what());
  }
  for (const std::string& fetch : program.fetch_names) {
    const std::string value = root.value(fetch);
    std::string name = fetch;
    auto fed = feeds.find(fetch);
    if (fed != feeds.end()) {  // an input passed through keeps the input's name
      SKIFF_CHECK(value == fed->second, "ONNX export: fetch target '", fetch,
                  "' is also a feed that the program overwrites");
      name = value;
    } else if (value != fetch) {
      root.node("Identity", {value}, {fetch});
    }
    set_value_info(graph->add_output(), name, *program.global_block().find_local_var(fetch),
                   DimStyle::kSymbolic);
  }
  drop_unused_initializers(graph);
  std::string bytes;
  SKIFF_CHECK(model.SerializeToString(&bytes), "ONNX export: the model does not serialize");
  return bytes;
}

void export_onnx_file(const std::string& model_path, const std::string& onnx_path,
                      const OnnxExportOptions& options) {
  const Program program = load_program(model_path);
  verify_program(program, find_op_schema);
  std::filesystem::path params_path(model_path);
  params_path.replace_extension(".skparams");
  bool has_persistables = false;
  for (const Block& b : program.blocks())
    for (const auto& [name, d] : b.vars) has_persistables = has_persistables || d.persistable;
  NamedTensors params;
  if (has_persistables || std::filesystem::exists(params_path)) {
    params = load_program_params(params_path.string(), program);
  }
  write_file_atomically(onnx_path, export_onnx(program, params, options));
}

std::vector<std::string> onnx_exportable_ops() {
  std::vector<std::string> out;
  for (const auto& [type, rule] : onnx_export::onnx_rules()) out.push_back(type);
  return out;
}

std::string onnx_model_to_text(const std::string& model_bytes) {
  pb::ModelProto model;
  SKIFF_CHECK(model.ParseFromString(model_bytes), "the bytes are not an ONNX model");
  std::string text;
  google::protobuf::TextFormat::PrintToString(model, &text);
  return text;
}

}  // namespace skiff
