// Emitter rules of the recurrent family: tensor arrays (write_to_array, read_from_array,
// array_length, tensor_array_to_tensor and their grad ops; a TensorArray field per array
// variable) and the fused cells lstm_cell / gru_cell with their grad ops, which together
// make the LSTM and GRU layers of api/rnn.h. As elsewhere, each rule writes the call its
// kernel wrapper in ops/ makes (kernels/cpu/tensor_array.h, rnn_cell.h).
#include "skiff/codegen/op_rules.h"

namespace skiff::codegen {

namespace {

// A `const Tensor*` expression for an optional input: "&v.x" or "nullptr".
std::string in_ptr(OpEmitter& e, const char* slot) {
  return e.has_in(slot) ? "&" + e.in(slot) : "nullptr";
}

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

// ---- lstm_cell and gru_cell

// k::LstmCellInputs{x, gates_x, h, c, weight_ih, weight_hh, bias}
std::string lstm_inputs(OpEmitter& e) {
  return "k::LstmCellInputs{" + in_ptr(e, "X") + ", " + in_ptr(e, "Gates_x") + ", &" + e.in("H") +
         ", &" + e.in("C") + ", " + in_ptr(e, "Weight_ih") + ", &" + e.in("Weight_hh") + ", " +
         in_ptr(e, "Bias") + "}";
}

void emit_lstm_cell(OpEmitter& e) {
  e.include("rnn_cell");
  e.line("k::lstm_cell(" + lstm_inputs(e) + ", " + e.out("H_out") + ", " + e.out("C_out") + ", " +
         e.out("Gates") + ");");
}

void emit_lstm_cell_grad(OpEmitter& e) {
  e.include("rnn_cell");
  e.line("k::lstm_cell_grad(" + lstm_inputs(e) + ", " + in_ptr(e, "Gates") + ", " +
         in_ptr(e, "C_out") + ", " + in_ptr(e, "H_out@GRAD") + ", " + in_ptr(e, "C_out@GRAD") +
         ",");
  e.line("                  k::LstmCellGrads{" + e.out("X@GRAD") + ", " + e.out("Gates_x@GRAD") +
         ", " + e.out("H@GRAD") + ", " + e.out("C@GRAD") + ", " + e.out("Weight_ih@GRAD") + ", " +
         e.out("Weight_hh@GRAD") + ", " + e.out("Bias@GRAD") + "});");
}

// k::GruCellInputs{x, gates_x, h, weight_ih, weight_hh, bias_ih, bias_hh}
std::string gru_inputs(OpEmitter& e) {
  return "k::GruCellInputs{" + in_ptr(e, "X") + ", " + in_ptr(e, "Gates_x") + ", &" + e.in("H") +
         ", " + in_ptr(e, "Weight_ih") + ", &" + e.in("Weight_hh") + ", " + in_ptr(e, "Bias_ih") +
         ", " + in_ptr(e, "Bias_hh") + "}";
}

void emit_gru_cell(OpEmitter& e) {
  e.include("rnn_cell");
  e.line("k::gru_cell(" + gru_inputs(e) + ", " + e.out("H_out") + ", " + e.out("Gates") + ");");
}

void emit_gru_cell_grad(OpEmitter& e) {
  e.include("rnn_cell");
  e.line("k::gru_cell_grad(" + gru_inputs(e) + ", " + in_ptr(e, "Gates") + ", " +
         e.in("H_out@GRAD") + ",");
  e.line("                 k::GruCellGrads{" + e.out("X@GRAD") + ", " + e.out("Gates_x@GRAD") +
         ", " + e.out("H@GRAD") + ", " + e.out("Weight_ih@GRAD") + ", " + e.out("Weight_hh@GRAD") +
         ", " + e.out("Bias_ih@GRAD") + ", " + e.out("Bias_hh@GRAD") + "});");
}

}  // namespace

void add_recurrent_rules(RuleTable& t) {
  t["write_to_array"] = emit_write_to_array;
  t["write_to_array_grad"] = emit_write_to_array_grad;
  t["read_from_array"] = emit_read_from_array;
  t["read_from_array_grad"] = emit_read_from_array_grad;
  t["array_length"] = emit_array_length;
  t["tensor_array_to_tensor"] = emit_tensor_array_to_tensor;
  t["tensor_array_to_tensor_grad"] = emit_tensor_array_to_tensor_grad;
  t["lstm_cell"] = emit_lstm_cell;
  t["lstm_cell_grad"] = emit_lstm_cell_grad;
  t["gru_cell"] = emit_gru_cell;
  t["gru_cell_grad"] = emit_gru_cell_grad;
}

}  // namespace skiff::codegen
