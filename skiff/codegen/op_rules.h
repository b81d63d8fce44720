// The hand-written emitter rules, for ops whose generated code differs from their
// binding's kernel call (control flow, tensor arrays, static fast paths, collectives), one
// family per file. Each add_*_rules function puts its op types' rules into
// the table that find_emit_rule reads; every other op compiles through its binding.
#pragma once

#include <map>
#include <string>

#include "skiff/codegen/op_emitter.h"
#include "skiff/ops/registry.h"

namespace skiff::codegen {

using RuleTable = std::map<std::string, EmitRule>;

// while, conditional_block, select_input (rules_control_flow.cc).
void add_control_flow_rules(RuleTable& t);
// fill_zeros_like, assign and sum on tensor arrays and selected rows; the static fast
// paths of increment, comparisons, elementwise arithmetic, activations and matmul
// (rules_math.cc).
void add_math_rules(RuleTable& t);
// The tensor arrays: write_to_array, read_from_array, array_length,
// tensor_array_to_tensor and their grad ops (rules_tensor_array.cc).
void add_tensor_array_rules(RuleTable& t);
// The collective ops (c_allreduce_sum, c_allgather, ...) on the communicator of their ring
// (rules_collective.cc).
void add_collective_rules(RuleTable& t);

// The rule of an op whose kernels are a binding (ops/binding.h): runs the binding's
// EmitContext instantiation, which writes the kernel call (binding_rule.cc). binding_of is
// the op's binding, or nullptr.
void emit_binding(OpEmitter& e);
EmitFn binding_of(const std::string& op_type);

// Static-shape fast paths (rules_static.cc): each writes the op as a loop over planned
// buffers (or a direct gemm call) and returns true when every variable's shape and dtype
// are fixed at compile time and small; otherwise writes nothing and returns false, and the
// rule calls the kernel. `cpp_op` is the C++ operator ("+", "<").
bool emit_static_binary(OpEmitter& e, const char* cpp_op);
bool emit_static_compare(OpEmitter& e, const char* cpp_op);
bool emit_static_increment(OpEmitter& e);
bool emit_static_assign(OpEmitter& e);
bool emit_static_relu(OpEmitter& e);
// tanh, logistic (sigmoid), exp: the kernel's Eigen array expression `eigen_fn` over a
// fixed-size map.
bool emit_static_eigen_activation(OpEmitter& e, const char* eigen_fn);
bool emit_static_matmul(OpEmitter& e);

}  // namespace skiff::codegen
