// A whole LSTM or GRU layer over the time steps, one direction: the caller
// computes the input side X · W_ih of every step in one product (gates_x, [T, B, G * Hd]); the
// layer runs the fused cell of rnn_cell.h step after step, keeping what the backward reads. Steps
// at or past a sequence's length (when lengths are given) leave its state alone and output zeros,
// so a reversed layer starts at each sequence's own last step.
//
//   LstmLayerInputs in;
//   in.gates_x = &gx; in.h0 = &h0; in.c0 = &c0; in.weight_hh = &w_hh; in.bias = &b;
//   LstmLayerOutputs out{&seq, &h_last, &c_last, &saved};
//   lstm_layer(in, out);
//   lstm_layer_grad(in, kept, &seq_grad, &h_last_grad, nullptr, grads);
//
// The backward runs the cell's backward step after step and then one product over all
// steps for the hidden weights' gradient (LSTM), instead of one per step. f32 and f64.
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

struct LstmLayerInputs {
  const Tensor* gates_x = nullptr;    // [T, B, 4Hd]: X · W_ih of every step
  const Tensor* h0 = nullptr;         // [B, Hd]
  const Tensor* c0 = nullptr;         // [B, Hd]
  const Tensor* weight_hh = nullptr;  // [Hd, 4Hd]
  const Tensor* bias = nullptr;       // [4Hd] or nullptr
  const Tensor* lengths = nullptr;    // [B] int32 or int64, or nullptr: every step counts
  bool reverse = false;               // steps from T - 1 down to 0
};

// What the forward keeps for the backward, per step t: the activated gates [T, B, 4Hd],
// the states before the step [T, B, Hd] and the cell's c_out [T, B, Hd].
struct LstmLayerSaved {
  Tensor* gates = nullptr;
  Tensor* h_prev = nullptr;
  Tensor* c_prev = nullptr;
  Tensor* c_step = nullptr;
};

// The same, read by the backward.
struct LstmLayerKept {
  const Tensor* gates = nullptr;
  const Tensor* h_prev = nullptr;
  const Tensor* c_prev = nullptr;
  const Tensor* c_step = nullptr;
};

struct LstmLayerGrads {
  Tensor* gates_x = nullptr;  // [T, B, 4Hd]
  Tensor* h0 = nullptr;
  Tensor* c0 = nullptr;
  Tensor* weight_hh = nullptr;
  Tensor* bias = nullptr;
};

// out [T, B, Hd]: h of every step (zeros past a sequence's length); h_last, c_last:
// the states after the last step. Throws skiff::Error naming a mismatched shape.
void lstm_layer(const LstmLayerInputs& in, Tensor* out, Tensor* h_last, Tensor* c_last,
                const LstmLayerSaved& saved);

// Gradients from out_grad, h_last_grad and c_last_grad (each nullptr or empty: zero);
// `kept` holds what lstm_layer kept. Each gradient in `grads` may be nullptr.
void lstm_layer_grad(const LstmLayerInputs& in, const LstmLayerKept& kept, const Tensor* out_grad,
                     const Tensor* h_last_grad, const Tensor* c_last_grad,
                     const LstmLayerGrads& grads);

struct GruLayerInputs {
  const Tensor* gates_x = nullptr;    // [T, B, 3Hd]
  const Tensor* h0 = nullptr;         // [B, Hd]
  const Tensor* weight_hh = nullptr;  // [Hd, 3Hd]
  const Tensor* bias_ih = nullptr;    // [3Hd] or nullptr
  const Tensor* bias_hh = nullptr;    // [3Hd] or nullptr
  const Tensor* lengths = nullptr;
  bool reverse = false;
};

// Per step: the cell's saved gates [T, B, 4Hd] (r, z, n, b_n) and the state before it.
struct GruLayerSaved {
  Tensor* gates = nullptr;
  Tensor* h_prev = nullptr;
};

struct GruLayerKept {
  const Tensor* gates = nullptr;
  const Tensor* h_prev = nullptr;
};

struct GruLayerGrads {
  Tensor* gates_x = nullptr;
  Tensor* h0 = nullptr;
  Tensor* weight_hh = nullptr;
  Tensor* bias_ih = nullptr;
  Tensor* bias_hh = nullptr;
};

void gru_layer(const GruLayerInputs& in, Tensor* out, Tensor* h_last, const GruLayerSaved& saved);

void gru_layer_grad(const GruLayerInputs& in, const GruLayerKept& kept, const Tensor* out_grad,
                    const Tensor* h_last_grad, const GruLayerGrads& grads);

}  // namespace skiff::kernels
