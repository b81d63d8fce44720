#include "skiff/kernels/cpu/simple_rnn_layer.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "skiff/kernels/cpu/rnn_steps.h"

namespace skiff::kernels {

namespace {

using namespace rnn_steps;  // the helpers the layers share

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
    // dh_prev = dpre · W_hh^T
    product(dpre, in.weight_hh->data<T>(), dh_prev.data(), d.batch, hd, hd, false, true);
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

}  // namespace skiff::kernels
