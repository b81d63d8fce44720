// One time step of an LSTM or a GRU (PyTorch's gate order and formulas), fused: one
// product for the input side (or none, when the caller computed X · W_ih for all
// steps in one big product and passes it as gates_x), one for the hidden side, then
// one pass of elementwise math per row.
//
//   LstmCellInputs in;
//   in.x = &x; in.h = &h; in.c = &c; in.weight_ih = &w_ih; in.weight_hh = &w_hh;
//   lstm_cell(in, &h_out, &c_out, &gates);           // gates: saved for the backward
//   LstmCellGrads g; g.h = &dh; g.weight_hh = &dw_hh;
//   lstm_cell_grad(in, &gates, &c_out, &dh_out, &dc_out, g);
//
// Weights are stored [in, G * Hd] (G = 4 for LSTM, 3 for GRU) so that a step is
// x · W; float32 and float64.
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// The inputs of one LSTM step. Exactly one of x (with weight_ih) and gates_x is set;
// bias may be nullptr.
struct LstmCellInputs {
  const Tensor* x = nullptr;          // [B, I]
  const Tensor* gates_x = nullptr;    // [B, 4Hd]: x · W_ih computed by the caller
  const Tensor* h = nullptr;          // [B, Hd]
  const Tensor* c = nullptr;          // [B, Hd]
  const Tensor* weight_ih = nullptr;  // [I, 4Hd], gate blocks i, f, g, o
  const Tensor* weight_hh = nullptr;  // [Hd, 4Hd]
  const Tensor* bias = nullptr;       // [4Hd]
};

// Gradients of one LSTM step; each may be nullptr (not wanted).
struct LstmCellGrads {
  Tensor* x = nullptr;
  Tensor* gates_x = nullptr;
  Tensor* h = nullptr;
  Tensor* c = nullptr;
  Tensor* weight_ih = nullptr;
  Tensor* weight_hh = nullptr;
  Tensor* bias = nullptr;
};

// pre = x·W_ih (or gates_x) + h·W_hh + bias; i, f, o = sigmoid, g = tanh of its blocks;
// c_out = f*c + i*g; h_out = o * tanh(c_out). `gates` (may be nullptr) receives the
// activated gates [B, 4Hd] (i, f, g, o). Throws skiff::Error naming mismatched shapes.
void lstm_cell(const LstmCellInputs& in, Tensor* h_out, Tensor* c_out, Tensor* gates);

// Gradients of lstm_cell from h_out_grad and c_out_grad (either nullptr or empty means
// zero). `gates` and `c_out` are the forward's; when either is nullptr they are
// recomputed.
void lstm_cell_grad(const LstmCellInputs& in, const Tensor* gates, const Tensor* c_out,
                    const Tensor* h_out_grad, const Tensor* c_out_grad, const LstmCellGrads& grads);

// The inputs of one GRU step. Exactly one of x (with weight_ih) and gates_x is set;
// the biases may be nullptr.
struct GruCellInputs {
  const Tensor* x = nullptr;          // [B, I]
  const Tensor* gates_x = nullptr;    // [B, 3Hd]: x · W_ih computed by the caller
  const Tensor* h = nullptr;          // [B, Hd]
  const Tensor* weight_ih = nullptr;  // [I, 3Hd], gate blocks r, z, n
  const Tensor* weight_hh = nullptr;  // [Hd, 3Hd]
  const Tensor* bias_ih = nullptr;    // [3Hd]
  const Tensor* bias_hh = nullptr;    // [3Hd]
};

// Gradients of one GRU step; each may be nullptr (not wanted).
struct GruCellGrads {
  Tensor* x = nullptr;
  Tensor* gates_x = nullptr;
  Tensor* h = nullptr;
  Tensor* weight_ih = nullptr;
  Tensor* weight_hh = nullptr;
  Tensor* bias_ih = nullptr;
  Tensor* bias_hh = nullptr;
};

// With a = x·W_ih + b_ih (or gates_x + b_ih) and b = h·W_hh + b_hh, blocks r, z, n:
// r = sigmoid(a_r + b_r), z = sigmoid(a_z + b_z), n = tanh(a_n + r * b_n),
// h_out = (1 - z) * n + z * h. `gates` (may be nullptr) receives [B, 4Hd]: r, z, n, b_n.
void gru_cell(const GruCellInputs& in, Tensor* h_out, Tensor* gates);

// Gradients of gru_cell from h_out_grad; `gates` is the forward's (nullptr: recomputed).
void gru_cell_grad(const GruCellInputs& in, const Tensor* gates, const Tensor& h_out_grad,
                   const GruCellGrads& grads);

}  // namespace skiff::kernels
