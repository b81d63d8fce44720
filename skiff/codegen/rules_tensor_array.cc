// Emitter rules of the tensor arrays (write_to_array, read_from_array, array_length,
// tensor_array_to_tensor and their grad ops). They differ from the ops' kernel calls because
// a compiled model holds each array variable as a TensorArray field of its own
// (kernels/cpu/tensor_array.h), not as a Variable.
#include "skiff/codegen/op_rules.h"

namespace skiff::codegen {

namespace {

// ---- tensor arrays

void emit_write_to_array(OpEmitter& e) {
  e.include("tensor_array");
  e.line("k::write_to_array(" + e.in("X") + ", " + e.in("I") + ", " + e.out_array("Out") + ");");
}

// Array@GRAD names Out@GRAD: the kernel clears the entry in place.
void emit_write_to_array_grad(OpEmitter& e) {
  e.include("tensor_array");
  if (!e.has_out("X@GRAD") && !e.has_out("Array@GRAD")) return;
  e.line("k::write_to_array_grad(" + e.in("X") + ", " + e.in("I") + ", " + e.in_array("Out@GRAD") +
         ", " + e.out("X@GRAD") + ", " + e.out_array("Array@GRAD") + ");");
}

void emit_read_from_array(OpEmitter& e) {
  e.include("tensor_array");
  e.line("k::read_from_array(" + e.in_array("X") + ", " + e.in("I") + ", " + e.out("Out") + ");");
}

void emit_read_from_array_grad(OpEmitter& e) {
  e.include("tensor_array");
  if (!e.has_out("X@GRAD")) return;
  e.line("k::read_from_array_grad(" + e.in_array("X") + ", " + e.in("I") + ", " + e.in("Out@GRAD") +
         ", " + e.out_array("X@GRAD") + ");");
}

void emit_array_length(OpEmitter& e) {
  e.include("tensor_array");
  e.line("k::array_length(" + e.in_array("X") + ", " + e.out("Out") + ");");
}

void emit_tensor_array_to_tensor(OpEmitter& e) {
  e.include("tensor_array");
  e.line("k::array_to_tensor(" + e.in_array("X") + ", " + OpEmitter::lit(e.attr<int64_t>("axis")) +
         ", " + OpEmitter::lit(e.attr<bool>("use_stack")) + ", " + e.out("Out") + ");");
}

void emit_tensor_array_to_tensor_grad(OpEmitter& e) {
  e.include("tensor_array");
  if (!e.has_out("X@GRAD")) return;
  e.line("k::array_to_tensor_grad(" + e.in_array("X") + ", " + e.in("Out@GRAD") + ", " +
         OpEmitter::lit(e.attr<int64_t>("axis")) + ", " +
         OpEmitter::lit(e.attr<bool>("use_stack")) + ", " + e.out_array("X@GRAD") + ");");
}

}  // namespace

void add_tensor_array_rules(RuleTable& t) {
  t["write_to_array"] = emit_write_to_array;
  t["write_to_array_grad"] = emit_write_to_array_grad;
  t["read_from_array"] = emit_read_from_array;
  t["read_from_array_grad"] = emit_read_from_array_grad;
  t["array_length"] = emit_array_length;
  t["tensor_array_to_tensor"] = emit_tensor_array_to_tensor;
  t["tensor_array_to_tensor_grad"] = emit_tensor_array_to_tensor_grad;
}

}  // namespace skiff::codegen
