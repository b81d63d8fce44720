#include "skiff/serve/model_runner.h"

#include <algorithm>
#include <cstring>

#include "skiff/serve/infer_types.h"

namespace skiff::serve {

namespace {

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// The jobs' tensors stacked along dim 0 (they agree on every other dim).
Tensor concat_rows(const std::vector<const Tensor*>& parts) {
  std::vector<int64_t> dims = parts.front()->shape().vec();
  dims[0] = 0;
  for (const Tensor* p : parts) dims[0] += p->dim(0);
  Tensor out = Tensor::empty(Shape(dims), parts.front()->dtype());
  char* dst = static_cast<char*>(out.raw_data());
  for (const Tensor* p : parts) {
    std::memcpy(dst, p->raw_data(), p->nbytes());
    dst += p->nbytes();
  }
  return out;
}

// Rows [begin, begin + count) of `t` as a tensor of their own.
Tensor slice_rows(const Tensor& t, int64_t begin, int64_t count) {
  std::vector<int64_t> dims = t.shape().vec();
  const size_t row_bytes = dims[0] > 0 ? t.nbytes() / static_cast<size_t>(dims[0]) : 0;
  dims[0] = count;
  Tensor out = Tensor::empty(Shape(dims), t.dtype());
  std::memcpy(out.raw_data(), static_cast<const char*>(t.raw_data()) + begin * row_bytes,
              row_bytes * static_cast<size_t>(count));
  return out;
}

}  // namespace

ModelRunner::ModelRunner(std::shared_ptr<ModelBackend> backend, RunnerOptions options,
                         std::function<void(const BatchStats&)> on_batch)
    : backend_(std::move(backend)), options_(std::move(options)), on_batch_(std::move(on_batch)) {
  std::sort(options_.preferred_batch_sizes.begin(), options_.preferred_batch_sizes.end());
  for (int i = 0; i < backend_->num_instances(); ++i) {
    if (batching()) {
      threads_.emplace_back([this, i] { serve(i); });
    } else {
      free_instances_.push_back(i);
    }
  }
}

ModelRunner::~ModelRunner() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

size_t ModelRunner::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size() + running_ + waiting_;
}

std::vector<Tensor> ModelRunner::run_on_caller(std::vector<Tensor> inputs,
                                               Clock::time_point deadline) {
  const Clock::time_point arrival = Clock::now();
  int instance = 0;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (free_instances_.empty()) {
      if (waiting_ >= options_.max_queue_size) {
        throw RequestError(429, "the model's queue is full (" +
                                    std::to_string(options_.max_queue_size) +
                                    " requests waiting): try again later");
      }
      ++waiting_;
      const auto free = [&] { return !free_instances_.empty(); };
      bool got = true;
      if (deadline == Clock::time_point::max()) {
        cv_.wait(lock, free);
      } else {
        got = cv_.wait_until(lock, deadline, free);
      }
      --waiting_;
      if (!got) {
        throw RequestError(
            504, "the request's deadline passed after " +
                     std::to_string(static_cast<int64_t>(seconds(Clock::now() - arrival) * 1e3)) +
                     " ms waiting for a free instance of the model");
      }
    }
    instance = free_instances_.back();
    free_instances_.pop_back();
    ++running_;
  }
  struct GiveBack {
    ModelRunner* self;
    int instance;
    ~GiveBack() {
      {
        std::lock_guard<std::mutex> lock(self->mu_);
        self->free_instances_.push_back(instance);
        --self->running_;
      }
      self->cv_.notify_one();
    }
  } give_back{this, instance};
  const Clock::time_point start = Clock::now();
  BatchStats stats;
  stats.requests = 1;
  stats.rows = options_.max_batch_size > 0 && !inputs.empty() ? inputs.front().dim(0) : 1;
  stats.queue_seconds = seconds(start - arrival);
  std::vector<Tensor> outputs;
  try {
    outputs = backend_->run(instance, inputs);
  } catch (const std::exception& e) {
    throw RequestError(500, e.what());
  }
  stats.compute_seconds = seconds(Clock::now() - start);
  if (on_batch_) on_batch_(stats);
  return outputs;
}

std::vector<Tensor> ModelRunner::infer(std::vector<Tensor> inputs, Clock::time_point deadline) {
  if (!batching()) return run_on_caller(std::move(inputs), deadline);
  auto job = std::make_shared<Job>();
  job->rows = options_.max_batch_size > 0 && !inputs.empty() ? inputs.front().dim(0) : 1;
  job->inputs = std::move(inputs);
  job->arrival = Clock::now();
  job->deadline = deadline;
  std::future<std::vector<Tensor>> result = job->result.get_future();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.size() >= options_.max_queue_size) {
      throw RequestError(429, "the model's queue is full (" +
                                  std::to_string(options_.max_queue_size) +
                                  " requests waiting): try again later");
    }
    queue_.push_back(job);
  }
  cv_.notify_all();
  return result.get();
}

bool ModelRunner::batchable(const Job& first, const Job& other) const {
  for (size_t i = 0; i < first.inputs.size(); ++i) {
    const Shape& a = first.inputs[i].shape();
    const Shape& b = other.inputs[i].shape();
    if (a.rank() != b.rank()) return false;
    for (int d = 1; d < a.rank(); ++d)
      if (a[d] != b[d]) return false;
  }
  return true;
}

// Called with the lock held and the queue non-empty; returns the jobs of the next run.
std::vector<ModelRunner::JobPtr> ModelRunner::next_batch(std::unique_lock<std::mutex>& lock) {
  const bool batching = options_.dynamic_batching && options_.max_batch_size > 0;
  if (!batching) {
    JobPtr job = queue_.front();
    queue_.pop_front();
    return {job};
  }
  const int64_t max_rows = options_.max_batch_size;
  const auto& preferred = options_.preferred_batch_sizes;
  while (true) {
    // The rows the queue's compatible jobs reach, oldest first, without passing the max.
    const Job& first = *queue_.front();
    int64_t rows = 0;
    size_t taken = 0;
    bool more = false;  // a compatible job left out because it would pass the max
    for (const JobPtr& job : queue_) {
      if (!batchable(first, *job)) continue;
      if (rows + job->rows > max_rows) {
        more = true;
        break;
      }
      rows += job->rows;
      ++taken;
    }
    const bool full = rows >= max_rows || more;
    const bool at_preferred =
        std::find(preferred.begin(), preferred.end(), rows) != preferred.end();
    const Clock::time_point flush = first.arrival + options_.max_queue_delay;
    if (full || at_preferred || stopping_ || Clock::now() >= flush) {
      std::vector<JobPtr> jobs;
      const Job* head = queue_.front().get();
      for (auto it = queue_.begin(); it != queue_.end() && jobs.size() < taken;) {
        if (batchable(*head, **it)) {
          jobs.push_back(*it);
          it = queue_.erase(it);
        } else {
          ++it;
        }
      }
      return jobs;
    }
    cv_.wait_until(lock, flush);
    if (queue_.empty()) return {};
  }
}

void ModelRunner::serve(int instance) {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and every queued job answered
    std::vector<JobPtr> jobs = next_batch(lock);
    if (jobs.empty()) continue;
    ++running_;
    lock.unlock();
    run_batch(instance, std::move(jobs));
    lock.lock();
    --running_;
  }
}

void ModelRunner::run_batch(int instance, std::vector<JobPtr> jobs) {
  const Clock::time_point start = Clock::now();
  std::vector<JobPtr> live;
  for (JobPtr& job : jobs) {
    if (start > job->deadline) {
      job->result.set_exception(std::make_exception_ptr(RequestError(
          504, "the request's deadline passed after " +
                   std::to_string(static_cast<int64_t>(seconds(start - job->arrival) * 1e3)) +
                   " ms in the queue, before the model ran")));
    } else {
      live.push_back(std::move(job));
    }
  }
  if (live.empty()) return;
  BatchStats stats;
  stats.requests = static_cast<int>(live.size());
  stats.queue_seconds = seconds(start - live.front()->arrival);
  try {
    std::vector<Tensor> inputs;
    if (live.size() == 1) {
      inputs = live.front()->inputs;
    } else {
      for (size_t i = 0; i < live.front()->inputs.size(); ++i) {
        std::vector<const Tensor*> parts;
        for (const JobPtr& job : live) parts.push_back(&job->inputs[i]);
        inputs.push_back(concat_rows(parts));
      }
    }
    for (const JobPtr& job : live) stats.rows += job->rows;
    std::vector<Tensor> outputs = backend_->run(instance, inputs);
    stats.compute_seconds = seconds(Clock::now() - start);
    // Counted before anyone is answered: a caller reading the metrics sees its batch.
    if (on_batch_) on_batch_(stats);
    if (live.size() == 1) {
      live.front()->result.set_value(std::move(outputs));
    } else {
      int64_t begin = 0;
      for (const JobPtr& job : live) {
        std::vector<Tensor> mine;
        for (size_t o = 0; o < outputs.size(); ++o) {
          const Tensor& out = outputs[o];
          SKIFF_CHECK(out.rank() > 0 && out.dim(0) == stats.rows, "output '",
                      backend_->signature().outputs[o].name, "' has shape ", out.shape(),
                      ": a batched model's outputs must have the batch's ", stats.rows,
                      " rows first");
          mine.push_back(slice_rows(out, begin, job->rows));
        }
        begin += job->rows;
        job->result.set_value(std::move(mine));
      }
    }
  } catch (const std::exception& e) {
    const auto error = std::make_exception_ptr(RequestError(500, e.what()));
    for (JobPtr& job : live) {
      try {
        job->result.set_exception(error);
      } catch (const std::future_error&) {  // answered before the failure
      }
    }
  }
}

}  // namespace skiff::serve
