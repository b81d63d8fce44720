// All-reduces groups of tensors on a background thread while the caller goes on (a
// data-parallel backward hands over each bucket of gradients as soon as it is complete).
// Groups are reduced one at a time, in the order submitted, so every rank runs the same
// sequence of collectives; each group is flattened into one buffer first (one collective
// per bucket, not per tensor) and the results are written back into the tensors' memory.
//
//   dist::AsyncAllReduce reducer(dist::communicator(0), dist::ReduceOp::kAvg);
//   reducer.submit({g1, g2});   // tensors of one dtype, sharing storage with the grads
//   ...                         // backward goes on
//   reducer.wait();             // every submitted group done (rethrows a failure)
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "skiff/dist/communicator.h"

namespace skiff::dist {

class AsyncAllReduce {
 public:
  AsyncAllReduce(std::shared_ptr<Communicator> comm, ReduceOp op);
  ~AsyncAllReduce();
  AsyncAllReduce(const AsyncAllReduce&) = delete;
  AsyncAllReduce& operator=(const AsyncAllReduce&) = delete;

  // Queues one group (all of one dtype); the tensors' storage is written in place.
  void submit(std::vector<Tensor> group);
  // Waits until every submitted group is reduced; rethrows the first failure (the
  // groups after it are dropped).
  void wait();

 private:
  void run();

  std::shared_ptr<Communicator> comm_;
  ReduceOp op_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<Tensor>> queue_;
  int busy_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread worker_;
};

}  // namespace skiff::dist
