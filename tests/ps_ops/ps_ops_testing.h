// What the tests of the ps ops share: two parameter servers in the test process, the
// connection of the ps ops for the length of a test, the tables of the small recommendation
// model (tests/testing/sparse_model.h) and its batches.
#pragma once

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "skiff/ps/client.h"
#include "skiff/ps/initializer.h"
#include "skiff/ps/server.h"
#include "skiff/ps_ops/ps_connection.h"
#include "tests/testing/sparse_model.h"

namespace skiff::testing {

struct Servers {
  std::vector<std::unique_ptr<ps::Server>> servers;
  std::vector<std::string> endpoints;

  Servers() {
    for (int s = 0; s < 2; ++s) {
      ps::ServerOptions options;
      options.shard = s;
      options.shards = 2;
      servers.push_back(std::make_unique<ps::Server>(options));
      endpoints.push_back("127.0.0.1:" + std::to_string(servers.back()->port()));
    }
  }
};

// Connects the ps ops for the length of a test.
struct Connected {
  Connected(ps::Client* client, std::map<std::string, int64_t> widths) {
    connect_ps_ops(client, std::move(widths), 0);
  }
  ~Connected() { disconnect_ps_ops(); }
};

inline ps::TableSpec sparse_spec(float lr) {
  ps::TableSpec spec;
  spec.name = "emb";
  spec.dim = kSparseDim;
  spec.init.kind = "uniform";
  spec.init.low = -0.5f;
  spec.init.high = 0.5f;
  spec.init.seed = 3;
  spec.optimizer.kind = "sgd";
  spec.optimizer.lr = lr;
  return spec;
}

inline ps::TableSpec dense_spec(const std::string& name, int64_t size, float lr) {
  ps::TableSpec spec;
  spec.name = name;
  spec.dense = true;
  spec.size = size;
  spec.init.kind = "constant";
  spec.init.value = 0.5f;
  spec.optimizer.kind = "sgd";
  spec.optimizer.lr = lr;
  return spec;
}

inline std::vector<float> initial_row(const ps::TableSpec& spec, int64_t id) {
  std::vector<float> row(spec.dim);
  ps::init_row(spec.init, id, row.data(), spec.dim);
  return row;
}

// The rows of ids 0 .. kSparseRows - 1 as `spec`'s servers make them, one after another.
inline std::vector<float> initial_table(const ps::TableSpec& spec) {
  std::vector<float> table;
  for (int64_t id = 0; id < kSparseRows; ++id) {
    const std::vector<float> row = initial_row(spec, id);
    table.insert(table.end(), row.begin(), row.end());
  }
  return table;
}

// Batches of 8 samples: ids in [0, kSparseRows), labels in [-1, 1).
struct Batches {
  std::vector<Tensor> ids, labels;
  explicit Batches(int steps) {
    std::mt19937 rng(17);
    std::uniform_int_distribution<int64_t> id(0, kSparseRows - 1);
    std::uniform_real_distribution<float> label(-1.f, 1.f);
    for (int s = 0; s < steps; ++s) {
      std::vector<int64_t> i(8 * kIdsPerSample);
      std::vector<float> l(8);
      for (auto& v : i) v = id(rng);
      for (auto& v : l) v = label(rng);
      ids.push_back(Tensor::from_vector<int64_t>({8, kIdsPerSample}, i));
      labels.push_back(Tensor::from_vector<float>({8, 1}, l));
    }
  }
};

}  // namespace skiff::testing
