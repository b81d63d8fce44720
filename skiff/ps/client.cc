#include "skiff/ps/client.h"

#include <map>
#include <mutex>

#include "ps.grpc.pb.h"
#include "skiff/core/error.h"
#include "skiff/ps/server_calls.h"
#include "skiff/ps/shard_routing.h"
#include "skiff/ps/table_config.h"

namespace skiff::ps {
namespace {

using Async = ServerCalls::Async;

}  // namespace

// The client's verbs over two parts: the split of each call by server (shard_routing.h)
// and the calls themselves (ServerCalls, server_calls.h: the channels, calls to several
// servers at once, the recovery of a restarted server from each server's RequestLog).
// Impl adds the tables created through this client.
struct Client::Impl {
  Impl(std::vector<std::string> endpoints, int trainer, double connect_secs, double call_secs,
       double recover_secs)
      : calls(std::move(endpoints), trainer, connect_secs, call_secs, recover_secs),
        trainer(trainer) {}

  ServerCalls calls;
  const int trainer;
  std::mutex mutex;
  std::map<std::string, TableSpec> tables;  // created through this client

  const TableSpec& spec(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = tables.find(name);
    SKIFF_CHECK(it != tables.end(), "parameter server client: no table '", name,
                "' (create_table it first)");
    return it->second;
  }

  // The sizes of dense `tables`, each one this client created.
  std::vector<int64_t> sizes(const std::vector<std::string>& tables) {
    std::vector<int64_t> out;
    for (const std::string& table : tables) out.push_back(spec(table).size);
    return out;
  }

  // Dense tables' values to the servers holding them, one request per server (a push or an
  // assignment).
  void send_dense(const std::vector<std::string>& tables, const std::vector<const float*>& values,
                  int64_t step, RequestKind kind, const char* what,
                  ServerCalls::AsyncMethod<proto::PushDenseRequest, proto::Ack> method) {
    SKIFF_CHECK(tables.size() == values.size(), "parameter server client: ", tables.size(),
                " dense tables and ", values.size(), " value arrays");
    auto push = split_dense_values(tables, values, sizes(tables), trainer, step, calls.servers());
    calls.send(push.servers, push.requests, kind, what, method);
  }
};

Client::Client(std::vector<std::string> endpoints, int trainer, double connect_secs,
               double call_secs, double recover_secs)
    : impl_(std::make_unique<Impl>(std::move(endpoints), trainer, connect_secs, call_secs,
                                   recover_secs)) {}

Client::~Client() = default;

int Client::servers() const { return impl_->calls.servers(); }

void Client::create_table(const TableSpec& spec, Mode mode, int trainers,
                          double barrier_timeout_secs) {
  SKIFF_CHECK(spec.dense ? spec.size > 0 : spec.dim > 0, "parameter server table '", spec.name,
              "': ", spec.dense ? str_cat("size ", spec.size) : str_cat("dim ", spec.dim));
  proto::CreateTableRequest request;
  to_proto(spec, request.mutable_table());
  request.mutable_server()->set_mode(to_proto(mode));
  request.mutable_server()->set_trainers(trainers);
  request.mutable_server()->set_barrier_timeout_secs(barrier_timeout_secs);
  request.set_trainer(impl_->trainer);
  std::vector<proto::CreateTableRequest> requests(servers(), request);
  impl_->calls.send(impl_->calls.all(), requests, RequestKind::kCreate, "create_table",
                    &Async::CreateTable);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->tables[spec.name] = spec;
}

void Client::pull_sparse(const std::string& table, const int64_t* ids, size_t n, float* out) {
  const int dim = impl_->spec(table).dim;
  SparsePull pull = split_sparse_pull(table, ids, n, servers());
  std::vector<proto::PullSparseReply> replies(servers());
  impl_->calls.ask(pull.servers, pull.requests, replies, "pull", &Async::PullSparse);
  copy_sparse_rows(pull, replies, dim, out);
}

void Client::push_sparse(const std::string& table, const int64_t* ids, size_t n,
                         const float* values, int64_t step) {
  const int dim = impl_->spec(table).dim;
  auto push = split_sparse_push(table, ids, n, values, dim, impl_->trainer, step, servers());
  impl_->calls.send(push.servers, push.requests, RequestKind::kPushSparse, "push",
                    &Async::PushSparse);
}

void Client::pull_dense(const std::string& table, float* out) {
  pull_dense(std::vector<std::string>{table}, std::vector<float*>{out});
}

void Client::pull_dense(const std::vector<std::string>& tables, const std::vector<float*>& outs) {
  SKIFF_CHECK(tables.size() == outs.size(), "parameter server client: ", tables.size(),
              " dense tables and ", outs.size(), " outputs");
  const std::vector<int64_t> sizes = impl_->sizes(tables);
  DensePull pull = split_dense_pull(tables, servers());
  std::vector<proto::PullDenseReply> replies(servers());
  impl_->calls.ask(pull.servers, pull.requests, replies, "dense pull", &Async::PullDense);
  copy_dense_values(pull, replies, sizes, outs);
}

void Client::push_dense(const std::string& table, const float* values, int64_t step) {
  push_dense(std::vector<std::string>{table}, std::vector<const float*>{values}, step);
}

void Client::push_dense(const std::vector<std::string>& tables,
                        const std::vector<const float*>& values, int64_t step) {
  impl_->send_dense(tables, values, step, RequestKind::kPushDense, "dense push", &Async::PushDense);
}

void Client::assign_dense(const std::string& table, const float* values) {
  impl_->send_dense(std::vector<std::string>{table}, std::vector<const float*>{values}, 0,
                    RequestKind::kAssign, "dense assign", &Async::AssignDense);
}

void Client::barrier(int64_t step) {
  proto::BarrierRequest request;
  request.set_trainer(impl_->trainer);
  request.set_step(step);
  std::vector<proto::BarrierRequest> requests(servers(), request);
  impl_->calls.send(impl_->calls.all(), requests, RequestKind::kBarrier, "barrier",
                    &Async::Barrier);
}

void Client::save(const std::string& folder) {
  proto::TablesRequest request;
  request.set_path(folder);
  impl_->calls.on_every_server<proto::TablesRequest, proto::Ack>("save", request, &Async::Save);
}

void Client::load(const std::string& folder) {
  proto::TablesRequest request;
  request.set_path(folder);
  impl_->calls.on_every_server<proto::TablesRequest, proto::Ack>("load", request, &Async::Load);
}

int64_t Client::shrink(double untouched_secs) {
  proto::ShrinkRequest request;
  request.set_untouched_secs(untouched_secs);
  int64_t evicted = 0;
  for (const auto& r : impl_->calls.on_every_server<proto::ShrinkRequest, proto::ShrinkReply>(
           "shrink", request, &Async::Shrink)) {
    evicted += r.evicted();
  }
  return evicted;
}

std::vector<TableInfo> Client::info() {
  proto::Ack request;
  const auto replies =
      impl_->calls.on_every_server<proto::Ack, proto::InfoReply>("info", request, &Async::Info);
  std::map<std::string, TableInfo> summed;
  for (const auto& reply : replies) {
    for (const auto& t : reply.tables()) {
      TableInfo& info = summed[t.name()];
      info.name = t.name();
      info.rows += t.rows();
      info.pulls += t.pulls();
      info.pushes += t.pushes();
      info.dropped_unadmitted += t.dropped_unadmitted();
      info.evicted += t.evicted();
    }
  }
  std::vector<TableInfo> out;
  for (auto& [name, info] : summed) out.push_back(info);
  return out;
}

std::vector<ServerProgress> Client::progress() { return impl_->calls.progress(); }

void Client::stop_servers() {
  proto::Ack request;
  impl_->calls.on_every_server<proto::Ack, proto::Ack>("stop", request, &Async::Stop);
}

}  // namespace skiff::ps
