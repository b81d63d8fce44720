// The exporter's working state (internal to skiff/export/onnx/; the public entry is
// onnx_export.h). A ModelContext holds what the whole model shares: the program, the
// parameters, the opset, the value names already taken and the initializers. A
// GraphEmitter writes one ONNX graph (the model's graph, or the body of a Loop or an
// If) and tracks which ONNX value each skiff variable holds at the current point, so
// that in-place and repeated writes of one variable become distinct values (ONNX
// graphs are in SSA form). Op rules (onnx_rules.h) write nodes through it:
//
//   std::string x = g.in(op, "X");                       // the current value of X
//   g.node("Relu", {x}, {g.out(op, "Out")});              // Out gets a new value
//   std::string t = g.apply("Mul", {x, g.scalar(2.0, g.dtype(op, "X"))});
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "onnx_subset.pb.h"
#include "skiff/core/tensor.h"
#include "skiff/formats/params_file.h"
#include "skiff/ir/program.h"

namespace skiff::onnx_export {

namespace pb = ::skiff::onnx_format;

// An export failure that already names the op it happened in (not wrapped again by
// the ops enclosing it).
class OpExportError : public Error {
 public:
  using Error::Error;
};

// ONNX TensorProto.DataType of a skiff dtype.
int onnx_elem_type(DType dtype);

// A node being written: sets its attributes (ONNX attribute types by method name).
class NodeWriter {
 public:
  explicit NodeWriter(pb::NodeProto* node) : node_(node) {}
  NodeWriter& i(const std::string& name, int64_t value);
  NodeWriter& f(const std::string& name, double value);
  NodeWriter& s(const std::string& name, const std::string& value);
  NodeWriter& ints(const std::string& name, const std::vector<int64_t>& values);
  NodeWriter& strings(const std::string& name, const std::vector<std::string>& values);
  NodeWriter& floats(const std::string& name, const std::vector<double>& values);
  NodeWriter& t(const std::string& name, pb::TensorProto value);
  NodeWriter& g(const std::string& name, pb::GraphProto value);

 private:
  pb::AttributeProto* add(const std::string& name, int type);
  pb::NodeProto* node_;
};

// What every graph of one exported model shares.
class ModelContext {
 public:
  ModelContext(const Program& program, const NamedTensors& params, int opset, pb::GraphProto* main);

  const Program& program() const { return program_; }
  int opset() const { return opset_; }
  // A value name no other value of the model has: `base` when free, else base__N.
  std::string fresh_name(const std::string& base);
  // Marks `name` as taken (graph inputs and outputs keep the program's names).
  void reserve(const std::string& name);
  bool taken(const std::string& name) const { return names_.count(name) > 0; }
  // An initializer of the main graph holding `tensor` (equal constants share one);
  // returns its name. Sub-graphs see it as an outer value.
  std::string constant(const std::string& base, pb::TensorProto tensor);
  // The initializer of parameter `var` (read from the parameters once).
  std::string parameter(const std::string& var);
  // The number of nodes written so far, for unique node names.
  int next_node_id() { return node_count_++; }

 private:
  const Program& program_;
  std::map<std::string, const Tensor*> params_;  // the parameters by name
  int opset_;
  pb::GraphProto* main_;
  std::set<std::string> names_;
  std::map<std::string, int> next_suffix_;
  std::map<std::string, std::string> constants_;   // content key -> name
  std::map<std::string, std::string> parameters_;  // var -> initializer name
  int node_count_ = 0;
};

// Writes the ops of one block into one ONNX graph.
class GraphEmitter {
 public:
  // `parent` is the emitter of the enclosing graph (nullptr for the model's graph);
  // `block_idx` is the skiff block whose variables this graph resolves.
  GraphEmitter(ModelContext* model, pb::GraphProto* graph, const GraphEmitter* parent,
               int block_idx);

  ModelContext& model() { return *model_; }
  const Program& program() const { return model_->program(); }
  int opset() const { return model_->opset(); }
  int block_idx() const { return block_idx_; }
  pb::GraphProto* graph() { return graph_; }

  // Writes every op of block `block_idx` through the rule table. An op without a
  // rule, or one its rule rejects, throws skiff::Error naming the op type and its
  // source line.
  void emit_block();
  // Variables of block 0 that must end under their own name (graph outputs): the
  // last op writing each gives its value that name.
  void set_final_names(const std::vector<std::string>& vars);
  // The block being written and the index of the op being written in it; a rule
  // that writes several ops at once (if/else) marks the later ones as done.
  const Block& block() const { return program().block(block_idx_); }
  int op_index() const { return op_index_; }
  void skip_op(int index) { skipped_.insert(index); }

  // --- variables ---
  // The ONNX value `var` holds now (parameters become initializers; an unwritten
  // tensor array is an empty sequence). Throws when the variable has no value.
  std::string value(const std::string& var);
  // True when `var` has a value here or in an enclosing graph (parameters count).
  bool has_value(const std::string& var) const;
  // Makes `var` hold the ONNX value `name` from here on.
  void bind(const std::string& var, const std::string& name);
  // A new value name for `var` (its own name when it is a final name), bound to it;
  // `writer` is the index of the op writing it when that is not the current op.
  std::string define(const std::string& var, int writer = -1);
  // The declaration of `var` as seen from this block.
  const VarDesc& var_desc(const std::string& var) const;

  // --- the op being written ---
  bool has_in(const OpDesc& op, const char* slot) const;
  std::string in(const OpDesc& op, const char* slot);
  std::vector<std::string> ins(const OpDesc& op, const char* slot);
  bool has_out(const OpDesc& op, const char* slot) const;
  std::string out(const OpDesc& op, const char* slot);
  DType dtype(const OpDesc& op, const char* slot) const;
  // The declared shape of the first variable of an input (or output) slot.
  const Shape& shape(const OpDesc& op, const char* slot) const;
  const Shape& out_shape(const OpDesc& op, const char* slot) const;

  // --- nodes and constants ---
  // Appends a node; inputs "" are absent optional inputs.
  NodeWriter node(const std::string& op_type, const std::vector<std::string>& inputs,
                  const std::vector<std::string>& outputs);
  // Appends a node with one new output value; returns its name.
  std::string apply(const std::string& op_type, const std::vector<std::string>& inputs);
  // A fresh value name for an intermediate result.
  std::string temp(const std::string& hint);
  std::string ints(const std::vector<int64_t>& values);               // int64 1-D constant
  std::string scalar(double value, DType dtype);                      // rank-0 constant
  std::string filled(const Shape& shape, double value, DType dtype);  // constant tensor
  // Lists `value` (of `desc`'s type) as the next output of this graph, through an
  // Identity when no node of this graph made it or it is listed already (sub-graph
  // outputs must be values of the sub-graph).
  void add_graph_output(const std::string& value, const VarDesc& desc);
  // An empty tensor of `var`'s dtype and rank (or an empty sequence for a tensor
  // array): the stand-in a branch or loop gives for a variable that has no value yet.
  std::string stand_in(const std::string& var);

 private:
  const std::string* find(const std::string& var) const;

  ModelContext* model_;
  pb::GraphProto* graph_;
  const GraphEmitter* parent_;
  int block_idx_;
  std::map<std::string, std::string> values_;  // skiff var -> ONNX value in this graph
  std::set<std::string> made_here_;            // values produced by nodes of this graph
  std::set<std::string> outputs_;              // values already listed as graph outputs
  std::map<std::string, int> final_writer_;    // var -> index of the op giving its final value
  std::set<int> skipped_;                      // ops written together with an earlier one
  int op_index_ = -1;
};

// How a ValueInfoProto gives a value's dims.
enum class DimStyle {
  kSymbolic,  // declared dims; each -1 a named symbolic dim (the model's inputs, outputs)
  kRankOnly,  // the rank with every dim unknown (sub-graph values, which vary per run)
};
// Fills a ValueInfoProto for a value of `desc`'s dtype, kind and rank.
void set_value_info(pb::ValueInfoProto* info, const std::string& name, const VarDesc& desc,
                    DimStyle style);
// A constant tensor of `dtype` with `values` (row-major, shape.numel() of them).
pb::TensorProto tensor_proto(const Shape& shape, DType dtype, const std::vector<double>& values);

// Outer variables block `block_idx` (with its nested blocks) writes: those not
// declared inside it, in first-write order.
std::vector<std::string> outer_writes(const Program& program, int block_idx);
// Variables an op writes, sub-blocks included (a while's carried variables).
std::vector<std::string> op_writes(const Program& program, const OpDesc& op);

}  // namespace skiff::onnx_export
