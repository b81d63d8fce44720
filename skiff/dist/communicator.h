// Collective communication between the processes of a job, behind one small interface
// so that the CPU engine (Gloo, dist/gloo_communicator.h) and later NCCL for CUDA tensors
// plug in the same way. Collective ops in programs (ops/collective.cc) and the Python
// API (skiff.distributed) find a communicator by its ring id:
//
//   dist::set_communicator(0, dist::connect_gloo(etcd, "/skiff/job/0/", rank, size));
//   dist::communicator(0)->all_reduce(grad, dist::ReduceOp::kSum);
//
// Every collective must be called by every rank of the communicator, in the same order,
// with tensors of the same dtype and (except where noted) the same shape; a mismatch is
// detected where it can be and reported naming the op and the rank. A peer that died or
// stopped answering within the communicator's timeout ends the call in a CommError.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "skiff/core/error.h"
#include "skiff/core/tensor.h"

namespace skiff::dist {

enum class ReduceOp { kSum, kMax, kMin, kProd, kAvg };
const char* reduce_op_name(ReduceOp op);
// "sum", "max", "min", "prod", "avg" (as in op names and the Python API).
ReduceOp reduce_op_from_name(const std::string& name);

// A collective failed because of a peer or the transport (a rank died, a connection
// broke, a timeout passed); the communicator is unusable afterwards. Elastic training
// catches it and forms a new communicator with the survivors.
class CommError : public Error {
 public:
  explicit CommError(const std::string& message) : Error(message) {}
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every collective waits at most this long for its peers.
  virtual void set_timeout(std::chrono::milliseconds timeout) = 0;

  // x = op over ranks of x (in place). kAvg: floating dtypes only.
  virtual void all_reduce(Tensor& x, ReduceOp op) = 0;
  // x = root's x on every rank (shape and dtype must already match).
  virtual void broadcast(Tensor& x, int root) = 0;
  // root's x = op over ranks of x; other ranks' x is left as it was.
  virtual void reduce(Tensor& x, int root, ReduceOp op) = 0;
  // out = [x of rank 0; x of rank 1; ...] along a new leading dim of size().
  virtual void all_gather(const Tensor& x, Tensor* out) = 0;
  // x's leading dim is size() * n: out = op over ranks of rows [rank*n, (rank+1)*n).
  virtual void reduce_scatter(const Tensor& x, Tensor* out, ReduceOp op) = 0;
  // root's x has leading dim size() * n; out (every rank) = rows [rank*n, (rank+1)*n) of
  // it. `x` is read on the root only; others pass out's shape as x's shape.
  virtual void scatter(const Tensor& x, Tensor* out, int root) = 0;
  // x's leading dim is size() * n: out's rows [r*n, (r+1)*n) are rank r's rows
  // [rank*n, (rank+1)*n).
  virtual void all_to_all(const Tensor& x, Tensor* out) = 0;
  // Point to point: recv's tensor must have the sent tensor's shape and dtype.
  virtual void send(const Tensor& x, int peer) = 0;
  virtual void recv(Tensor& x, int peer) = 0;
  virtual void barrier() = 0;
};

// The communicator of a world of one process: each collective leaves its tensor as it is
// or copies it to the output, so a program with collective ops runs unchanged outside a
// job; send and recv have no peer and throw.
std::shared_ptr<Communicator> single_process_communicator();

// The etcd prefix under which ring `ring` of membership epoch `epoch` of job `job_id`
// meets ("/skiff/JOB/rendezvous/epochE/ringR/").
std::string rendezvous_prefix(const std::string& job_id, int epoch, int ring);

// The communicator of ring `ring_id` (throws when none was set: init_parallel_env first).
std::shared_ptr<Communicator> communicator(int ring_id);
// The same, or nullptr when none was set.
std::shared_ptr<Communicator> find_communicator(int ring_id);
// Sets (or with nullptr removes) ring `ring_id`'s communicator.
void set_communicator(int ring_id, std::shared_ptr<Communicator> comm);

}  // namespace skiff::dist
