// The queue of one loaded model version and its instances. Without dynamic batching each
// request runs alone, on its caller's thread, as soon as an instance is free (no hand-off
// between threads on the way). With it, one thread per instance serves a queue: one that
// frees up
// takes the oldest request and joins later ones of the same shape into one batch along
// the leading (batch) dim: it starts as soon as the rows reach max_batch_size or a
// preferred size with nothing more to add, else when the oldest request has waited
// max_queue_delay; each caller gets its own rows back.
//
//   ModelRunner runner(backend, options, on_batch);
//   std::vector<Tensor> outs = runner.infer(inputs, deadline);   // blocks until answered
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "skiff/serve/model_backend.h"

namespace skiff::serve {

using Clock = std::chrono::steady_clock;

struct RunnerOptions {
  int max_batch_size = 0;  // > 0: inputs carry a leading batch dim of at most this
  bool dynamic_batching = false;
  std::vector<int> preferred_batch_sizes;
  std::chrono::microseconds max_queue_delay{0};
  size_t max_queue_size = 1024;  // requests waiting; past it infer refuses (429)
};

// What one run of the model did, for the metrics.
struct BatchStats {
  int requests = 0;
  int64_t rows = 0;
  double queue_seconds = 0;    // the oldest request's wait
  double compute_seconds = 0;  // the model's run
};

class ModelRunner {
 public:
  ModelRunner(std::shared_ptr<ModelBackend> backend, RunnerOptions options,
              std::function<void(const BatchStats&)> on_batch = {});
  // Answers the requests already queued, then stops the threads.
  ~ModelRunner();
  ModelRunner(const ModelRunner&) = delete;
  ModelRunner& operator=(const ModelRunner&) = delete;

  // Runs `inputs` (signature order, already checked against the model) and returns the
  // outputs. Throws RequestError: 429 when the queue is full, 504 when `deadline` passes
  // before the run starts; a failed run throws RequestError 500 with the model's message.
  std::vector<Tensor> infer(std::vector<Tensor> inputs, Clock::time_point deadline);

  const ModelBackend& backend() const { return *backend_; }
  // Requests waiting or running now.
  size_t pending() const;

 private:
  struct Job {
    std::vector<Tensor> inputs;
    int64_t rows = 1;
    Clock::time_point arrival, deadline;
    std::promise<std::vector<Tensor>> result;
  };
  using JobPtr = std::shared_ptr<Job>;

  bool batching() const { return options_.dynamic_batching && options_.max_batch_size > 0; }
  std::vector<Tensor> run_on_caller(std::vector<Tensor> inputs, Clock::time_point deadline);
  void serve(int instance);
  std::vector<JobPtr> next_batch(std::unique_lock<std::mutex>& lock);
  bool batchable(const Job& first, const Job& other) const;
  void run_batch(int instance, std::vector<JobPtr> jobs);

  std::shared_ptr<ModelBackend> backend_;
  RunnerOptions options_;
  std::function<void(const BatchStats&)> on_batch_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<JobPtr> queue_;
  size_t running_ = 0;
  size_t waiting_ = 0;               // callers waiting for a free instance (no batching)
  std::vector<int> free_instances_;  // (no batching)
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace skiff::serve
