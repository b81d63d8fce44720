// Mini-batches over in-memory examples, shuffled by a seed each epoch and assembled
// on a background thread one batch ahead of the trainer.
//
//   BatchReader reader(images, labels, /*batch=*/64, /*seed=*/1);
//   for (int epoch = 0; epoch < 2; ++epoch) {
//     reader.start_epoch();
//     while (auto batch = reader.next()) train(batch->first, batch->second);
//   }
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::data {

class BatchReader {
 public:
  // `inputs` and `labels` share their first dim (the example count). The last
  // partial batch is dropped when `drop_last`.
  BatchReader(Tensor inputs, Tensor labels, int64_t batch_size, uint64_t seed, bool shuffle = true,
              bool drop_last = true);
  ~BatchReader();
  BatchReader(const BatchReader&) = delete;
  BatchReader& operator=(const BatchReader&) = delete;

  // Reshuffles (if enabled) and starts assembling the epoch's first batch.
  void start_epoch();
  // The next (inputs, labels) batch, or nullopt at the end of the epoch.
  std::optional<std::pair<Tensor, Tensor>> next();
  int64_t batches_per_epoch() const;

 private:
  std::pair<Tensor, Tensor> assemble(int64_t batch_index) const;
  // Assembles batch `batch_index` on the worker thread.
  void prefetch(int64_t batch_index);
  void stop_worker();

  Tensor inputs_, labels_;
  int64_t batch_size_;
  bool shuffle_, drop_last_;
  std::mt19937_64 rng_;
  std::vector<int64_t> order_;
  int64_t next_batch_ = 0;

  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<std::pair<Tensor, Tensor>> ready_;
  bool ready_set_ = false;
};

}  // namespace skiff::data
