// A whole simple (Elman) RNN layer over the time steps, one direction, as rnn_layer.h's
// LSTM and GRU: the caller computes X · W_ih (plus the biases) of every step in one
// product (gates_x, [T, B, Hd]); per step h = act(gates_x[t] + h · weight_hh). Steps at or
// past a sequence's length leave its state alone and output zeros. The backward takes the
// hidden weights' gradient as one product over all steps. f32 and f64.
#pragma once

#include <string>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

struct SimpleRnnLayerInputs {
  const Tensor* gates_x = nullptr;    // [T, B, Hd]: X · W_ih (+ the biases) of every step
  const Tensor* h0 = nullptr;         // [B, Hd]
  const Tensor* weight_hh = nullptr;  // [Hd, Hd]
  const Tensor* lengths = nullptr;
  bool reverse = false;
  std::string activation = "tanh";  // or "relu"
};

// h' = act(gates_x[t] + h · weight_hh) per step; h_prev [T, B, Hd] receives the state
// before each step (nullptr: not kept).
void simple_rnn_layer(const SimpleRnnLayerInputs& in, Tensor* out, Tensor* h_last, Tensor* h_prev);

// Gradients from out_grad and h_last_grad; `out` and `h_prev` are the forward's.
void simple_rnn_layer_grad(const SimpleRnnLayerInputs& in, const Tensor& out, const Tensor& h_prev,
                           const Tensor* out_grad, const Tensor* h_last_grad, Tensor* gates_x_grad,
                           Tensor* h0_grad, Tensor* weight_hh_grad);

}  // namespace skiff::kernels
