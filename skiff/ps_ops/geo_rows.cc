#include "skiff/ps_ops/geo_rows.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "skiff/core/error.h"

namespace skiff {

GeoRows::GeoRows(int64_t dim, int carry_syncs) : dim_(dim), carry_syncs_(carry_syncs) {
  SKIFF_CHECK(dim > 0, "GeoRows: dim must be positive, got ", dim);
  SKIFF_CHECK(carry_syncs > 0, "GeoRows: carry_syncs must be positive, got ", carry_syncs);
}

void GeoRows::get(const int64_t* ids, size_t n, float* out, const Pull& pull) {
  std::vector<int64_t> missing;
  for (size_t i = 0; i < n; ++i)
    if (!slot_.count(ids[i])) missing.push_back(ids[i]);
  if (!missing.empty()) {
    std::vector<float> rows(missing.size() * dim_);
    pull(missing.data(), missing.size(), rows.data());
    const size_t start = order_.size();
    base_.insert(base_.end(), rows.begin(), rows.end());
    for (size_t k = 0; k < missing.size(); ++k) {
      auto carry = carry_.find(missing[k]);
      if (carry == carry_.end()) continue;
      float* row = rows.data() + k * dim_;
      for (int64_t j = 0; j < dim_; ++j) row[j] += carry->second.value[j];
      carry_.erase(carry);
    }
    values_.insert(values_.end(), rows.begin(), rows.end());
    for (size_t k = 0; k < missing.size(); ++k) {
      slot_.emplace(missing[k], start + k);
      order_.push_back(missing[k]);
    }
  }
  for (size_t i = 0; i < n; ++i)
    std::memcpy(out + i * dim_, values_.data() + slot_.at(ids[i]) * dim_, dim_ * sizeof(float));
}

void GeoRows::add(const int64_t* ids, size_t n, const float* rows, float scale) {
  for (size_t i = 0; i < n; ++i) {
    auto it = slot_.find(ids[i]);
    SKIFF_CHECK(it != slot_.end(), "geo mode: the gradient of id ", ids[i],
                " reached the trainer's rows before the id was looked up since the last sync");
    float* value = values_.data() + it->second * dim_;
    const float* row = rows + i * dim_;
    for (int64_t j = 0; j < dim_; ++j) value[j] += scale * row[j];
  }
}

void GeoRows::take_deltas(float share, bool final, std::vector<int64_t>* ids,
                          std::vector<float>* deltas) {
  ids->clear();
  deltas->clear();
  const bool carry = !final && share < 1;
  std::unordered_map<int64_t, Carry> kept;
  if (carry) {
    for (auto& [id, c] : carry_)
      if (++c.syncs < carry_syncs_) kept.emplace(id, std::move(c));
  }
  std::vector<float> delta(dim_);
  for (size_t s = 0; s < order_.size(); ++s) {
    const float* value = values_.data() + s * dim_;
    const float* base = base_.data() + s * dim_;
    bool moved = false;
    for (int64_t j = 0; j < dim_; ++j) moved |= (delta[j] = value[j] - base[j]) != 0.f;
    if (!moved) continue;
    ids->push_back(order_[s]);
    for (int64_t j = 0; j < dim_; ++j) deltas->push_back(delta[j] * share);
    if (carry) {
      Carry& c = kept[order_[s]];
      c.value.resize(dim_);
      for (int64_t j = 0; j < dim_; ++j) c.value[j] = delta[j] * (1 - share);
      c.syncs = 0;
    }
  }
  carry_ = std::move(kept);
  slot_.clear();
  order_.clear();
  values_.clear();
  base_.clear();
}

void GeoRows::clear() {
  slot_.clear();
  order_.clear();
  values_.clear();
  base_.clear();
  carry_.clear();
}

}  // namespace skiff
