// The mapping table of the ONNX exporter: per skiff op type, a rule that writes the
// op's ONNX nodes through a GraphEmitter. Each family file (rules_*.cc) adds its
// rules; an op type without an entry cannot be exported.
//
//   void relu(GraphEmitter& g, const OpDesc& op) { g.node("Relu", {g.in(op, "X")}, {g.out(op,
//   "Out")}); } table["relu"] = relu;
#pragma once

#include <map>
#include <string>
#include <vector>

#include "skiff/export/onnx/graph_emitter.h"

namespace skiff::onnx_export {

// Writes the ONNX nodes computing one skiff op (its outputs get new values).
using OnnxRule = void (*)(GraphEmitter& g, const OpDesc& op);
using RuleTable = std::map<std::string, OnnxRule>;

// Every op type that has an ONNX mapping, with its rule (built once).
const RuleTable& onnx_rules();

// The families' rules.
void add_math_rules(RuleTable& table);          // rules_math.cc: elementwise, activations
void add_reduce_rules(RuleTable& table);        // rules_reduce.cc: reductions, softmax, matmul
void add_tensor_rules(RuleTable& table);        // rules_tensor.cc: shapes, indexing, creation
void add_nn_rules(RuleTable& table);            // rules_nn.cc: conv, pool, norms, dropout
void add_rnn_rules(RuleTable& table);           // rules_rnn.cc: the cells and layers
void add_control_flow_rules(RuleTable& table);  // rules_control_flow.cc: while, arrays
void add_if_else_rules(RuleTable& table);       // rules_if_else.cc: conditional_block
void add_loss_rules(RuleTable& table);          // rules_loss.cc: losses
void add_index_rules(RuleTable& table);         // rules_index.cc: scatter, nonzero, trilu
void add_resample_rules(RuleTable& table);      // rules_resample.cc: the interp_v2 resizes
void add_quantize_rules(RuleTable& table);      // rules_quantize.cc: QuantizeLinear, DQ

// --- shared by the rules ---
// `axis` (negative counts from the back) as an index in [0, rank); throws if outside.
int64_t normalize_axis(int64_t axis, int rank);
// Writes `onnx_op` (ReduceSum, ReduceMean, ...) of `x` over `axes` (every axis when
// empty) into `out`; the axes go in as an input or an attribute as the opset wants.
void reduce_node(GraphEmitter& g, const std::string& onnx_op, const std::string& x,
                 const std::vector<int64_t>& axes, bool keepdims, const std::string& out);
// `x` cut into `parts` equal pieces along `axis`.
std::vector<std::string> split_equal(GraphEmitter& g, const std::string& x, int parts,
                                     int64_t axis);
// True when `names` holds `name`.
bool contains(const std::vector<std::string>& names, const std::string& name);
// True when an op other than those in `except` reads `var`, or it is a fetch target.
bool read_elsewhere(const Program& program, const std::string& var,
                    const std::vector<const OpDesc*>& except);
// The value of `var` in `g`, or a stand-in of its type when it has none yet.
std::string value_or_stand_in(GraphEmitter& g, const std::string& var);
// A bool condition from a bool or integer tensor value.
std::string as_bool(GraphEmitter& g, const std::string& value, DType dtype);
// The dims of `x` from `begin` to `end` (an int64 vector), known dims as a constant.
std::string dims_of(GraphEmitter& g, const std::string& x, const Shape& shape, int begin, int end);

}  // namespace skiff::onnx_export
