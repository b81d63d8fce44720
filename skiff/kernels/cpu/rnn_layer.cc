#include "skiff/kernels/cpu/rnn_layer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "skiff/kernels/cpu/gemm.h"
#include "skiff/kernels/cpu/rnn_cell.h"

namespace skiff::kernels {

namespace {

struct LayerDims {
  int64_t steps = 0, batch = 0, hidden = 0;
};

LayerDims check_layer(const char* op, int gates, const Tensor& gates_x, const Tensor& h0,
                      const Tensor& weight_hh, const Tensor* lengths) {
  const Shape& gx = gates_x.shape();
  SKIFF_CHECK(gx.rank() == 3, op, ": Gates_x must be [T, B, ", gates, " * Hd], got ",
              gates_x.type_str());
  LayerDims d{gx[0], gx[1], h0.rank() == 2 ? h0.dim(1) : -1};
  SKIFF_CHECK(h0.shape() == Shape({d.batch, d.hidden}) && h0.dtype() == gates_x.dtype(), op,
              ": H0 must be a ", dtype_name(gates_x.dtype()), " [", d.batch,
              ", hidden] matrix for Gates_x ", gates_x.type_str(), ", got ", h0.type_str());
  SKIFF_CHECK(gx[2] == gates * d.hidden, op, ": Gates_x ", gates_x.type_str(), " must have ", gates,
              " * ", d.hidden, " columns for H0 ", h0.type_str());
  SKIFF_CHECK(weight_hh.shape() == Shape({d.hidden, gates * d.hidden}) &&
                  weight_hh.dtype() == gates_x.dtype(),
              op, ": Weight_hh must be [", d.hidden, ", ", gates * d.hidden, "], got ",
              weight_hh.type_str());
  if (lengths)
    SKIFF_CHECK(lengths->shape() == Shape({d.batch}) &&
                    (lengths->dtype() == DType::kI32 || lengths->dtype() == DType::kI64),
                op, ": Sequence_length must be an int32 or int64 [", d.batch, "] vector, got ",
                lengths->type_str());
  return d;
}

// Each sequence's number of steps (all of them without lengths).
std::vector<int64_t> sequence_lengths(const Tensor* lengths, const LayerDims& d) {
  std::vector<int64_t> out(d.batch, d.steps);
  if (!lengths) return out;
  for (int64_t b = 0; b < d.batch; ++b)
    out[b] =
        lengths->dtype() == DType::kI32 ? lengths->data<int32_t>()[b] : lengths->data<int64_t>()[b];
  return out;
}

// Step t of a [T, B, W] tensor as a [B, W] tensor over the same memory (read only).
Tensor step_of(const Tensor& seq, int64_t t) {
  const int64_t rows = seq.dim(1), width = seq.dim(2);
  const size_t offset = static_cast<const char*>(seq.raw_data()) -
                        static_cast<const char*>(seq.storage()->data()) +
                        static_cast<size_t>(t * rows * width) * dtype_size(seq.dtype());
  return Tensor::from_storage(seq.storage(), {rows, width}, seq.dtype(), offset);
}

template <typename T>
T* row(Tensor& seq, int64_t t, int64_t b) {
  return seq.data<T>() + (t * seq.dim(1) + b) * seq.dim(2);
}

template <typename T>
const T* row_of(const Tensor& m, int64_t b) {
  return m.data<T>() + b * m.dim(1);
}

template <typename T>
void copy_rows(const T* from, T* to, int64_t n) {
  std::memcpy(to, from, static_cast<size_t>(n) * sizeof(T));
}

// `t` unless it is nullptr, else `local` (an output nobody asked for still gets computed).
Tensor* or_local(Tensor* t, Tensor* local) { return t ? t : local; }

// A [rows, cols] gradient, or zeros when none was sent.
Tensor grad_or_zeros(const Tensor* g, const Shape& shape, DType dtype) {
  if (g && g->initialized()) return g->clone();
  return Tensor::zeros(shape, dtype);
}

template <typename T>
void product(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k, bool trans_a) {
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.trans_a = trans_a;
  gemm(p, a, b, c);
}

template <typename T>
void column_sums(const Tensor& a, const Shape& shape, Tensor* out) {
  const int64_t cols = a.dim(a.rank() - 1), rows = a.numel() / cols;
  out->resize(shape, dtype_of<T>);
  T* o = out->data<T>();
  std::fill(o, o + cols, T(0));
  const T* p = a.data<T>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) o[j] += p[r * cols + j];
}

template <typename T>
void add_into(const Tensor& from, Tensor* into) {
  T* o = into->data<T>();
  const T* p = from.data<T>();
  for (int64_t i = 0; i < into->numel(); ++i) o[i] += p[i];
}

// ---------------------------------------------------------------- LSTM

template <typename T>
void lstm_forward(const LstmLayerInputs& in, const LayerDims& d, Tensor* out, Tensor* h_last,
                  Tensor* c_last, const LstmLayerSaved& saved) {
  const int64_t hd = d.hidden, width = 4 * hd;
  const std::vector<int64_t> len = sequence_lengths(in.lengths, d);
  Tensor local_gates, local_h_prev, local_c_prev, local_c_step;
  Tensor* gates = or_local(saved.gates, &local_gates);
  Tensor* h_prev = or_local(saved.h_prev, &local_h_prev);
  Tensor* c_prev = or_local(saved.c_prev, &local_c_prev);
  Tensor* c_step = or_local(saved.c_step, &local_c_step);
  const Shape states{d.steps, d.batch, hd};
  out->resize(states, dtype_of<T>);
  gates->resize({d.steps, d.batch, width}, dtype_of<T>);
  for (Tensor* t : {h_prev, c_prev, c_step}) t->resize(states, dtype_of<T>);
  Tensor h = in.h0->clone(), c = in.c0->clone(), h_new, c_new, step_gates;
  for (int64_t s = 0; s < d.steps; ++s) {
    const int64_t t = in.reverse ? d.steps - 1 - s : s;
    copy_rows(h.data<T>(), row<T>(*h_prev, t, 0), d.batch * hd);
    copy_rows(c.data<T>(), row<T>(*c_prev, t, 0), d.batch * hd);
    const Tensor gx = step_of(*in.gates_x, t);
    LstmCellInputs cell;
    cell.gates_x = &gx;
    cell.h = &h;
    cell.c = &c;
    cell.weight_hh = in.weight_hh;
    cell.bias = in.bias;
    lstm_cell(cell, &h_new, &c_new, &step_gates);
    copy_rows(step_gates.data<T>(), row<T>(*gates, t, 0), d.batch * width);
    copy_rows(c_new.data<T>(), row<T>(*c_step, t, 0), d.batch * hd);
    for (int64_t b = 0; b < d.batch; ++b) {
      T* o = row<T>(*out, t, b);
      if (t < len[b]) {
        copy_rows(row_of<T>(h_new, b), o, hd);
        copy_rows(row_of<T>(h_new, b), h.data<T>() + b * hd, hd);
        copy_rows(row_of<T>(c_new, b), c.data<T>() + b * hd, hd);
      } else {
        std::fill(o, o + hd, T(0));
      }
    }
  }
  *h_last = std::move(h);
  *c_last = std::move(c);
}

template <typename T>
void lstm_backward(const LstmLayerInputs& in, const LayerDims& d, const LstmLayerKept& saved,
                   const Tensor* out_grad, const Tensor* h_last_grad, const Tensor* c_last_grad,
                   const LstmLayerGrads& grads) {
  const int64_t hd = d.hidden, width = 4 * hd;
  const std::vector<int64_t> len = sequence_lengths(in.lengths, d);
  const Shape state{d.batch, hd};
  Tensor dh = grad_or_zeros(h_last_grad, state, dtype_of<T>);
  Tensor dc = grad_or_zeros(c_last_grad, state, dtype_of<T>);
  const bool has_out_grad = out_grad && out_grad->initialized();
  Tensor local_dgx;
  Tensor* dgx = or_local(grads.gates_x, &local_dgx);
  dgx->resize({d.steps, d.batch, width}, dtype_of<T>);
  Tensor dh_step = Tensor::empty(state, dtype_of<T>), dc_step = Tensor::empty(state, dtype_of<T>);
  Tensor dh_prev, dc_prev, dpre;
  for (int64_t s = d.steps - 1; s >= 0; --s) {
    const int64_t t = in.reverse ? d.steps - 1 - s : s;
    // Rows past their sequence's length skip the cell: their state gradient passes
    // straight to the step before, and the cell gets zeros.
    for (int64_t b = 0; b < d.batch; ++b) {
      T* gh = dh_step.data<T>() + b * hd;
      T* gc = dc_step.data<T>() + b * hd;
      if (t < len[b]) {
        const T* carried = row_of<T>(dh, b);
        const T* from_out = has_out_grad ? out_grad->data<T>() + (t * d.batch + b) * hd : nullptr;
        for (int64_t j = 0; j < hd; ++j) gh[j] = carried[j] + (from_out ? from_out[j] : T(0));
        copy_rows(row_of<T>(dc, b), gc, hd);
      } else {
        std::fill(gh, gh + hd, T(0));
        std::fill(gc, gc + hd, T(0));
      }
    }
    const Tensor gx = step_of(*in.gates_x, t), h = step_of(*saved.h_prev, t),
                 c = step_of(*saved.c_prev, t), g = step_of(*saved.gates, t),
                 c_out = step_of(*saved.c_step, t);
    LstmCellInputs cell;
    cell.gates_x = &gx;
    cell.h = &h;
    cell.c = &c;
    cell.weight_hh = in.weight_hh;
    cell.bias = in.bias;
    LstmCellGrads cg;
    cg.gates_x = &dpre;
    cg.h = &dh_prev;
    cg.c = &dc_prev;
    lstm_cell_grad(cell, &g, &c_out, &dh_step, &dc_step, cg);
    copy_rows(dpre.data<T>(), row<T>(*dgx, t, 0), d.batch * width);
    for (int64_t b = 0; b < d.batch; ++b) {
      if (t >= len[b]) continue;  // the carried gradient stays as it is
      copy_rows(row_of<T>(dh_prev, b), dh.data<T>() + b * hd, hd);
      copy_rows(row_of<T>(dc_prev, b), dc.data<T>() + b * hd, hd);
    }
  }
  if (grads.h0) *grads.h0 = std::move(dh);
  if (grads.c0) *grads.c0 = std::move(dc);
  // The hidden side's pre-activation gradient is the input side's: one product over all
  // steps, h_prev [T * B, Hd]^T · dpre [T * B, 4Hd].
  if (grads.weight_hh && d.steps * d.batch == 0) {
    *grads.weight_hh = Tensor::zeros(in.weight_hh->shape(), dtype_of<T>);
  } else if (grads.weight_hh) {
    grads.weight_hh->resize(in.weight_hh->shape(), dtype_of<T>);
    product(saved.h_prev->data<T>(), dgx->data<T>(), grads.weight_hh->data<T>(), hd, width,
            d.steps * d.batch, true);
  }
  if (grads.bias && in.bias) column_sums<T>(*dgx, in.bias->shape(), grads.bias);
}

// ---------------------------------------------------------------- GRU

template <typename T>
void gru_forward(const GruLayerInputs& in, const LayerDims& d, Tensor* out, Tensor* h_last,
                 const GruLayerSaved& saved) {
  const int64_t hd = d.hidden, saved_width = 4 * hd;
  const std::vector<int64_t> len = sequence_lengths(in.lengths, d);
  Tensor local_gates, local_h_prev;
  Tensor* gates = or_local(saved.gates, &local_gates);
  Tensor* h_prev = or_local(saved.h_prev, &local_h_prev);
  const Shape states{d.steps, d.batch, hd};
  out->resize(states, dtype_of<T>);
  h_prev->resize(states, dtype_of<T>);
  gates->resize({d.steps, d.batch, saved_width}, dtype_of<T>);
  Tensor h = in.h0->clone(), h_new, step_gates;
  for (int64_t s = 0; s < d.steps; ++s) {
    const int64_t t = in.reverse ? d.steps - 1 - s : s;
    copy_rows(h.data<T>(), row<T>(*h_prev, t, 0), d.batch * hd);
    const Tensor gx = step_of(*in.gates_x, t);
    GruCellInputs cell;
    cell.gates_x = &gx;
    cell.h = &h;
    cell.weight_hh = in.weight_hh;
    cell.bias_ih = in.bias_ih;
    cell.bias_hh = in.bias_hh;
    gru_cell(cell, &h_new, &step_gates);
    copy_rows(step_gates.data<T>(), row<T>(*gates, t, 0), d.batch * saved_width);
    for (int64_t b = 0; b < d.batch; ++b) {
      T* o = row<T>(*out, t, b);
      if (t < len[b]) {
        copy_rows(row_of<T>(h_new, b), o, hd);
        copy_rows(row_of<T>(h_new, b), h.data<T>() + b * hd, hd);
      } else {
        std::fill(o, o + hd, T(0));
      }
    }
  }
  *h_last = std::move(h);
}

template <typename T>
void gru_backward(const GruLayerInputs& in, const LayerDims& d, const GruLayerKept& saved,
                  const Tensor* out_grad, const Tensor* h_last_grad, const GruLayerGrads& grads) {
  const int64_t hd = d.hidden, width = 3 * hd;
  const std::vector<int64_t> len = sequence_lengths(in.lengths, d);
  const Shape state{d.batch, hd};
  Tensor dh = grad_or_zeros(h_last_grad, state, dtype_of<T>);
  const bool has_out_grad = out_grad && out_grad->initialized();
  Tensor local_dgx;
  Tensor* dgx = or_local(grads.gates_x, &local_dgx);
  dgx->resize({d.steps, d.batch, width}, dtype_of<T>);
  if (grads.weight_hh) *grads.weight_hh = Tensor::zeros(in.weight_hh->shape(), dtype_of<T>);
  if (grads.bias_hh && in.bias_hh) *grads.bias_hh = Tensor::zeros(in.bias_hh->shape(), dtype_of<T>);
  Tensor dh_step = Tensor::empty(state, dtype_of<T>);
  Tensor dh_prev, dpre, dw_step, dbias_step;
  for (int64_t s = d.steps - 1; s >= 0; --s) {
    const int64_t t = in.reverse ? d.steps - 1 - s : s;
    for (int64_t b = 0; b < d.batch; ++b) {
      T* gh = dh_step.data<T>() + b * hd;
      if (t < len[b]) {
        const T* carried = row_of<T>(dh, b);
        const T* from_out = has_out_grad ? out_grad->data<T>() + (t * d.batch + b) * hd : nullptr;
        for (int64_t j = 0; j < hd; ++j) gh[j] = carried[j] + (from_out ? from_out[j] : T(0));
      } else {
        std::fill(gh, gh + hd, T(0));
      }
    }
    const Tensor gx = step_of(*in.gates_x, t), h = step_of(*saved.h_prev, t),
                 g = step_of(*saved.gates, t);
    GruCellInputs cell;
    cell.gates_x = &gx;
    cell.h = &h;
    cell.weight_hh = in.weight_hh;
    cell.bias_ih = in.bias_ih;
    cell.bias_hh = in.bias_hh;
    // The hidden side's pre-activation gradient differs from the input side's (r scales
    // the n block), so its weight gradient is summed step by step.
    GruCellGrads cg;
    cg.gates_x = &dpre;
    cg.h = &dh_prev;
    cg.weight_hh = grads.weight_hh ? &dw_step : nullptr;
    cg.bias_hh = grads.bias_hh && in.bias_hh ? &dbias_step : nullptr;
    gru_cell_grad(cell, &g, dh_step, cg);
    copy_rows(dpre.data<T>(), row<T>(*dgx, t, 0), d.batch * width);
    if (cg.weight_hh) add_into<T>(dw_step, grads.weight_hh);
    if (cg.bias_hh) add_into<T>(dbias_step, grads.bias_hh);
    for (int64_t b = 0; b < d.batch; ++b)
      if (t < len[b]) copy_rows(row_of<T>(dh_prev, b), dh.data<T>() + b * hd, hd);
  }
  if (grads.h0) *grads.h0 = std::move(dh);
  if (grads.bias_ih && in.bias_ih) column_sums<T>(*dgx, in.bias_ih->shape(), grads.bias_ih);
}

// ---------------------------------------------------------------- simple RNN

template <typename T>
void simple_forward(const SimpleRnnLayerInputs& in, const LayerDims& d, Tensor* out, Tensor* h_last,
                    Tensor* h_prev_out) {
  const int64_t hd = d.hidden;
  const std::vector<int64_t> len = sequence_lengths(in.lengths, d);
  Tensor local_h_prev;
  Tensor* h_prev = or_local(h_prev_out, &local_h_prev);
  const Shape states{d.steps, d.batch, hd};
  out->resize(states, dtype_of<T>);
  h_prev->resize(states, dtype_of<T>);
  Tensor h = in.h0->clone();
  const bool relu = in.activation == "relu";
  std::vector<T> pre(static_cast<size_t>(d.batch * hd));
  for (int64_t s = 0; s < d.steps; ++s) {
    const int64_t t = in.reverse ? d.steps - 1 - s : s;
    copy_rows(h.data<T>(), row<T>(*h_prev, t, 0), d.batch * hd);
    product(h.data<T>(), in.weight_hh->data<T>(), pre.data(), d.batch, hd, hd, false);
    const T* gx = in.gates_x->data<T>() + t * d.batch * hd;
    for (int64_t b = 0; b < d.batch; ++b) {
      T* o = row<T>(*out, t, b);
      if (t >= len[b]) {
        std::fill(o, o + hd, T(0));
        continue;
      }
      T* hb = h.data<T>() + b * hd;
      for (int64_t j = 0; j < hd; ++j) {
        const T v = pre[b * hd + j] + gx[b * hd + j];
        o[j] = hb[j] = relu ? std::max(v, T(0)) : std::tanh(v);
      }
    }
  }
  *h_last = std::move(h);
}

template <typename T>
void simple_backward(const SimpleRnnLayerInputs& in, const LayerDims& d, const Tensor& out,
                     const Tensor& h_prev, const Tensor* out_grad, const Tensor* h_last_grad,
                     Tensor* gates_x_grad, Tensor* h0_grad, Tensor* weight_hh_grad) {
  const int64_t hd = d.hidden;
  const std::vector<int64_t> len = sequence_lengths(in.lengths, d);
  Tensor dh = grad_or_zeros(h_last_grad, {d.batch, hd}, dtype_of<T>);
  const bool has_out_grad = out_grad && out_grad->initialized();
  Tensor local_dgx;
  Tensor* dgx = or_local(gates_x_grad, &local_dgx);
  dgx->resize({d.steps, d.batch, hd}, dtype_of<T>);
  const bool relu = in.activation == "relu";
  std::vector<T> dh_prev(static_cast<size_t>(d.batch * hd));
  for (int64_t s = d.steps - 1; s >= 0; --s) {
    const int64_t t = in.reverse ? d.steps - 1 - s : s;
    T* dpre = dgx->data<T>() + t * d.batch * hd;
    const T* h_new = out.data<T>() + t * d.batch * hd;
    for (int64_t b = 0; b < d.batch; ++b)
      for (int64_t j = 0; j < hd; ++j) {
        const int64_t at = b * hd + j;
        if (t >= len[b]) {
          dpre[at] = T(0);
          continue;
        }
        const T g =
            dh.data<T>()[at] + (has_out_grad ? out_grad->data<T>()[t * d.batch * hd + at] : T(0));
        dpre[at] = relu ? (h_new[at] > T(0) ? g : T(0)) : g * (T(1) - h_new[at] * h_new[at]);
      }
    GemmProblem p;  // dh_prev = dpre · W_hh^T
    p.m = d.batch;
    p.n = hd;
    p.k = hd;
    p.trans_b = true;
    gemm(p, dpre, in.weight_hh->data<T>(), dh_prev.data());
    for (int64_t b = 0; b < d.batch; ++b)
      if (t < len[b]) copy_rows(dh_prev.data() + b * hd, dh.data<T>() + b * hd, hd);
  }
  if (h0_grad) *h0_grad = std::move(dh);
  if (weight_hh_grad && d.steps * d.batch == 0) {
    *weight_hh_grad = Tensor::zeros(in.weight_hh->shape(), dtype_of<T>);
  } else if (weight_hh_grad) {
    weight_hh_grad->resize(in.weight_hh->shape(), dtype_of<T>);
    product(h_prev.data<T>(), dgx->data<T>(), weight_hh_grad->data<T>(), hd, hd, d.steps * d.batch,
            true);
  }
}

}  // namespace

void simple_rnn_layer(const SimpleRnnLayerInputs& in, Tensor* out, Tensor* h_last, Tensor* h_prev) {
  SKIFF_CHECK(in.activation == "tanh" || in.activation == "relu",
              "simple_rnn: activation must be 'tanh' or 'relu', got '", in.activation, "'");
  const LayerDims d = check_layer("simple_rnn", 1, *in.gates_x, *in.h0, *in.weight_hh, in.lengths);
  SKIFF_DISPATCH_FLOATING(in.h0->dtype(), T, simple_forward<T>(in, d, out, h_last, h_prev));
}

void simple_rnn_layer_grad(const SimpleRnnLayerInputs& in, const Tensor& out, const Tensor& h_prev,
                           const Tensor* out_grad, const Tensor* h_last_grad, Tensor* gates_x_grad,
                           Tensor* h0_grad, Tensor* weight_hh_grad) {
  const LayerDims d =
      check_layer("simple_rnn_grad", 1, *in.gates_x, *in.h0, *in.weight_hh, in.lengths);
  SKIFF_DISPATCH_FLOATING(in.h0->dtype(), T,
                          simple_backward<T>(in, d, out, h_prev, out_grad, h_last_grad,
                                             gates_x_grad, h0_grad, weight_hh_grad));
}

void lstm_layer(const LstmLayerInputs& in, Tensor* out, Tensor* h_last, Tensor* c_last,
                const LstmLayerSaved& saved) {
  const LayerDims d = check_layer("lstm", 4, *in.gates_x, *in.h0, *in.weight_hh, in.lengths);
  SKIFF_CHECK(in.c0->shape() == in.h0->shape() && in.c0->dtype() == in.h0->dtype(),
              "lstm: C0 must match H0 ", in.h0->type_str(), ", got ", in.c0->type_str());
  SKIFF_DISPATCH_FLOATING(in.h0->dtype(), T, lstm_forward<T>(in, d, out, h_last, c_last, saved));
}

void lstm_layer_grad(const LstmLayerInputs& in, const LstmLayerKept& saved, const Tensor* out_grad,
                     const Tensor* h_last_grad, const Tensor* c_last_grad,
                     const LstmLayerGrads& grads) {
  const LayerDims d = check_layer("lstm_grad", 4, *in.gates_x, *in.h0, *in.weight_hh, in.lengths);
  SKIFF_DISPATCH_FLOATING(
      in.h0->dtype(), T, lstm_backward<T>(in, d, saved, out_grad, h_last_grad, c_last_grad, grads));
}

void gru_layer(const GruLayerInputs& in, Tensor* out, Tensor* h_last, const GruLayerSaved& saved) {
  const LayerDims d = check_layer("gru", 3, *in.gates_x, *in.h0, *in.weight_hh, in.lengths);
  SKIFF_DISPATCH_FLOATING(in.h0->dtype(), T, gru_forward<T>(in, d, out, h_last, saved));
}

void gru_layer_grad(const GruLayerInputs& in, const GruLayerKept& saved, const Tensor* out_grad,
                    const Tensor* h_last_grad, const GruLayerGrads& grads) {
  const LayerDims d = check_layer("gru_grad", 3, *in.gates_x, *in.h0, *in.weight_hh, in.lengths);
  SKIFF_DISPATCH_FLOATING(in.h0->dtype(), T,
                          gru_backward<T>(in, d, saved, out_grad, h_last_grad, grads));
}

}  // namespace skiff::kernels
