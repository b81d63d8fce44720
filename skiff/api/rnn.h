// Whole LSTM and GRU layers (stacks of them) built into a program: per layer, X · W_ih
// for every time step in one product, then one `lstm` / `gru` op running the fused cell
// over all the steps (ops/rnn_layer.cc: the same op nn.LSTM / nn.GRU run from Python).
// append_backward differentiates it with the op's grad (lstm_grad / gru_grad).
//
//   Program main, startup;
//   BlockBuilder b(&main);
//   std::string x = b.data("x", DType::kF32, {35, 20, 200});     // [T, B, I]
//   RnnOptions o;
//   o.hidden = 200;
//   o.num_layers = 2;
//   RnnResult r = lstm_layer(b, x, o, &startup);    // r.outputs: [35, 20, 200]
//
// Parameters follow PyTorch's gate order and initial distribution, stored as
// [in, G * hidden] (G = 4 for LSTM, 3 for GRU) so that a step is x · W.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "skiff/api/builder.h"

namespace skiff {

struct RnnOptions {
  int64_t hidden = 0;  // Hd, the size of h (and c)
  int num_layers = 1;  // layer l > 0 reads the outputs of layer l - 1
  // Prefix of the parameter names ("<name>_l<layer>_weight_ih", ...); empty: a fresh
  // "lstm_<n>" / "gru_<n>".
  std::string name;
  // Initial states, one [B, Hd] variable per layer; empty: zeros (the batch size must
  // then be known from the input's shape).
  std::vector<std::string> initial_h, initial_c;
  // Seed of the parameters' uniform(-1/sqrt(Hd), 1/sqrt(Hd)) initializers; 0: the
  // process-wide generator.
  uint64_t seed = 0;
};

struct RnnResult {
  std::string outputs;                  // [T, B, Hd]: the last layer's h at every step
  std::vector<std::string> final_h;     // per layer, [B, Hd]: h after the last step
  std::vector<std::string> final_c;     // LSTM only: per layer, c after the last step
  std::vector<std::string> parameters;  // per layer: weight_ih, weight_hh, then the bias
                                        // (LSTM: bias; GRU: bias_ih, bias_hh)
};

// Appends a stack of `options.num_layers` LSTM layers over `input_seq` ([T, B, I],
// float32 or float64, I known) to the builder's block; parameters are declared in it
// and initialized by `startup`. Throws skiff::Error for a bad shape or option.
RnnResult lstm_layer(BlockBuilder& b, const std::string& input_seq, const RnnOptions& options,
                     Program* startup, SourceLoc loc = SourceLoc::current());

// The same with GRU layers (no cell state: final_c stays empty).
RnnResult gru_layer(BlockBuilder& b, const std::string& input_seq, const RnnOptions& options,
                    Program* startup, SourceLoc loc = SourceLoc::current());

}  // namespace skiff
