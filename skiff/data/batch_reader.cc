#include "skiff/data/batch_reader.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace skiff::data {

BatchReader::BatchReader(Tensor inputs, Tensor labels, int64_t batch_size, uint64_t seed,
                         bool shuffle, bool drop_last)
    : inputs_(std::move(inputs)),
      labels_(std::move(labels)),
      batch_size_(batch_size),
      shuffle_(shuffle),
      drop_last_(drop_last),
      rng_(seed) {
  SKIFF_CHECK(inputs_.rank() >= 1 && labels_.rank() >= 1 && inputs_.dim(0) == labels_.dim(0),
              "BatchReader: inputs ", inputs_.type_str(), " and labels ", labels_.type_str(),
              " must share their first dim");
  SKIFF_CHECK(batch_size_ > 0, "BatchReader: batch size must be positive, got ", batch_size_);
  order_.resize(static_cast<size_t>(inputs_.dim(0)));
  std::iota(order_.begin(), order_.end(), 0);
}

BatchReader::~BatchReader() { stop_worker(); }

int64_t BatchReader::batches_per_epoch() const {
  int64_t n = inputs_.dim(0);
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

std::pair<Tensor, Tensor> BatchReader::assemble(int64_t b) const {
  int64_t begin = b * batch_size_;
  int64_t count = std::min(batch_size_, inputs_.dim(0) - begin);
  auto gather = [&](const Tensor& src) {
    Shape shape = src.shape();
    shape[0] = count;
    Tensor out = Tensor::empty(shape, src.dtype());
    size_t row = src.nbytes() / static_cast<size_t>(src.dim(0));
    const char* s = static_cast<const char*>(src.raw_data());
    char* d = static_cast<char*>(out.raw_data());
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(d + i * row, s + order_[static_cast<size_t>(begin + i)] * row, row);
    return out;
  };
  return {gather(inputs_), gather(labels_)};
}

void BatchReader::stop_worker() {
  if (worker_.joinable()) worker_.join();
}

void BatchReader::start_epoch() {
  stop_worker();
  if (shuffle_) std::shuffle(order_.begin(), order_.end(), rng_);
  next_batch_ = 0;
  ready_set_ = false;
  if (batches_per_epoch() > 0) prefetch(0);
}

void BatchReader::prefetch(int64_t b) {
  worker_ = std::thread([this, b] {
    auto batch = assemble(b);
    std::lock_guard<std::mutex> lock(mu_);
    ready_ = std::move(batch);
    ready_set_ = true;
    cv_.notify_one();
  });
}

std::optional<std::pair<Tensor, Tensor>> BatchReader::next() {
  if (next_batch_ >= batches_per_epoch()) return std::nullopt;
  std::optional<std::pair<Tensor, Tensor>> batch;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return ready_set_; });
    batch = std::move(ready_);
    ready_set_ = false;
  }
  stop_worker();
  ++next_batch_;
  if (next_batch_ < batches_per_epoch()) prefetch(next_batch_);
  return batch;
}

}  // namespace skiff::data
