#include "skiff/ps_ops/ps_geo.h"

#include "skiff/core/error.h"
#include "skiff/ps/client.h"

namespace skiff {

PsGeo::PsGeo(int trainers, std::map<std::string, std::vector<float>> dense_bases)
    : trainers_(trainers), dense_base_(std::move(dense_bases)) {
  SKIFF_CHECK(trainers > 0, "geo mode: the job needs a positive number of trainers, got ",
              trainers);
}

GeoRows& PsGeo::rows(const std::string& table, int64_t dim) {
  auto it = rows_.try_emplace(table, dim).first;
  SKIFF_CHECK(it->second.dim() == dim, "geo mode: sparse table '", table, "' is used with rows of ",
              dim, " and of ", it->second.dim(), " floats");
  return it->second;
}

void PsGeo::get_rows(ps::Client& client, const std::string& table, int64_t dim, const int64_t* ids,
                     size_t n, float* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  rows(table, dim).get(ids, n, out, [&](const int64_t* missing, size_t m, float* pulled) {
    client.pull_sparse(table, missing, m, pulled);
  });
}

void PsGeo::add_rows(const std::string& table, int64_t dim, const int64_t* ids, size_t n,
                     const float* values, float scale) {
  std::lock_guard<std::mutex> lock(mutex_);
  rows(table, dim).add(ids, n, values, scale);
}

bool PsGeo::count_step(int64_t k_steps) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (++steps_since_sync_ < k_steps) return false;
  steps_since_sync_ = 0;
  return true;
}

void PsGeo::sync(ps::Client& client, const std::vector<Dense>& dense, int64_t step, bool final) {
  std::lock_guard<std::mutex> lock(mutex_);
  const float share = 1.0f / static_cast<float>(trainers_);
  std::vector<int64_t> ids;
  std::vector<float> deltas;
  for (auto& [table, rows] : rows_) {
    rows.take_deltas(share, final, &ids, &deltas);
    if (!ids.empty()) client.push_sparse(table, ids.data(), ids.size(), deltas.data(), step);
  }
  std::vector<std::vector<float>> carries;
  for (const Dense& d : dense) {
    auto base = dense_base_.find(d.table);
    SKIFF_CHECK(base != dense_base_.end() && static_cast<int64_t>(base->second.size()) == d.size,
                "geo mode: dense table '", d.table, "' of ", d.size,
                " floats has no base of that size (init_worker pulls it)");
    std::vector<float> delta(d.size), carry(d.size);
    bool moved = false;
    for (int64_t i = 0; i < d.size; ++i) {
      const float change = d.values[i] - base->second[i];
      moved |= change != 0.f;
      delta[i] = change * share;
      carry[i] = change - delta[i];
    }
    if (moved) client.push_dense(d.table, delta.data(), step);
    carries.push_back(std::move(carry));
  }
  steps_since_sync_ = 0;
  if (final) return;
  for (size_t k = 0; k < dense.size(); ++k) {
    std::vector<float>& base = dense_base_[dense[k].table];
    client.pull_dense(dense[k].table, base.data());
    for (int64_t i = 0; i < dense[k].size; ++i) dense[k].values[i] = base[i] + carries[k][i];
  }
}

}  // namespace skiff
