// The collective ops' computations as plain calls on a ring's communicator: the
// interpreter's kernels (ops/collective.cc) and the C++ that `skiff compile` writes for a
// program with collective ops (codegen/rules_collective.cc) make the same calls.
//
//   dist::ring_all_reduce(0, grad, dist::ReduceOp::kAvg, &grad);      // in place
//   dist::ring_all_gather(0, x, &gathered);                             // along dim 0
#pragma once

#include "skiff/core/tensor.h"
#include "skiff/dist/communicator.h"

namespace skiff::dist {

// Each call runs on ring `ring`'s communicator (throws when it has none). Where `out` is
// x's own tensor (one variable in and out), the collective works in place; else out
// receives a copy of x first.

// out = op over ranks of x.
void ring_all_reduce(int ring, const Tensor& x, ReduceOp op, Tensor* out);
// On rank `root`: out = op over ranks of x; elsewhere out = x.
void ring_reduce(int ring, const Tensor& x, int root, ReduceOp op, Tensor* out);
// out = x of rank `root`.
void ring_broadcast(int ring, const Tensor& x, int root, Tensor* out);
// out = every rank's x concatenated along dim 0 in rank order (a 0-d x gives a vector).
void ring_all_gather(int ring, const Tensor& x, Tensor* out);
// out = every rank's x concatenated along the last axis in rank order (x of rank >= 1).
void ring_all_gather_last(int ring, const Tensor& x, Tensor* out);
// out = part `rank` of `parts` equal parts of x's last axis (no communication: every rank
// holds x whole and keeps its part).
void split_last(const Tensor& x, int rank, int parts, Tensor* out);
// x's dim 0 is size() * n: out = the sum over ranks of x's rows [rank*n, (rank+1)*n).
void ring_reduce_scatter(int ring, const Tensor& x, Tensor* out);
// out = rows [rank*n, (rank+1)*n) of rank root's x (others pass a tensor of out's shape).
void ring_scatter(int ring, const Tensor& x, int root, Tensor* out);
// out's rows [r*n, (r+1)*n) = rank r's rows [rank*n, (rank+1)*n) of its x.
void ring_all_to_all(int ring, const Tensor& x, Tensor* out);
// Point to point: the receiver names the sent tensor's shape and dtype.
void ring_send(int ring, const Tensor& x, int peer);
void ring_recv(int ring, const Shape& shape, DType dtype, int peer, Tensor* out);

}  // namespace skiff::dist
