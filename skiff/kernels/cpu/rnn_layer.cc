#include "skiff/kernels/cpu/rnn_layer.h"

#include <algorithm>
#include <vector>

#include "skiff/kernels/cpu/rnn_cell.h"
#include "skiff/kernels/cpu/rnn_steps.h"

namespace skiff::kernels {

namespace {

using namespace rnn_steps;  // the helpers the layers share

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
  if (grads.bias && in.bias)
    column_sums(dgx->data<T>(), d.steps * d.batch, width, in.bias->shape(), grads.bias);
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
  if (grads.bias_ih && in.bias_ih)
    column_sums(dgx->data<T>(), d.steps * d.batch, width, in.bias_ih->shape(), grads.bias_ih);
}

}  // namespace

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
