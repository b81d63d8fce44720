#include "skiff/dist/async_all_reduce.h"

#include <cstring>

namespace skiff::dist {

namespace {

// One collective for the whole group: copied into one buffer and back.
void reduce_group(Communicator& comm, std::vector<Tensor>& group, ReduceOp op) {
  if (group.size() == 1) {
    comm.all_reduce(group[0], op);
    return;
  }
  const DType dtype = group[0].dtype();
  int64_t total = 0;
  for (const Tensor& t : group) {
    SKIFF_CHECK(t.dtype() == dtype, "all_reduce of a bucket: mixed dtypes ", t.type_str(), " and ",
                dtype_name(dtype));
    total += t.numel();
  }
  Tensor flat = Tensor::empty(Shape{total}, dtype);
  char* p = static_cast<char*>(flat.raw_data());
  for (const Tensor& t : group) {
    std::memcpy(p, t.raw_data(), t.nbytes());
    p += t.nbytes();
  }
  comm.all_reduce(flat, op);
  p = static_cast<char*>(flat.raw_data());
  for (Tensor& t : group) {
    std::memcpy(t.raw_data(), p, t.nbytes());
    p += t.nbytes();
  }
}

}  // namespace

AsyncAllReduce::AsyncAllReduce(std::shared_ptr<Communicator> comm, ReduceOp op)
    : comm_(std::move(comm)), op_(op), worker_([this] { run(); }) {}

AsyncAllReduce::~AsyncAllReduce() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void AsyncAllReduce::submit(std::vector<Tensor> group) {
  if (group.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(group));
  }
  changed_.notify_all();
}

void AsyncAllReduce::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return (queue_.empty() && busy_ == 0) || error_; });
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    queue_.clear();
    changed_.wait(lock, [&] { return busy_ == 0; });
    std::rethrow_exception(e);
  }
}

void AsyncAllReduce::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping with nothing left
    std::vector<Tensor> group = std::move(queue_.front());
    queue_.pop_front();
    ++busy_;
    lock.unlock();
    std::exception_ptr failure;
    try {
      reduce_group(*comm_, group, op_);
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    --busy_;
    if (failure && !error_) error_ = failure;
    if (error_) queue_.clear();
    changed_.notify_all();
  }
}

}  // namespace skiff::dist
