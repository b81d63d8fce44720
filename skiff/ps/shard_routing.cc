#include "skiff/ps/shard_routing.h"

#include <cstring>

#include "skiff/core/error.h"
#include "skiff/ps/id_index.h"
#include "skiff/ps/shard.h"

namespace skiff::ps {
namespace {

template <typename T>
void set_bytes(const T* data, size_t n, std::string* out) {
  out->assign(reinterpret_cast<const char*>(data), n * sizeof(T));
}

}  // namespace

SparsePull split_sparse_pull(const std::string& table, const int64_t* ids, size_t n, int shards) {
  SparsePull pull;
  // Each server gets its distinct ids once; `where[i]` finds id i's row in its reply.
  std::vector<std::vector<int64_t>> per_server(shards);
  std::vector<IdIndex> position(shards);
  pull.where.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const int s = shard_of(ids[i], shards);
    bool added = false;
    pull.where[i] = {s, position[s].find_or_insert(ids[i], per_server[s].size(), &added)};
    if (added) per_server[s].push_back(ids[i]);
  }
  pull.requests.resize(shards);
  pull.asked.resize(shards);
  for (int s = 0; s < shards; ++s) {
    pull.asked[s] = per_server[s].size();
    if (per_server[s].empty()) continue;
    pull.servers.push_back(s);
    pull.requests[s].set_table(table);
    set_bytes(per_server[s].data(), per_server[s].size(), pull.requests[s].mutable_ids());
  }
  return pull;
}

void copy_sparse_rows(const SparsePull& pull, const std::vector<proto::PullSparseReply>& replies,
                      int dim, float* out) {
  for (int s : pull.servers) {
    SKIFF_CHECK(replies[s].rows().size() == pull.asked[s] * dim * sizeof(float),
                "parameter server ", s, " answered a pull of '", pull.requests[s].table(),
                "' with ", replies[s].rows().size(), " bytes for ", pull.asked[s], " rows of ",
                dim);
  }
  for (size_t i = 0; i < pull.where.size(); ++i) {
    const auto [s, row] = pull.where[i];
    std::memcpy(out + i * dim, replies[s].rows().data() + row * dim * sizeof(float),
                dim * sizeof(float));
  }
}

PerServer<proto::PushSparseRequest> split_sparse_push(const std::string& table, const int64_t* ids,
                                                      size_t n, const float* values, int dim,
                                                      int trainer, int64_t step, int shards) {
  PerServer<proto::PushSparseRequest> push;
  push.requests.resize(shards);
  // Each server's ids and values, copied into bytes sized once.
  std::vector<int> server(n);
  std::vector<size_t> count(shards, 0), filled(shards, 0);
  for (size_t i = 0; i < n; ++i) ++count[server[i] = shard_of(ids[i], shards)];
  const size_t row_bytes = dim * sizeof(float);
  for (int s = 0; s < shards; ++s) {
    push.requests[s].mutable_ids()->resize(count[s] * sizeof(int64_t));
    push.requests[s].mutable_values()->resize(count[s] * row_bytes);
  }
  for (size_t i = 0; i < n; ++i) {
    proto::PushSparseRequest& r = push.requests[server[i]];
    const size_t k = filled[server[i]]++;
    std::memcpy(r.mutable_ids()->data() + k * sizeof(int64_t), ids + i, sizeof(int64_t));
    std::memcpy(r.mutable_values()->data() + k * row_bytes, values + i * dim, row_bytes);
  }
  for (int s = 0; s < shards; ++s) {
    if (push.requests[s].ids().empty()) continue;
    push.servers.push_back(s);
    push.requests[s].set_table(table);
    push.requests[s].set_trainer(trainer);
    push.requests[s].set_step(step);
  }
  return push;
}

DensePull split_dense_pull(const std::vector<std::string>& tables, int shards) {
  DensePull pull;
  pull.requests.resize(shards);
  pull.asked.resize(shards);
  for (size_t i = 0; i < tables.size(); ++i) {
    const int s = dense_shard_of(tables[i], shards);
    if (pull.asked[s].empty()) pull.servers.push_back(s);
    pull.asked[s].push_back(i);
    pull.requests[s].add_tables(tables[i]);
  }
  return pull;
}

void copy_dense_values(const DensePull& pull, const std::vector<proto::PullDenseReply>& replies,
                       const std::vector<int64_t>& sizes, const std::vector<float*>& outs) {
  for (int s : pull.servers) {
    const std::vector<size_t>& asked = pull.asked[s];
    SKIFF_CHECK(replies[s].values_size() == static_cast<int>(asked.size()), "parameter server ", s,
                " answered a pull of ", asked.size(), " dense tables with ",
                replies[s].values_size());
    for (size_t k = 0; k < asked.size(); ++k) {
      const std::string& table = pull.requests[s].tables(static_cast<int>(k));
      const std::string& values = replies[s].values(static_cast<int>(k));
      const int64_t size = sizes[asked[k]];
      SKIFF_CHECK(values.size() == size * sizeof(float), "parameter server ", s,
                  " answered a pull of dense '", table, "' with ", values.size(), " bytes for ",
                  size, " floats");
      std::memcpy(outs[asked[k]], values.data(), values.size());
    }
  }
}

PerServer<proto::PushDenseRequest> split_dense_values(const std::vector<std::string>& tables,
                                                      const std::vector<const float*>& values,
                                                      const std::vector<int64_t>& sizes,
                                                      int trainer, int64_t step, int shards) {
  PerServer<proto::PushDenseRequest> push;
  push.requests.resize(shards);
  for (size_t i = 0; i < tables.size(); ++i) {
    const int s = dense_shard_of(tables[i], shards);
    proto::PushDenseRequest& request = push.requests[s];
    if (request.tables().empty()) {
      push.servers.push_back(s);
      request.set_trainer(trainer);
      request.set_step(step);
    }
    proto::DenseValues* d = request.add_tables();
    d->set_table(tables[i]);
    set_bytes(values[i], static_cast<size_t>(sizes[i]), d->mutable_values());
  }
  return push;
}

}  // namespace skiff::ps
