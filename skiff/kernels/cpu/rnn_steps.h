// What the recurrent kernels share (rnn_cell.cc, rnn_layer.cc, simple_rnn_layer.cc): the
// checks of a layer's inputs, sequence lengths, step views of [T, B, W] tensors, row
// copies, and the products and column sums of the backward.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "skiff/core/tensor.h"
#include "skiff/kernels/cpu/gemm.h"

namespace skiff::kernels::rnn_steps {

struct LayerDims {
  int64_t steps = 0, batch = 0, hidden = 0;
};

inline LayerDims check_layer(const char* op, int gates, const Tensor& gates_x, const Tensor& h0,
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
inline std::vector<int64_t> sequence_lengths(const Tensor* lengths, const LayerDims& d) {
  std::vector<int64_t> out(d.batch, d.steps);
  if (!lengths) return out;
  for (int64_t b = 0; b < d.batch; ++b)
    out[b] =
        lengths->dtype() == DType::kI32 ? lengths->data<int32_t>()[b] : lengths->data<int64_t>()[b];
  return out;
}

// Step t of a [T, B, W] tensor as a [B, W] tensor over the same memory (read only).
inline Tensor step_of(const Tensor& seq, int64_t t) {
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
inline Tensor* or_local(Tensor* t, Tensor* local) { return t ? t : local; }

// A [rows, cols] gradient, or zeros when none was sent.
inline Tensor grad_or_zeros(const Tensor* g, const Shape& shape, DType dtype) {
  if (g && g->initialized()) return g->clone();
  return Tensor::zeros(shape, dtype);
}

// C [m, n] = op(A) · op(B) for row-major A, B (see GemmProblem).
template <typename T>
void product(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k, bool trans_a,
             bool trans_b = false) {
  gemm(m, n, k, trans_a, trans_b, a, b, c);
}

// out (shaped `shape`, cols elements) = the sum of the rows of a [rows, cols].
template <typename T>
void column_sums(const T* a, int64_t rows, int64_t cols, const Shape& shape, Tensor* out) {
  out->resize(shape, dtype_of<T>);
  T* o = out->data<T>();
  std::fill(o, o + cols, T(0));
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = a + r * cols;
#pragma omp simd
    for (int64_t j = 0; j < cols; ++j) o[j] += row[j];
  }
}

template <typename T>
void add_into(const Tensor& from, Tensor* into) {
  T* o = into->data<T>();
  const T* p = from.data<T>();
  for (int64_t i = 0; i < into->numel(); ++i) o[i] += p[i];
}

}  // namespace skiff::kernels::rnn_steps
