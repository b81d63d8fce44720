// How a trainer's call is split over the parameter servers (ps/client.cc): each sparse id
// goes to the server shard_of(id) holds, each dense table to dense_shard_of(name); one
// request to each server holding some of them, and the replies put back in the caller's
// order. No gRPC here: ServerCalls sends the requests.
//
//   SparsePull pull = split_sparse_pull("emb", ids, n, shards);
//   calls.ask(pull.servers, pull.requests, replies, "pull", &ServerCalls::Async::PullSparse);
//   copy_sparse_rows(pull, replies, dim, rows);        // rows: n x dim
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ps.pb.h"

namespace skiff::ps {

// One request per server (indexed by server) and the servers that get one, in order.
template <typename Request>
struct PerServer {
  std::vector<Request> requests;
  std::vector<int> servers;
};

// A sparse pull split over the servers: each server is asked once for each distinct id it
// holds.
struct SparsePull : PerServer<proto::PullSparseRequest> {
  std::vector<size_t> asked;                  // distinct ids asked of each server
  std::vector<std::pair<int, size_t>> where;  // id i's row: its server, its row in the reply
};

// The pull of the rows of `ids` (n of them; ids may repeat) of `table` from `shards` servers.
SparsePull split_sparse_pull(const std::string& table, const int64_t* ids, size_t n, int shards);
// Copies each id's row (dim floats) from its server's reply into `out` (n x dim); fails
// naming a server whose reply has the wrong size.
void copy_sparse_rows(const SparsePull& pull, const std::vector<proto::PullSparseReply>& replies,
                      int dim, float* out);

// `trainer`'s push of the rows of `ids` (n x dim floats in `values`) for `step`: each
// server's ids and rows, copied into bytes sized once.
PerServer<proto::PushSparseRequest> split_sparse_push(const std::string& table, const int64_t* ids,
                                                      size_t n, const float* values, int dim,
                                                      int trainer, int64_t step, int shards);

// A dense pull split over the servers: one request to each server holding some of the
// tables (a step's dense tables travel together).
struct DensePull : PerServer<proto::PullDenseRequest> {
  std::vector<std::vector<size_t>> asked;  // indices into the tables, by server
};

DensePull split_dense_pull(const std::vector<std::string>& tables, int shards);
// Copies table i's values (sizes[i] floats) from its server's reply into outs[i]; fails
// naming a server whose reply has the wrong number of tables or of values.
void copy_dense_values(const DensePull& pull, const std::vector<proto::PullDenseReply>& replies,
                       const std::vector<int64_t>& sizes, const std::vector<float*>& outs);

// `trainer`'s values of dense tables (values[i]: sizes[i] floats of tables[i]) for `step`,
// one request to each server holding some of them (a push or an assignment).
PerServer<proto::PushDenseRequest> split_dense_values(const std::vector<std::string>& tables,
                                                      const std::vector<const float*>& values,
                                                      const std::vector<int64_t>& sizes,
                                                      int trainer, int64_t step, int shards);

}  // namespace skiff::ps
