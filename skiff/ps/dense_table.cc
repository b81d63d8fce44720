// File layout (little-endian): magic "SKPSDENS", version (u32), size (i64), optimizer
// kind (u32 length + bytes), state size (u64), the values and the state (f32), then the
// CRC-32 of all before it.
#include "skiff/ps/dense_table.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "skiff/core/error.h"
#include "skiff/ps/sparse_table.h"
#include "skiff/ps/table_file.h"

namespace skiff::ps {
namespace {

constexpr char kMagic[8] = {'S', 'K', 'P', 'S', 'D', 'E', 'N', 'S'};
constexpr uint32_t kVersion = 1;

}  // namespace

DenseTable::DenseTable(std::string name, int64_t size, const InitializerConfig& init,
                       OptimizerConfig optimizer, int64_t first_element)
    : name_(std::move(name)), size_(size), optimizer_(std::move(optimizer)) {
  SKIFF_CHECK(size_ > 0, "dense table '", name_, "': size must be positive, got ", size_);
  SKIFF_CHECK(first_element >= 0, "dense table '", name_, "': first_element must be >= 0, got ",
              first_element);
  check_initializer(init, name_);
  check_optimizer(optimizer_, name_);
  value_.resize(static_cast<size_t>(size_));
  state_.resize(static_cast<size_t>(state_width(optimizer_, size_)));
  init_span(init, 0, first_element, value_.data(), size_);
  init_state(optimizer_, state_.data(), size_);
}

void DenseTable::pull(float* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::copy(value_.begin(), value_.end(), out);
}

void DenseTable::push(const float* grad) {
  std::lock_guard<std::mutex> lock(mu_);
  update_row(optimizer_, value_.data(), state_.data(), grad, size_);
  ++pushes_;
}

void DenseTable::push_delta(const float* delta) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int64_t i = 0; i < size_; ++i) value_[i] += delta[i];
  ++pushes_;
}

void DenseTable::assign(const float* values) {
  std::lock_guard<std::mutex> lock(mu_);
  std::copy(values, values + size_, value_.begin());
}

uint64_t DenseTable::pushes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pushes_;
}

void DenseTable::save(const std::string& path) const {
  TableFileWriter file(path);
  file.put_header(kMagic, kVersion);
  file.put_i64(size_);
  file.put_string(optimizer_.kind);
  {
    std::lock_guard<std::mutex> lock(mu_);
    file.put_u64(state_.size());
    file.put_floats(value_.data(), value_.size());
    file.put_floats(state_.data(), state_.size());
  }
  file.commit();
}

void DenseTable::load(const std::string& path) {
  TableFileReader file(path);
  file.expect_header(kMagic, kVersion, "dense table");
  int64_t size = file.get_i64();
  if (size != size_) {
    file.corrupt(str_cat("holds ", size, " values but dense table '", name_, "' has ", size_));
  }
  std::string kind = file.get_string(64);
  if (kind != optimizer_.kind) {
    file.corrupt(str_cat("saved with optimizer '", kind, "' but dense table '", name_, "' uses '",
                         optimizer_.kind, "'"));
  }
  uint64_t state = file.get_u64();
  if (state != state_.size()) {
    file.corrupt(str_cat("optimizer state has ", state, " floats but dense table '", name_,
                         "' needs ", state_.size()));
  }
  std::vector<float> value(value_.size()), state_values(state_.size());
  file.get_floats(value.data(), value.size());
  file.get_floats(state_values.data(), state_values.size());
  file.finish();
  std::lock_guard<std::mutex> lock(mu_);
  value_.swap(value);
  state_.swap(state_values);
}

}  // namespace skiff::ps
