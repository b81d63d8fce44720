#include "skiff/dist/collective.h"

#include <cstring>

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

void ring_all_gather_last(int ring, const Tensor& x, Tensor* out) {
  SKIFF_CHECK(x.rank() >= 1, "all-gather along the last axis: X must have an axis, got a scalar");
  auto comm = communicator(ring);
  const int n = comm->size();
  Tensor stacked;  // [n, x's shape]
  comm->all_gather(x, &stacked);
  Shape shape = x.shape();
  const int64_t width = shape[shape.rank() - 1];
  shape[shape.rank() - 1] = width * n;
  Tensor joined;
  joined.resize(shape, x.dtype());
  const size_t chunk = static_cast<size_t>(width) * dtype_size(x.dtype());
  const int64_t rows = width == 0 ? 0 : x.numel() / width;
  const char* from = static_cast<const char*>(stacked.raw_data());
  char* to = static_cast<char*>(joined.raw_data());
  for (int64_t i = 0; i < rows; ++i) {
    for (int r = 0; r < n; ++r) {
      std::memcpy(to + (i * n + r) * chunk, from + (r * rows + i) * chunk, chunk);
    }
  }
  *out = std::move(joined);
}

void split_last(const Tensor& x, int rank, int parts, Tensor* out) {
  SKIFF_CHECK(x.rank() >= 1, "split along the last axis: X must have an axis, got a scalar");
  Shape shape = x.shape();
  const int64_t width = shape[shape.rank() - 1];
  SKIFF_CHECK(parts >= 1 && width % parts == 0 && rank >= 0 && rank < parts,
              "split along the last axis: ", width, " columns cannot give part ", rank, " of ",
              parts);
  const int64_t part = width / parts;
  shape[shape.rank() - 1] = part;
  Tensor piece;
  piece.resize(shape, x.dtype());
  const size_t es = dtype_size(x.dtype());
  const int64_t rows = width == 0 ? 0 : x.numel() / width;
  const char* from = static_cast<const char*>(x.raw_data());
  char* to = static_cast<char*>(piece.raw_data());
  for (int64_t i = 0; i < rows; ++i) {
    std::memcpy(to + i * part * es, from + (i * width + rank * part) * es, part * es);
  }
  *out = std::move(piece);
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
