#include "skiff/api/rnn.h"

#include <cmath>

namespace skiff {

namespace {

using Ints = std::vector<int64_t>;

enum class CellKind { kLstm, kGru };

const char* kind_name(CellKind kind) { return kind == CellKind::kLstm ? "lstm" : "gru"; }

// A fresh variable name, declared in b's block at once so that the next call gets
// another one; the op that writes it sets its dtype and shape.
std::string fresh(BlockBuilder& b, const std::string& prefix) {
  std::string name = b.unique_name(prefix);
  b.block().add_var(VarDesc(name, DType::kF32, Shape{}, VarKind::kDenseTensor));
  return name;
}

// What every layer of a stack shares.
struct Stack {
  CellKind kind = CellKind::kLstm;
  std::string prefix;
  DType dtype = DType::kF32;
  int64_t batch = -1;
  Program* startup = nullptr;
  SourceLoc loc;
};

// The loop-carried copy of an initial state: the given variable, or zeros.
std::string initial_state(BlockBuilder& b, const Stack& s, const std::vector<std::string>& given,
                          int layer, int64_t hidden) {
  if (!given.empty()) return b.apply("assign", {{"X", {given[layer]}}}, {}, s.loc);
  return b.apply("fill_constant", {},
                 {{"shape", Ints{s.batch, hidden}},
                  {"value", 0.0},
                  {"dtype", std::string(dtype_name(s.dtype))}},
                 s.loc);
}

// One layer over `seq` [T, B, I]: returns its outputs [T, B, Hd].
std::string build_layer(BlockBuilder& b, const Stack& s, const std::string& seq, int64_t input,
                        int layer, const RnnOptions& o, RnnResult* result) {
  const bool lstm = s.kind == CellKind::kLstm;
  const int64_t hd = o.hidden, width = (lstm ? 4 : 3) * hd;
  const double bound = 1.0 / std::sqrt(static_cast<double>(hd));
  auto param = [&](const char* what, const Shape& shape) {
    const uint64_t seed = o.seed ? o.seed + result->parameters.size() : 0;
    std::string name = s.prefix + "_l" + std::to_string(layer) + "_" + what;
    b.parameter(name, s.dtype, shape, s.startup, Initializer::uniform(-bound, bound, seed), s.loc);
    result->parameters.push_back(name);
    return name;
  };
  const std::string w_ih = param("weight_ih", {input, width});
  const std::string w_hh = param("weight_hh", {hd, width});
  std::vector<Slot> biases;
  if (lstm) {
    biases.push_back({"Bias", {param("bias", {width})}});
  } else {
    biases.push_back({"Bias_ih", {param("bias_ih", {width})}});
    biases.push_back({"Bias_hh", {param("bias_hh", {width})}});
  }

  // The input side of every step in one product, then all the steps in one layer op.
  const std::string gates_x = b.apply("matmul", {{"X", {seq}}, {"Y", {w_ih}}}, {}, s.loc);
  const std::string h = initial_state(b, s, o.initial_h, layer, hd);
  std::vector<Slot> ins = {{"Gates_x", {gates_x}}, {"H0", {h}}, {"Weight_hh", {w_hh}}};
  const std::string out = fresh(b, "rnn_outputs"), h_last = fresh(b, "rnn_h");
  std::vector<Slot> outs = {{"Out", {out}},
                            {"H_last", {h_last}},
                            {"Gates", {fresh(b, "rnn_gates")}},
                            {"H_prev", {fresh(b, "rnn_h_prev")}}};
  if (lstm) {
    ins.push_back({"C0", {initial_state(b, s, o.initial_c, layer, hd)}});
    const std::string c_last = fresh(b, "rnn_c");
    outs.push_back({"C_last", {c_last}});
    outs.push_back({"C_prev", {fresh(b, "rnn_c_prev")}});
    outs.push_back({"C_step", {fresh(b, "rnn_c_step")}});
    result->final_c.push_back(c_last);
  }
  ins.insert(ins.end(), biases.begin(), biases.end());
  b.op(kind_name(s.kind), ins, outs, {}, s.loc);
  result->final_h.push_back(h_last);
  return out;
}

RnnResult build_stack(CellKind kind, BlockBuilder& b, const std::string& input_seq,
                      const RnnOptions& o, Program* startup, SourceLoc loc) {
  const char* what = kind == CellKind::kLstm ? "lstm_layer" : "gru_layer";
  const VarDesc* in = b.program().find_var(b.block_idx(), input_seq);
  SKIFF_CHECK(in, what, " at ", loc.str(), ": input '", input_seq, "' is not declared");
  SKIFF_CHECK(is_floating(in->dtype) && in->shape.rank() == 3 && in->shape[2] > 0, what, " at ",
              loc.str(), ": input '", input_seq,
              "' must be float32 or float64 [T, B, I] with I known, got ", dtype_name(in->dtype),
              in->shape);
  SKIFF_CHECK(o.hidden > 0 && o.num_layers >= 1, what, " at ", loc.str(),
              ": hidden must be > 0 and num_layers >= 1, got hidden ", o.hidden, ", num_layers ",
              o.num_layers);
  SKIFF_CHECK(startup, what, " at ", loc.str(), ": a startup program is needed for the parameters");
  const size_t layers = static_cast<size_t>(o.num_layers);
  SKIFF_CHECK(o.initial_h.empty() || o.initial_h.size() == layers, what, " at ", loc.str(),
              ": initial_h holds ", o.initial_h.size(), " variables for ", layers, " layers");
  if (kind == CellKind::kLstm) {
    SKIFF_CHECK(o.initial_c.empty() || o.initial_c.size() == layers, what, " at ", loc.str(),
                ": initial_c holds ", o.initial_c.size(), " variables for ", layers, " layers");
  } else {
    SKIFF_CHECK(o.initial_c.empty(), what, " at ", loc.str(),
                ": a GRU has no cell state: initial_c must be empty");
  }
  const bool zeros = o.initial_h.empty() || (kind == CellKind::kLstm && o.initial_c.empty());
  SKIFF_CHECK(!zeros || in->shape[1] > 0, what, " at ", loc.str(),
              ": zero initial states need a known batch size, but input '", input_seq, "' is ",
              in->shape, "; give initial_h (and initial_c)");

  Stack s;
  s.kind = kind;
  s.prefix = o.name.empty() ? b.unique_name(kind_name(kind)) : o.name;
  s.dtype = in->dtype;
  s.batch = in->shape[1];
  s.startup = startup;
  s.loc = loc;
  int64_t input = in->shape[2];

  RnnResult result;
  std::string seq = input_seq;
  for (int layer = 0; layer < o.num_layers; ++layer) {
    seq = build_layer(b, s, seq, input, layer, o, &result);
    input = o.hidden;
  }
  result.outputs = seq;
  return result;
}

}  // namespace

RnnResult lstm_layer(BlockBuilder& b, const std::string& input_seq, const RnnOptions& options,
                     Program* startup, SourceLoc loc) {
  return build_stack(CellKind::kLstm, b, input_seq, options, startup, loc);
}

RnnResult gru_layer(BlockBuilder& b, const std::string& input_seq, const RnnOptions& options,
                    Program* startup, SourceLoc loc) {
  return build_stack(CellKind::kGru, b, input_seq, options, startup, loc);
}

}  // namespace skiff
