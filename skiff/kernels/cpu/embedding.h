// Embedding lookup (a gather of table rows by integer ids) and its gradient, dense or
// as selected rows (only the touched rows).
//
//   kernels::embedding(table, ids, /*padding_idx=*/-1, &out);   // out[..., :] = table[ids]
//   kernels::embedding_grad_rows(ids, out_grad, table.dim(0), -1, &rows);
//
// The table is [V, D] of float32/float64; ids are int64 or int32 of any shape.
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"
#include "skiff/core/variable.h"

namespace skiff::kernels {

// No padding row: every id is looked up.
constexpr int64_t kNoPadding = -1;

// The Out shape of a lookup: ids' shape followed by D.
Shape embedding_out_shape(const Shape& ids, const Shape& table);

// out = table[ids] row by row (shape ids.shape + [D]); rows whose id equals
// padding_idx come out as zeros. Throws for an id outside [0, V).
void embedding(const Tensor& table, const Tensor& ids, int64_t padding_idx, Tensor* out);

// table_grad [V, D] = sum over positions of out_grad rows into the row of their id
// (padding_idx gets nothing); the other rows are zero.
void embedding_grad(const Tensor& ids, const Tensor& out_grad, const Shape& table_shape,
                    int64_t padding_idx, Tensor* table_grad);

// The same gradient as selected rows of a table of `height` rows: the touched ids
// once each, ascending, with their summed gradient rows (padding_idx left out).
// Each row is summed in the order of the ids, as in embedding_grad, so the two agree
// exactly.
void embedding_grad_rows(const Tensor& ids, const Tensor& out_grad, int64_t height,
                         int64_t padding_idx, SelectedRows* table_grad);

}  // namespace skiff::kernels
