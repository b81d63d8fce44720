#include "skiff/ps/client.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>

#include "ps.grpc.pb.h"
#include "skiff/core/error.h"
#include "skiff/ps/shard.h"
#include "skiff/ps/table_config.h"

namespace skiff::ps {
namespace {

template <typename T>
void set_bytes(const T* data, size_t n, std::string* out) {
  out->assign(reinterpret_cast<const char*>(data), n * sizeof(T));
}

}  // namespace

struct Client::Impl {
  std::vector<std::string> endpoints;
  std::vector<std::unique_ptr<proto::ParameterServer::Stub>> stubs;
  int trainer = 0;
  double call_secs = 0;
  std::mutex mutex;
  std::map<std::string, TableSpec> tables;  // created through this client

  const TableSpec& spec(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = tables.find(name);
    SKIFF_CHECK(it != tables.end(), "parameter server client: no table '", name,
                "' (create_table it first)");
    return it->second;
  }

  // Runs one asynchronous call per server in `servers` at once (`start(s, context,
  // on_done)` issues server s's call) and waits for all; fails with every server's error.
  template <typename Start>
  void call(const std::vector<int>& servers, const char* what, Start&& start) {
    std::vector<grpc::ClientContext> contexts(servers.size());
    std::vector<grpc::Status> statuses(servers.size());
    std::mutex done_mutex;
    std::condition_variable done_cv;
    size_t done = 0;
    for (size_t k = 0; k < servers.size(); ++k) {
      if (call_secs > 0) {
        contexts[k].set_deadline(std::chrono::system_clock::now() +
                                 std::chrono::microseconds(static_cast<int64_t>(call_secs * 1e6)));
      }
      start(servers[k], &contexts[k], [&, k](grpc::Status status) {
        std::lock_guard<std::mutex> lock(done_mutex);
        statuses[k] = std::move(status);
        ++done;
        done_cv.notify_all();
      });
    }
    std::unique_lock<std::mutex> lock(done_mutex);
    done_cv.wait(lock, [&] { return done == servers.size(); });
    std::string errors;
    for (size_t k = 0; k < servers.size(); ++k) {
      if (statuses[k].ok()) continue;
      errors += str_cat(errors.empty() ? "" : "; ", "server ", servers[k], " (",
                        endpoints[servers[k]], "): ", statuses[k].error_message());
    }
    SKIFF_CHECK(errors.empty(), "parameter server ", what, " failed: ", errors);
  }

  std::vector<int> all() const {
    std::vector<int> out(stubs.size());
    for (size_t s = 0; s < out.size(); ++s) out[s] = static_cast<int>(s);
    return out;
  }

  template <typename Request, typename Reply>
  using AsyncMethod = void (proto::ParameterServer::StubInterface::async_interface::*)(
      grpc::ClientContext*, const Request*, Reply*, std::function<void(grpc::Status)>);

  // A dense table's values to the server holding it (a push or an assignment).
  void send_dense(const std::string& table, const float* values, int64_t step, const char* what,
                  AsyncMethod<proto::PushDenseRequest, proto::Ack> method);

  // The same request to every server at once; their replies in server order.
  template <typename Request, typename Reply>
  std::vector<Reply> on_every_server(const char* what, const Request& request,
                                     AsyncMethod<Request, Reply> method) {
    std::vector<Reply> replies(stubs.size());
    call(all(), what, [&](int s, grpc::ClientContext* c, auto done) {
      (stubs[s]->async()->*method)(c, &request, &replies[s], done);
    });
    return replies;
  }
};

using Async = proto::ParameterServer::StubInterface::async_interface;

void Client::Impl::send_dense(const std::string& table, const float* values, int64_t step,
                              const char* what,
                              AsyncMethod<proto::PushDenseRequest, proto::Ack> method) {
  const int64_t size = spec(table).size;
  const int s = dense_shard_of(table, static_cast<int>(stubs.size()));
  proto::PushDenseRequest request;
  request.set_table(table);
  set_bytes(values, static_cast<size_t>(size), request.mutable_values());
  request.set_trainer(trainer);
  request.set_step(step);
  proto::Ack reply;
  call({s}, what, [&](int, grpc::ClientContext* c, auto done) {
    (stubs[s]->async()->*method)(c, &request, &reply, done);
  });
}

Client::Client(std::vector<std::string> endpoints, int trainer, double connect_secs,
               double call_secs)
    : impl_(std::make_unique<Impl>()) {
  SKIFF_CHECK(!endpoints.empty(), "parameter server client: no server endpoints");
  impl_->endpoints = std::move(endpoints);
  impl_->trainer = trainer;
  impl_->call_secs = call_secs;
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  const auto deadline = std::chrono::system_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(connect_secs * 1e3));
  std::string unreachable;
  for (const std::string& endpoint : impl_->endpoints) {
    auto channel = grpc::CreateCustomChannel(endpoint, grpc::InsecureChannelCredentials(), args);
    if (!channel->WaitForConnected(deadline))
      unreachable += (unreachable.empty() ? "" : ", ") + endpoint;
    impl_->stubs.push_back(proto::ParameterServer::NewStub(channel));
  }
  SKIFF_CHECK(unreachable.empty(), "parameter server client (trainer ", trainer, "): cannot reach ",
              unreachable, " within ", connect_secs, " s");
}

Client::~Client() = default;

int Client::servers() const { return static_cast<int>(impl_->stubs.size()); }

void Client::create_table(const TableSpec& spec, Mode mode, int trainers,
                          double barrier_timeout_secs) {
  SKIFF_CHECK(spec.dense ? spec.size > 0 : spec.dim > 0, "parameter server table '", spec.name,
              "': ", spec.dense ? str_cat("size ", spec.size) : str_cat("dim ", spec.dim));
  proto::CreateTableRequest request;
  to_proto(spec, request.mutable_table());
  request.mutable_server()->set_mode(to_proto(mode));
  request.mutable_server()->set_trainers(trainers);
  request.mutable_server()->set_barrier_timeout_secs(barrier_timeout_secs);
  impl_->on_every_server<proto::CreateTableRequest, proto::Ack>("create_table", request,
                                                                &Async::CreateTable);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->tables[spec.name] = spec;
}

void Client::pull_sparse(const std::string& table, const int64_t* ids, size_t n, float* out) {
  const int dim = impl_->spec(table).dim;
  const int shards = servers();
  // Each server gets its distinct ids once; `where[i]` finds id i's row in its reply.
  std::vector<std::vector<int64_t>> per_server(shards);
  std::vector<std::unordered_map<int64_t, size_t>> position(shards);
  std::vector<std::pair<int, size_t>> where(n);
  for (size_t i = 0; i < n; ++i) {
    const int s = shard_of(ids[i], shards);
    auto [it, added] = position[s].emplace(ids[i], per_server[s].size());
    if (added) per_server[s].push_back(ids[i]);
    where[i] = {s, it->second};
  }
  std::vector<int> used;
  std::vector<proto::PullSparseRequest> requests(shards);
  std::vector<proto::PullSparseReply> replies(shards);
  for (int s = 0; s < shards; ++s) {
    if (per_server[s].empty()) continue;
    used.push_back(s);
    requests[s].set_table(table);
    set_bytes(per_server[s].data(), per_server[s].size(), requests[s].mutable_ids());
  }
  impl_->call(used, "pull", [&](int s, grpc::ClientContext* c, auto done) {
    impl_->stubs[s]->async()->PullSparse(c, &requests[s], &replies[s], done);
  });
  for (int s : used) {
    SKIFF_CHECK(replies[s].rows().size() == per_server[s].size() * dim * sizeof(float),
                "parameter server ", s, " answered a pull of '", table, "' with ",
                replies[s].rows().size(), " bytes for ", per_server[s].size(), " rows of ", dim);
  }
  for (size_t i = 0; i < n; ++i) {
    const auto [s, row] = where[i];
    std::memcpy(out + i * dim, replies[s].rows().data() + row * dim * sizeof(float),
                dim * sizeof(float));
  }
}

void Client::push_sparse(const std::string& table, const int64_t* ids, size_t n,
                         const float* values, int64_t step) {
  const int dim = impl_->spec(table).dim;
  const int shards = servers();
  std::vector<proto::PushSparseRequest> requests(shards);
  std::vector<proto::Ack> replies(shards);
  for (size_t i = 0; i < n; ++i) {
    proto::PushSparseRequest& r = requests[shard_of(ids[i], shards)];
    r.mutable_ids()->append(reinterpret_cast<const char*>(ids + i), sizeof(int64_t));
    r.mutable_values()->append(reinterpret_cast<const char*>(values + i * dim),
                               dim * sizeof(float));
  }
  std::vector<int> used;
  for (int s = 0; s < shards; ++s) {
    if (requests[s].ids().empty()) continue;
    used.push_back(s);
    requests[s].set_table(table);
    requests[s].set_trainer(impl_->trainer);
    requests[s].set_step(step);
  }
  impl_->call(used, "push", [&](int s, grpc::ClientContext* c, auto done) {
    impl_->stubs[s]->async()->PushSparse(c, &requests[s], &replies[s], done);
  });
}

void Client::pull_dense(const std::string& table, float* out) {
  const TableSpec& spec = impl_->spec(table);
  const int s = dense_shard_of(table, servers());
  proto::PullDenseRequest request;
  request.set_table(table);
  proto::PullDenseReply reply;
  impl_->call({s}, "dense pull", [&](int, grpc::ClientContext* c, auto done) {
    impl_->stubs[s]->async()->PullDense(c, &request, &reply, done);
  });
  SKIFF_CHECK(reply.values().size() == spec.size * sizeof(float), "parameter server ", s,
              " answered a pull of dense '", table, "' with ", reply.values().size(), " bytes for ",
              spec.size, " floats");
  std::memcpy(out, reply.values().data(), reply.values().size());
}

void Client::push_dense(const std::string& table, const float* values, int64_t step) {
  impl_->send_dense(table, values, step, "dense push", &Async::PushDense);
}

void Client::assign_dense(const std::string& table, const float* values) {
  impl_->send_dense(table, values, 0, "dense assign", &Async::AssignDense);
}

void Client::barrier(int64_t step) {
  proto::BarrierRequest request;
  request.set_trainer(impl_->trainer);
  request.set_step(step);
  impl_->on_every_server<proto::BarrierRequest, proto::Ack>("barrier", request, &Async::Barrier);
}

void Client::save(const std::string& folder) {
  proto::TablesRequest request;
  request.set_path(folder);
  impl_->on_every_server<proto::TablesRequest, proto::Ack>("save", request, &Async::Save);
}

void Client::load(const std::string& folder) {
  proto::TablesRequest request;
  request.set_path(folder);
  impl_->on_every_server<proto::TablesRequest, proto::Ack>("load", request, &Async::Load);
}

int64_t Client::shrink() {
  proto::Ack request;
  int64_t evicted = 0;
  for (const auto& r :
       impl_->on_every_server<proto::Ack, proto::ShrinkReply>("shrink", request, &Async::Shrink)) {
    evicted += r.evicted();
  }
  return evicted;
}

std::vector<TableInfo> Client::info() {
  proto::Ack request;
  const auto replies =
      impl_->on_every_server<proto::Ack, proto::InfoReply>("info", request, &Async::Info);
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

void Client::stop_servers() {
  proto::Ack request;
  impl_->on_every_server<proto::Ack, proto::Ack>("stop", request, &Async::Stop);
}

}  // namespace skiff::ps
