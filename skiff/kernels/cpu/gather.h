// Indexed reads and writes along leading dims: gather (entries of one axis),
// gather_nd (slices addressed by index tuples), scatter (rows replaced or summed),
// and their gradients. Indices are int32 or int64; a negative index counts from the
// back of its dim; any other index out of range throws naming it and the shape.
//
//   gather(x, ids, /*axis=*/0, &rows);          // x [5, 3], ids [2] -> [2, 3]
//   gather_nd(x, tuples, &vals);                // x [5, 3], tuples [4, 2] -> [4]
//   scatter(x, ids, updates, /*overwrite=*/true, &out);
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// x with dim `axis` replaced by the length of a 1-D index (removed for a rank-0 index).
// Throws naming the shapes for another index rank or an axis out of range.
Shape gather_shape(const Shape& x, const Shape& index, int64_t axis);
// out[..., j, ...] = x[..., index[j], ...] along `axis`; any dtype.
void gather(const Tensor& x, const Tensor& index, int64_t axis, Tensor* out);
// x_grad (x_shape, float32/float64) = zeros with out_grad's entries added at the indices.
void gather_grad(const Tensor& out_grad, const Tensor& index, const Shape& x_shape, int64_t axis,
                 Tensor* x_grad);

// index.shape[:-1] + x.shape[k:] for tuples of k = index.shape[-1] <= rank(x) indices.
// Throws naming the shapes otherwise.
Shape gather_nd_shape(const Shape& x, const Shape& index);
// out[t] = x[index[t, 0], ..., index[t, k - 1]] (a slice of x's trailing dims); any dtype.
void gather_nd(const Tensor& x, const Tensor& index, Tensor* out);
// x_grad (x_shape, float32/float64) = zeros with out_grad's slices added at the tuples.
void gather_nd_grad(const Tensor& out_grad, const Tensor& index, const Shape& x_shape,
                    Tensor* x_grad);

// Checks scatter's operands: 1-D ids, updates shaped [len(ids)] + x.shape[1:] (-1
// matches any). Throws naming the shapes otherwise.
void check_scatter_shapes(const Shape& x, const Shape& ids, const Shape& updates);
// out = x with row ids[i] set to updates[i] (overwrite: the last of repeated ids wins)
// or, without overwrite, rows named by ids set to the sum of their updates. Any dtype
// but bool for the sum; `out` may be x.
void scatter(const Tensor& x, const Tensor& ids, const Tensor& updates, bool overwrite,
             Tensor* out);
// Gradients of scatter (float32/float64): x_grad = out_grad with the rows named by ids
// zeroed; updates_grad[i] = out_grad[ids[i]], or 0 for an update that overwrite lets a
// later one replace. A null output is skipped.
void scatter_grad(const Tensor& out_grad, const Tensor& ids, bool overwrite,
                  const Shape& updates_shape, Tensor* x_grad, Tensor* updates_grad);

}  // namespace skiff::kernels
