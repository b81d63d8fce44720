#include "skiff/dist/collective.h"

namespace skiff::dist {

namespace {

// `out`, holding x's values: x's own storage when out is x's tensor.
Tensor& holding_x(const Tensor& x, Tensor* out) {
  if (!out->shares_storage(x) || out->shape() != x.shape()) *out = x.clone();
  return *out;
}

}  // namespace

void ring_all_reduce(int ring, const Tensor& x, ReduceOp op, Tensor* out) {
  communicator(ring)->all_reduce(holding_x(x, out), op);
}

void ring_reduce(int ring, const Tensor& x, int root, ReduceOp op, Tensor* out) {
  communicator(ring)->reduce(holding_x(x, out), root, op);
}

void ring_broadcast(int ring, const Tensor& x, int root, Tensor* out) {
  communicator(ring)->broadcast(holding_x(x, out), root);
}

void ring_all_gather(int ring, const Tensor& x, Tensor* out) {
  auto comm = communicator(ring);
  Tensor stacked;
  comm->all_gather(x, &stacked);
  // Concatenated along dim 0 (Paddle's layout), not stacked along a new dim.
  Shape shape = x.rank() == 0 ? Shape{comm->size()} : x.shape();
  if (x.rank() > 0) shape[0] *= comm->size();
  stacked.reshape(shape);
  *out = std::move(stacked);
}

void ring_reduce_scatter(int ring, const Tensor& x, Tensor* out) {
  communicator(ring)->reduce_scatter(x, out, ReduceOp::kSum);
}

void ring_scatter(int ring, const Tensor& x, int root, Tensor* out) {
  communicator(ring)->scatter(x, out, root);
}

void ring_all_to_all(int ring, const Tensor& x, Tensor* out) {
  communicator(ring)->all_to_all(x, out);
}

void ring_send(int ring, const Tensor& x, int peer) { communicator(ring)->send(x, peer); }

void ring_recv(int ring, const Shape& shape, DType dtype, int peer, Tensor* out) {
  out->resize(shape, dtype);
  communicator(ring)->recv(*out, peer);
}

}  // namespace skiff::dist
