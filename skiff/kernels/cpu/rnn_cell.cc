#include "skiff/kernels/cpu/rnn_cell.h"

#include <algorithm>
#include <vector>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/eigen.h"
#include "skiff/kernels/cpu/gemm.h"
#include "skiff/kernels/cpu/rnn_steps.h"

namespace skiff::kernels {

namespace {

// Per-thread buffers kept across calls, so that a step allocates nothing once warm.
enum Buffer {
  kInputProduct,
  kHiddenProduct,
  kGatesScratch,
  kPreGrad,
  kHiddenPreGrad,
  kStateGrad,
  kZeros,
  kBufferCount
};

template <typename T>
T* buffer(Buffer which, int64_t n) {
  thread_local std::vector<T> buffers[kBufferCount];
  std::vector<T>& b = buffers[which];
  if (static_cast<int64_t>(b.size()) < n) b.resize(n);
  return b.data();
}

// n zeros (for a gradient nobody sent).
template <typename T>
const T* zeros(int64_t n) {
  T* z = buffer<T>(kZeros, n);
  std::fill(z, z + n, T(0));
  return z;
}

using rnn_steps::column_sums;
using rnn_steps::product;

// Runs fn(begin, end) over the rows [0, rows); threads only past kParallelGrain
// elements per thread. A step of a small batch (20 x 800 gate values) is a few µs of
// work, called once per step of a loop: waking a second thread saves less than that,
// and on a loaded machine each parallel region waits for a time slice (≈3 ms measured
// with 2 threads at load 9 on 2 cores), so cells stay on one thread.
template <typename Fn>
void for_rows(int64_t rows, int64_t row_elems, Fn&& fn) {
  parallel_for(rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, row_elems)), fn);
}

struct CellDims {
  int64_t batch = 0, input = 0, hidden = 0;
};

// Checks the operands of a cell with `gates` gate blocks; returns its sizes.
CellDims check_cell(const char* op, int gates, const Tensor* x, const Tensor* gates_x,
                    const Tensor& h, const Tensor* weight_ih, const Tensor& weight_hh) {
  SKIFF_CHECK(h.rank() == 2 && is_floating(h.dtype()), op,
              ": H must be a float32 or float64 [batch, hidden] matrix, got ", h.type_str());
  CellDims d;
  d.batch = h.dim(0);
  d.hidden = h.dim(1);
  const int64_t width = gates * d.hidden;
  const DType t = h.dtype();
  SKIFF_CHECK(weight_hh.dtype() == t && weight_hh.shape() == Shape({d.hidden, width}), op,
              ": Weight_hh must be ", dtype_name(t), "[", d.hidden, ", ", width, "] for H ",
              h.type_str(), ", got ", weight_hh.type_str());
  SKIFF_CHECK((x != nullptr) != (gates_x != nullptr), op,
              ": give exactly one of X (with Weight_ih) and Gates_x");
  if (x) {
    SKIFF_CHECK(x->rank() == 2 && x->dim(0) == d.batch && x->dtype() == t, op, ": X must be ",
                dtype_name(t), "[", d.batch, ", input] for H ", h.type_str(), ", got ",
                x->type_str());
    d.input = x->dim(1);
    SKIFF_CHECK(weight_ih != nullptr, op, ": X needs Weight_ih");
    SKIFF_CHECK(weight_ih->dtype() == t && weight_ih->shape() == Shape({d.input, width}), op,
                ": Weight_ih must be ", dtype_name(t), "[", d.input, ", ", width, "] for X ",
                x->type_str(), " and H ", h.type_str(), ", got ", weight_ih->type_str());
  } else {
    SKIFF_CHECK(gates_x->dtype() == t && gates_x->shape() == Shape({d.batch, width}), op,
                ": Gates_x must be ", dtype_name(t), "[", d.batch, ", ", width, "] for H ",
                h.type_str(), ", got ", gates_x->type_str());
  }
  return d;
}

void check_bias(const char* op, const char* slot, const Tensor* bias, int64_t width, DType t) {
  if (!bias) return;
  SKIFF_CHECK(bias->dtype() == t && bias->rank() == 1 && bias->dim(0) == width, op, ": ", slot,
              " must be ", dtype_name(t), "[", width, "], got ", bias->type_str());
}

CellDims check_lstm(const LstmCellInputs& in) {
  SKIFF_CHECK(in.h && in.c && in.weight_hh, "lstm_cell: H, C and Weight_hh are required");
  CellDims d = check_cell("lstm_cell", 4, in.x, in.gates_x, *in.h, in.weight_ih, *in.weight_hh);
  SKIFF_CHECK(in.c->shape() == in.h->shape() && in.c->dtype() == in.h->dtype(),
              "lstm_cell: C must match H ", in.h->type_str(), ", got ", in.c->type_str());
  check_bias("lstm_cell", "Bias", in.bias, 4 * d.hidden, in.h->dtype());
  return d;
}

CellDims check_gru(const GruCellInputs& in) {
  SKIFF_CHECK(in.h && in.weight_hh, "gru_cell: H and Weight_hh are required");
  CellDims d = check_cell("gru_cell", 3, in.x, in.gates_x, *in.h, in.weight_ih, *in.weight_hh);
  check_bias("gru_cell", "Bias_ih", in.bias_ih, 3 * d.hidden, in.h->dtype());
  check_bias("gru_cell", "Bias_hh", in.bias_hh, 3 * d.hidden, in.h->dtype());
  return d;
}

template <typename T>
const T* data_or_null(const Tensor* t) {
  return t ? t->data<T>() : nullptr;
}

// ---------------------------------------------------------------- LSTM

template <typename T>
void lstm_forward(const LstmCellInputs& in, const CellDims& d, Tensor* h_out, Tensor* c_out,
                  Tensor* gates_out) {
  const int64_t rows = d.batch, hd = d.hidden, width = 4 * hd;
  const T* c = in.c->data<T>();
  const T* bias = data_or_null<T>(in.bias);
  // The products go straight into the saved gates (or a scratch buffer); h and c are
  // read before h_out and c_out are resized, so an output may be its own input.
  T* gates = buffer<T>(kGatesScratch, rows * width);
  if (gates_out) {
    gates_out->resize({rows, width}, dtype_of<T>);
    gates = gates_out->data<T>();
  }
  const T* other = nullptr;
  if (in.x) {
    product(in.x->data<T>(), in.weight_ih->data<T>(), gates, rows, width, d.input, false, false);
    T* hp = buffer<T>(kHiddenProduct, rows * width);
    product(in.h->data<T>(), in.weight_hh->data<T>(), hp, rows, width, hd, false, false);
    other = hp;
  } else {
    product(in.h->data<T>(), in.weight_hh->data<T>(), gates, rows, width, hd, false, false);
    other = in.gates_x->data<T>();
  }
  const Shape state{rows, hd};
  h_out->resize(state, dtype_of<T>);
  c_out->resize(state, dtype_of<T>);
  T* hn = h_out->data<T>();
  T* cn = c_out->data<T>();
  for_rows(rows, width, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      T* g = gates + r * width;
      ArrayOut<T> pre(g, width);
      pre += ArrayIn<T>(other + r * width, width);
      if (bias) pre += ArrayIn<T>(bias, width);
      ArrayOut<T> i_f(g, 2 * hd), gg(g + 2 * hd, hd), go(g + 3 * hd, hd);
      i_f = i_f.logistic();
      gg = gg.tanh();
      go = go.logistic();
      ArrayIn<T> gi(g, hd), gf(g + hd, hd);
      ArrayOut<T> c_row(cn + r * hd, hd);
      c_row = gf * ArrayIn<T>(c + r * hd, hd) + gi * gg;
      ArrayOut<T>(hn + r * hd, hd) = go * c_row.tanh();
    }
  });
}

template <typename T>
void lstm_backward(const LstmCellInputs& in, const CellDims& d, const Tensor& gates_t,
                   const Tensor& c_out_t, const Tensor* h_out_grad, const Tensor* c_out_grad,
                   const LstmCellGrads& grads) {
  const int64_t rows = d.batch, hd = d.hidden, width = 4 * hd;
  SKIFF_CHECK(gates_t.shape() == Shape({rows, width}) && c_out_t.shape() == Shape({rows, hd}),
              "lstm_cell_grad: Gates ", gates_t.type_str(), " and C_out ", c_out_t.type_str(),
              " do not match H ", in.h->type_str());
  auto grad_of = [&](const Tensor* g, const char* slot) -> const T* {
    if (!g || !g->initialized()) return zeros<T>(rows * hd);
    SKIFF_CHECK(g->shape() == Shape({rows, hd}), "lstm_cell_grad: ", slot, " must be [", rows, ", ",
                hd, "], got ", g->type_str());
    return g->data<T>();
  };
  const T* dh_out = grad_of(h_out_grad, "H_out@GRAD");
  const T* dc_out = grad_of(c_out_grad, "C_out@GRAD");
  const T* gates = gates_t.data<T>();
  const T* cn = c_out_t.data<T>();
  const T* c = in.c->data<T>();
  // dPre: the gradient of the gates before their activations.
  T* dpre = buffer<T>(kPreGrad, rows * width);
  T* dc_total = buffer<T>(kStateGrad, rows * hd);
  for_rows(rows, width, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* g = gates + r * width;
      ArrayIn<T> gi(g, hd), gf(g + hd, hd), gg(g + 2 * hd, hd), go(g + 3 * hd, hd);
      ArrayIn<T> dh(dh_out + r * hd, hd);
      T* dp = dpre + r * width;
      ArrayOut<T> dpi(dp, hd), dpf(dp + hd, hd), dpg(dp + 2 * hd, hd), dpo(dp + 3 * hd, hd);
      ArrayOut<T> dct(dc_total + r * hd, hd);
      dpo = ArrayIn<T>(cn + r * hd, hd).tanh();  // tanh(c_out), kept here for a moment
      dct = ArrayIn<T>(dc_out + r * hd, hd) + dh * go * (T(1) - dpo.square());
      dpo = dh * dpo * go * (T(1) - go);
      dpi = dct * gg * gi * (T(1) - gi);
      dpf = dct * ArrayIn<T>(c + r * hd, hd) * gf * (T(1) - gf);
      dpg = dct * gi * (T(1) - gg.square());
    }
  });
  if (grads.c) {
    grads.c->resize({rows, hd}, dtype_of<T>);
    T* dc = grads.c->data<T>();
    for (int64_t r = 0; r < rows; ++r)
      ArrayOut<T>(dc + r * hd, hd) =
          ArrayIn<T>(dc_total + r * hd, hd) * ArrayIn<T>(gates + r * width + hd, hd);
  }
  if (grads.gates_x) {
    grads.gates_x->resize({rows, width}, dtype_of<T>);
    std::copy(dpre, dpre + rows * width, grads.gates_x->data<T>());
  }
  if (grads.x && in.x) {
    grads.x->resize(in.x->shape(), dtype_of<T>);
    product(dpre, in.weight_ih->data<T>(), grads.x->data<T>(), rows, d.input, width, false, true);
  }
  if (grads.weight_ih && in.x) {
    grads.weight_ih->resize(in.weight_ih->shape(), dtype_of<T>);
    product(in.x->data<T>(), dpre, grads.weight_ih->data<T>(), d.input, width, rows, true, false);
  }
  if (grads.h) {
    grads.h->resize({rows, hd}, dtype_of<T>);
    product(dpre, in.weight_hh->data<T>(), grads.h->data<T>(), rows, hd, width, false, true);
  }
  if (grads.weight_hh) {
    grads.weight_hh->resize(in.weight_hh->shape(), dtype_of<T>);
    product(in.h->data<T>(), dpre, grads.weight_hh->data<T>(), hd, width, rows, true, false);
  }
  if (grads.bias && in.bias) column_sums(dpre, rows, width, in.bias->shape(), grads.bias);
}

// ---------------------------------------------------------------- GRU

template <typename T>
void gru_forward(const GruCellInputs& in, const CellDims& d, Tensor* h_out, Tensor* gates_out) {
  const int64_t rows = d.batch, hd = d.hidden, width = 3 * hd, saved_width = 4 * hd;
  const T* h = in.h->data<T>();
  const T* b_ih = data_or_null<T>(in.bias_ih);
  const T* b_hh = data_or_null<T>(in.bias_hh);
  const T* a = nullptr;  // the input side [rows, 3Hd]
  if (in.x) {
    T* ap = buffer<T>(kInputProduct, rows * width);
    product(in.x->data<T>(), in.weight_ih->data<T>(), ap, rows, width, d.input, false, false);
    a = ap;
  } else {
    a = in.gates_x->data<T>();
  }
  T* bh = buffer<T>(kHiddenProduct, rows * width);  // the hidden side
  product(h, in.weight_hh->data<T>(), bh, rows, width, hd, false, false);
  T* saved = buffer<T>(kGatesScratch, rows * saved_width);
  if (gates_out) {
    gates_out->resize({rows, saved_width}, dtype_of<T>);
    saved = gates_out->data<T>();
  }
  // h is read row by row below while h_out is written: same row, same element first.
  h_out->resize({rows, hd}, dtype_of<T>);
  T* hn = h_out->data<T>();
  for_rows(rows, saved_width, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* ar = a + r * width;
      const T* br = bh + r * width;
      T* g = saved + r * saved_width;
      ArrayOut<T> rz(g, 2 * hd), n(g + 2 * hd, hd), hidden_n(g + 3 * hd, hd);
      rz = ArrayIn<T>(ar, 2 * hd) + ArrayIn<T>(br, 2 * hd);
      if (b_ih) rz += ArrayIn<T>(b_ih, 2 * hd);
      if (b_hh) rz += ArrayIn<T>(b_hh, 2 * hd);
      rz = rz.logistic();
      hidden_n = ArrayIn<T>(br + 2 * hd, hd);
      if (b_hh) hidden_n += ArrayIn<T>(b_hh + 2 * hd, hd);
      n = ArrayIn<T>(ar + 2 * hd, hd) + ArrayIn<T>(g, hd) * hidden_n;
      if (b_ih) n += ArrayIn<T>(b_ih + 2 * hd, hd);
      n = n.tanh();
      ArrayIn<T> z(g + hd, hd);
      ArrayOut<T>(hn + r * hd, hd) = n + z * (ArrayIn<T>(h + r * hd, hd) - n);
    }
  });
}

template <typename T>
void gru_backward(const GruCellInputs& in, const CellDims& d, const Tensor& gates_t,
                  const Tensor& h_out_grad, const GruCellGrads& grads) {
  const int64_t rows = d.batch, hd = d.hidden, width = 3 * hd, saved_width = 4 * hd;
  SKIFF_CHECK(gates_t.shape() == Shape({rows, saved_width}), "gru_cell_grad: Gates ",
              gates_t.type_str(), " does not match H ", in.h->type_str());
  SKIFF_CHECK(h_out_grad.shape() == Shape({rows, hd}) && h_out_grad.dtype() == dtype_of<T>,
              "gru_cell_grad: H_out@GRAD must match H ", in.h->type_str(), ", got ",
              h_out_grad.type_str());
  const T* gates = gates_t.data<T>();
  const T* h = in.h->data<T>();
  const T* dh_out = h_out_grad.data<T>();
  T* dx_side = buffer<T>(kPreGrad, rows * width);        // d(input-side pre-activations)
  T* dh_side = buffer<T>(kHiddenPreGrad, rows * width);  // d(hidden-side products + b_hh)
  T* dh_direct = buffer<T>(kStateGrad, rows * hd);       // dh_out * z
  for_rows(rows, saved_width, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* g = gates + r * saved_width;
      ArrayIn<T> gr(g, hd), gz(g + hd, hd), gn(g + 2 * hd, hd), hidden_n(g + 3 * hd, hd);
      ArrayIn<T> dh(dh_out + r * hd, hd);
      T* dx = dx_side + r * width;
      T* dhs = dh_side + r * width;
      ArrayOut<T> dr(dx, hd), dz(dx + hd, hd), dn(dx + 2 * hd, hd);
      dn = dh * (T(1) - gz) * (T(1) - gn.square());
      dz = dh * (ArrayIn<T>(h + r * hd, hd) - gn) * gz * (T(1) - gz);
      dr = dn * hidden_n * gr * (T(1) - gr);
      ArrayOut<T>(dhs, 2 * hd) = ArrayIn<T>(dx, 2 * hd);
      ArrayOut<T>(dhs + 2 * hd, hd) = dn * gr;
      ArrayOut<T>(dh_direct + r * hd, hd) = dh * gz;
    }
  });
  if (grads.gates_x) {
    grads.gates_x->resize({rows, width}, dtype_of<T>);
    std::copy(dx_side, dx_side + rows * width, grads.gates_x->data<T>());
  }
  if (grads.x && in.x) {
    grads.x->resize(in.x->shape(), dtype_of<T>);
    product(dx_side, in.weight_ih->data<T>(), grads.x->data<T>(), rows, d.input, width, false,
            true);
  }
  if (grads.weight_ih && in.x) {
    grads.weight_ih->resize(in.weight_ih->shape(), dtype_of<T>);
    product(in.x->data<T>(), dx_side, grads.weight_ih->data<T>(), d.input, width, rows, true,
            false);
  }
  if (grads.bias_ih && in.bias_ih)
    column_sums(dx_side, rows, width, in.bias_ih->shape(), grads.bias_ih);
  if (grads.h) {
    grads.h->resize({rows, hd}, dtype_of<T>);
    T* dh = grads.h->data<T>();
    product(dh_side, in.weight_hh->data<T>(), dh, rows, hd, width, false, true);
    ArrayOut<T>(dh, rows * hd) += ArrayIn<T>(dh_direct, rows * hd);
  }
  if (grads.weight_hh) {
    grads.weight_hh->resize(in.weight_hh->shape(), dtype_of<T>);
    product(h, dh_side, grads.weight_hh->data<T>(), hd, width, rows, true, false);
  }
  if (grads.bias_hh && in.bias_hh)
    column_sums(dh_side, rows, width, in.bias_hh->shape(), grads.bias_hh);
}

}  // namespace

void lstm_cell(const LstmCellInputs& in, Tensor* h_out, Tensor* c_out, Tensor* gates) {
  const CellDims d = check_lstm(in);
  SKIFF_DISPATCH_FLOATING(in.h->dtype(), T, lstm_forward<T>(in, d, h_out, c_out, gates));
}

void lstm_cell_grad(const LstmCellInputs& in, const Tensor* gates, const Tensor* c_out,
                    const Tensor* h_out_grad, const Tensor* c_out_grad,
                    const LstmCellGrads& grads) {
  const CellDims d = check_lstm(in);
  Tensor recomputed_gates, recomputed_c, unused_h;
  if (!gates || !c_out) {
    lstm_cell(in, &unused_h, &recomputed_c, &recomputed_gates);
    gates = &recomputed_gates;
    c_out = &recomputed_c;
  }
  SKIFF_DISPATCH_FLOATING(in.h->dtype(), T,
                          lstm_backward<T>(in, d, *gates, *c_out, h_out_grad, c_out_grad, grads));
}

void gru_cell(const GruCellInputs& in, Tensor* h_out, Tensor* gates) {
  const CellDims d = check_gru(in);
  SKIFF_DISPATCH_FLOATING(in.h->dtype(), T, gru_forward<T>(in, d, h_out, gates));
}

void gru_cell_grad(const GruCellInputs& in, const Tensor* gates, const Tensor& h_out_grad,
                   const GruCellGrads& grads) {
  const CellDims d = check_gru(in);
  Tensor recomputed_gates, unused_h;
  if (!gates) {
    gru_cell(in, &unused_h, &recomputed_gates);
    gates = &recomputed_gates;
  }
  SKIFF_DISPATCH_FLOATING(in.h->dtype(), T, gru_backward<T>(in, d, *gates, h_out_grad, grads));
}

}  // namespace skiff::kernels
