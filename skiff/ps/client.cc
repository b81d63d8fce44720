#include "skiff/ps/client.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "ps.grpc.pb.h"
#include "skiff/core/error.h"
#include "skiff/ps/id_index.h"
#include "skiff/ps/shard.h"
#include "skiff/ps/table_config.h"

namespace skiff::ps {
namespace {

template <typename T>
void set_bytes(const T* data, size_t n, std::string* out) {
  out->assign(reinterpret_cast<const char*>(data), n * sizeof(T));
}

using Async = proto::ParameterServer::StubInterface::async_interface;

// The kinds of state-changing requests a client may have to replay.
enum class Kind { kCreate, kPushSparse, kPushDense, kAssign, kBarrier };

// A request kept until the server's checkpoint holds it.
struct Logged {
  int64_t seq;
  Kind kind;
  std::string request;  // serialized, without the incarnation
};

// What the client knows of one server.
struct ServerView {
  // Written under Impl::stateful (recovery); read by pulls without it, so that a pull
  // never waits behind another thread's barrier.
  std::atomic<uint64_t> incarnation{0};
  bool checkpointing = false;
  int64_t next_seq = 1;
  int64_t pushes_sent = 0, recoveries = 0;
  std::deque<Logged> log;
};

bool restarted(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE ||
         (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION &&
          status.error_message() == "server restarted");
}

template <typename Request>
proto::Sequence* sequence_of(Request* request) {
  return request->mutable_sequence();
}

}  // namespace

struct Client::Impl {
  std::vector<std::string> endpoints;
  std::vector<std::unique_ptr<proto::ParameterServer::Stub>> stubs;
  int trainer = 0;
  double call_secs = 0, recover_secs = 60;
  std::mutex mutex;
  std::map<std::string, TableSpec> tables;  // created through this client
  // The servers' views; held with `stateful` by a trainer's state-changing calls (so that
  // each server gets them in number order) and by recovery.
  std::vector<ServerView> views;
  std::recursive_mutex stateful;

  const TableSpec& spec(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = tables.find(name);
    SKIFF_CHECK(it != tables.end(), "parameter server client: no table '", name,
                "' (create_table it first)");
    return it->second;
  }

  uint64_t incarnation(int s) const { return views[s].incarnation; }

  void set_deadline(grpc::ClientContext* context, double secs) const {
    if (secs > 0) {
      context->set_deadline(std::chrono::system_clock::now() +
                            std::chrono::microseconds(static_cast<int64_t>(secs * 1e6)));
    }
  }

  // Runs one asynchronous call per server in `servers` at once (`start(s, context,
  // on_done)` issues server s's call) and waits for all. A server that went away is
  // recovered (recover()) and its call issued again; other failures fail with every
  // server's error. A failure cancels the other calls of the moment, so that a trainer
  // never waits at a barrier while it holds up a peer: a lost server without checkpoints
  // ends the job at once; one that restarted is recovered (its requests replayed) and the
  // cancelled calls are issued again (state-changing ones are numbered, so each applies
  // once).
  template <typename Start>
  void call(const std::vector<int>& servers, const char* what, Start&& start) {
    std::vector<int> todo = servers;
    for (int attempt = 0; !todo.empty(); ++attempt) {
      std::vector<grpc::ClientContext> contexts(todo.size());
      std::vector<grpc::Status> statuses(todo.size());
      std::mutex done_mutex;
      std::condition_variable done_cv;
      size_t done = 0;
      bool cancelled = false, fatal_seen = false;
      for (size_t k = 0; k < todo.size(); ++k) {
        set_deadline(&contexts[k], call_secs);
        start(todo[k], &contexts[k], [&, k](grpc::Status status) {
          std::lock_guard<std::mutex> lock(done_mutex);
          // A server without checkpoints that fails ends the job; one with checkpoints that
          // went away is recovered before the others' calls are issued again (a peer may be
          // waiting at one of them for this trainer, which would otherwise not replay).
          const bool fatal = !status.ok() && !views[todo[k]].checkpointing;
          fatal_seen = fatal_seen || fatal;
          const bool cancel = fatal || (!status.ok() && restarted(status));
          statuses[k] = std::move(status);
          ++done;
          if (cancel && !cancelled) {
            cancelled = true;
            for (size_t j = 0; j < contexts.size(); ++j)
              if (j != k) contexts[j].TryCancel();
          }
          done_cv.notify_all();
        });
      }
      {
        std::unique_lock<std::mutex> lock(done_mutex);
        done_cv.wait(lock, [&] { return done == todo.size(); });
      }
      std::string errors;
      std::vector<int> again;
      for (size_t k = 0; k < todo.size(); ++k) {
        if (statuses[k].ok()) continue;
        if (cancelled && statuses[k].error_code() == grpc::StatusCode::CANCELLED) {
          if (!fatal_seen) again.push_back(todo[k]);  // (numbered: applied at most once)
          continue;
        }
        if (restarted(statuses[k]) && attempt < kMaxRecoveries) {
          recover(todo[k], statuses[k]);
          again.push_back(todo[k]);
          continue;
        }
        errors += str_cat(errors.empty() ? "" : "; ", "server ", todo[k], " (", endpoints[todo[k]],
                          "): ", statuses[k].error_message());
      }
      SKIFF_CHECK(errors.empty(), "parameter server ", what, " failed: ", errors);
      todo = std::move(again);
    }
  }

  std::vector<int> all() const {
    std::vector<int> out(stubs.size());
    for (size_t s = 0; s < out.size(); ++s) out[s] = static_cast<int>(s);
    return out;
  }

  template <typename Request, typename Reply>
  using AsyncMethod = void (proto::ParameterServer::StubInterface::async_interface::*)(
      grpc::ClientContext*, const Request*, Reply*, std::function<void(grpc::Status)>);

  // Numbers a state-changing request to server s and, when the server keeps checkpoints,
  // keeps it for replay. With `stateful` held.
  template <typename Request>
  void stamp(int s, Kind kind, Request* request) {
    ServerView& view = views[s];
    if (kind != Kind::kCreate && kind != Kind::kBarrier) ++view.pushes_sent;
    if (!view.checkpointing) return;
    sequence_of(request)->set_seq(view.next_seq++);
    view.log.push_back({sequence_of(request)->seq(), kind, request->SerializeAsString()});
  }

  // Forgets the requests to server s its checkpoint holds. With `stateful` held.
  void acknowledge(int s, const proto::Ack& ack) {
    std::deque<Logged>& log = views[s].log;
    while (!log.empty() && log.front().seq <= ack.durable()) log.pop_front();
  }

  // Sends state-changing requests (one per server in `servers`, of `kind`) through
  // `method` at once; each is numbered, kept for replay and re-sent after a recovery.
  template <typename Request>
  void send(const std::vector<int>& servers, std::vector<Request>& requests, Kind kind,
            const char* what, AsyncMethod<Request, proto::Ack> method) {
    std::lock_guard<std::recursive_mutex> lock(stateful);
    for (int s : servers) stamp(s, kind, &requests[s]);
    std::vector<proto::Ack> replies(requests.size());
    call(servers, what, [&](int s, grpc::ClientContext* c, auto done) {
      sequence_of(&requests[s])->set_incarnation(views[s].incarnation);
      (stubs[s]->async()->*method)(c, &requests[s], &replies[s], done);
    });
    for (int s : servers) acknowledge(s, replies[s]);
  }

  // Server s failed a call with `status`: waits for it to come back (up to recover_secs)
  // and, if it restarted, replays the requests its checkpoint lacks. Fails when the server
  // does not come back or kept no checkpoint.
  void recover(int s, const grpc::Status& status);
  // Asks server s for its state, waiting for it to be reachable until `deadline`.
  grpc::Status info(int s, std::chrono::system_clock::time_point deadline, proto::InfoReply* out);
  // Sends one kept request again, synchronously.
  grpc::Status resend(int s, const Logged& logged);

  // Dense tables' values to the servers holding them, one request per server (a push or an
  // assignment).
  void send_dense(const std::vector<std::string>& tables, const std::vector<const float*>& values,
                  int64_t step, Kind kind, const char* what,
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

  static constexpr int kMaxRecoveries = 5;
};

grpc::Status Client::Impl::info(int s, std::chrono::system_clock::time_point deadline,
                                proto::InfoReply* out) {
  // wait_for_ready covers waiting for a connection; a call that went out on a connection
  // the dying server then broke fails UNAVAILABLE and is tried again.
  while (true) {
    grpc::ClientContext context;
    context.set_wait_for_ready(true);
    context.set_deadline(deadline);
    proto::Ack request;
    grpc::Status status = stubs[s]->Info(&context, request, out);
    if (status.ok() || status.error_code() != grpc::StatusCode::UNAVAILABLE ||
        std::chrono::system_clock::now() >= deadline) {
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

grpc::Status Client::Impl::resend(int s, const Logged& logged) {
  grpc::ClientContext context;
  set_deadline(&context, call_secs);
  proto::Ack ack;
  const uint64_t incarnation = views[s].incarnation;
  auto parse = [&](auto& request) {
    SKIFF_CHECK(request.ParseFromString(logged.request),
                "parameter server client: a kept "
                "request does not parse");
    request.mutable_sequence()->set_incarnation(incarnation);
  };
  auto* stub = stubs[s].get();
  switch (logged.kind) {
    case Kind::kCreate: {
      proto::CreateTableRequest r;
      parse(r);
      return stub->CreateTable(&context, r, &ack);
    }
    case Kind::kPushSparse: {
      proto::PushSparseRequest r;
      parse(r);
      return stub->PushSparse(&context, r, &ack);
    }
    case Kind::kPushDense:
    case Kind::kAssign: {
      proto::PushDenseRequest r;
      parse(r);
      return logged.kind == Kind::kAssign ? stub->AssignDense(&context, r, &ack)
                                          : stub->PushDense(&context, r, &ack);
    }
    case Kind::kBarrier: {
      proto::BarrierRequest r;
      parse(r);
      return stub->Barrier(&context, r, &ack);
    }
  }
  return grpc::Status(grpc::StatusCode::INTERNAL, "unknown request kind");
}

void Client::Impl::recover(int s, const grpc::Status& status) {
  std::lock_guard<std::recursive_mutex> lock(stateful);
  ServerView& view = views[s];
  const std::string server = str_cat("parameter server ", s, " (", endpoints[s], ")");
  SKIFF_CHECK(view.checkpointing, server, " failed: ", status.error_message(),
              "; it keeps no checkpoints (start the servers with a checkpoint folder to survive "
              "a server's loss), so trainer ",
              trainer, " cannot go on");
  for (int attempt = 0; attempt < kMaxRecoveries; ++attempt) {
    const auto deadline = std::chrono::system_clock::now() +
                          std::chrono::microseconds(static_cast<int64_t>(recover_secs * 1e6));
    proto::InfoReply reply;
    const grpc::Status reached = info(s, deadline, &reply);
    SKIFF_CHECK(reached.ok(), server, " is gone (", status.error_message(),
                ") and did not come back within ", recover_secs, " s: ", reached.error_message());
    if (reply.incarnation() == view.incarnation) return;  // the same process: call again
    SKIFF_CHECK(reply.checkpointing(), server,
                " restarted without its checkpoint folder: its "
                "tables are lost, trainer ",
                trainer, " cannot go on");
    const auto progress = reply.trainers().find(trainer);
    const int64_t held = progress == reply.trainers().end() ? 0 : progress->second.seq();
    SKIFF_CHECK(view.log.empty() || view.log.front().seq <= held + 1, server,
                " restarted from checkpoint ", reply.restored(), ", which holds trainer ", trainer,
                "'s requests up to ", held, " but the trainer kept only those from ",
                view.log.empty() ? 0 : view.log.front().seq, " (an older checkpoint folder?)");
    view.incarnation = reply.incarnation();
    ++view.recoveries;
    grpc::Status replayed;
    size_t count = 0;
    for (const Logged& logged : view.log) {
      if (logged.seq <= held) continue;
      replayed = resend(s, logged);
      if (!replayed.ok()) break;
      ++count;
    }
    if (replayed.ok()) {
      std::fprintf(stderr,
                   "skiff ps: %s restarted from checkpoint %lld; trainer %d replayed %zu "
                   "request(s)\n",
                   server.c_str(), static_cast<long long>(reply.restored()), trainer, count);
      return;
    }
    SKIFF_CHECK(restarted(replayed), server, ": replaying trainer ", trainer,
                "'s requests failed: ", replayed.error_message());
  }
  fail(server, " kept failing while trainer ", trainer, " replayed its requests (", kMaxRecoveries,
       " attempts)");
}

void Client::Impl::send_dense(const std::vector<std::string>& tables,
                              const std::vector<const float*>& values, int64_t step, Kind kind,
                              const char* what,
                              AsyncMethod<proto::PushDenseRequest, proto::Ack> method) {
  SKIFF_CHECK(tables.size() == values.size(), "parameter server client: ", tables.size(),
              " dense tables and ", values.size(), " value arrays");
  std::vector<proto::PushDenseRequest> requests(stubs.size());
  std::vector<int> used;
  for (size_t i = 0; i < tables.size(); ++i) {
    const int64_t size = spec(tables[i]).size;
    const int s = dense_shard_of(tables[i], static_cast<int>(stubs.size()));
    proto::PushDenseRequest& request = requests[s];
    if (request.tables().empty()) {
      used.push_back(s);
      request.set_trainer(trainer);
      request.set_step(step);
    }
    proto::DenseValues* d = request.add_tables();
    d->set_table(tables[i]);
    set_bytes(values[i], static_cast<size_t>(size), d->mutable_values());
  }
  send(used, requests, kind, what, method);
}

Client::Client(std::vector<std::string> endpoints, int trainer, double connect_secs,
               double call_secs, double recover_secs)
    : impl_(std::make_unique<Impl>()) {
  SKIFF_CHECK(!endpoints.empty(), "parameter server client: no server endpoints");
  impl_->endpoints = std::move(endpoints);
  impl_->trainer = trainer;
  impl_->call_secs = call_secs;
  impl_->recover_secs = recover_secs;
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  // A restarted server is found within a second, not after gRPC's default backoff.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  const auto deadline = std::chrono::system_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(connect_secs * 1e3));
  std::string unreachable;
  impl_->views = std::vector<ServerView>(impl_->endpoints.size());
  for (size_t s = 0; s < impl_->endpoints.size(); ++s) {
    auto channel =
        grpc::CreateCustomChannel(impl_->endpoints[s], grpc::InsecureChannelCredentials(), args);
    impl_->stubs.push_back(proto::ParameterServer::NewStub(channel));
    proto::InfoReply reply;
    if (!channel->WaitForConnected(deadline) ||
        !impl_->info(static_cast<int>(s), deadline, &reply).ok()) {
      unreachable += (unreachable.empty() ? "" : ", ") + impl_->endpoints[s];
      continue;
    }
    impl_->views[s].incarnation = reply.incarnation();
    impl_->views[s].checkpointing = reply.checkpointing();
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
  request.set_trainer(impl_->trainer);
  std::vector<proto::CreateTableRequest> requests(impl_->stubs.size(), request);
  impl_->send(impl_->all(), requests, Kind::kCreate, "create_table", &Async::CreateTable);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->tables[spec.name] = spec;
}

void Client::pull_sparse(const std::string& table, const int64_t* ids, size_t n, float* out) {
  const int dim = impl_->spec(table).dim;
  const int shards = servers();
  // Each server gets its distinct ids once; `where[i]` finds id i's row in its reply.
  std::vector<std::vector<int64_t>> per_server(shards);
  std::vector<IdIndex> position(shards);
  std::vector<std::pair<int, size_t>> where(n);
  for (size_t i = 0; i < n; ++i) {
    const int s = shard_of(ids[i], shards);
    bool added = false;
    where[i] = {s, position[s].find_or_insert(ids[i], per_server[s].size(), &added)};
    if (added) per_server[s].push_back(ids[i]);
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
    requests[s].set_incarnation(impl_->incarnation(s));
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
  // Each server's ids and values, copied into bytes sized once.
  std::vector<int> server(n);
  std::vector<size_t> count(shards, 0), filled(shards, 0);
  for (size_t i = 0; i < n; ++i) ++count[server[i] = shard_of(ids[i], shards)];
  const size_t row_bytes = dim * sizeof(float);
  for (int s = 0; s < shards; ++s) {
    requests[s].mutable_ids()->resize(count[s] * sizeof(int64_t));
    requests[s].mutable_values()->resize(count[s] * row_bytes);
  }
  for (size_t i = 0; i < n; ++i) {
    proto::PushSparseRequest& r = requests[server[i]];
    const size_t k = filled[server[i]]++;
    std::memcpy(r.mutable_ids()->data() + k * sizeof(int64_t), ids + i, sizeof(int64_t));
    std::memcpy(r.mutable_values()->data() + k * row_bytes, values + i * dim, row_bytes);
  }
  std::vector<int> used;
  for (int s = 0; s < shards; ++s) {
    if (requests[s].ids().empty()) continue;
    used.push_back(s);
    requests[s].set_table(table);
    requests[s].set_trainer(impl_->trainer);
    requests[s].set_step(step);
  }
  impl_->send(used, requests, Kind::kPushSparse, "push", &Async::PushSparse);
}

void Client::pull_dense(const std::string& table, float* out) {
  pull_dense(std::vector<std::string>{table}, std::vector<float*>{out});
}

void Client::pull_dense(const std::vector<std::string>& tables, const std::vector<float*>& outs) {
  SKIFF_CHECK(tables.size() == outs.size(), "parameter server client: ", tables.size(),
              " dense tables and ", outs.size(), " outputs");
  const int shards = servers();
  std::vector<proto::PullDenseRequest> requests(shards);
  std::vector<std::vector<size_t>> asked(shards);  // indices into tables, by server
  std::vector<int> used;
  for (size_t i = 0; i < tables.size(); ++i) {
    impl_->spec(tables[i]);  // (a table this client created)
    const int s = dense_shard_of(tables[i], shards);
    if (asked[s].empty()) used.push_back(s);
    asked[s].push_back(i);
    requests[s].add_tables(tables[i]);
  }
  std::vector<proto::PullDenseReply> replies(shards);
  impl_->call(used, "dense pull", [&](int s, grpc::ClientContext* c, auto done) {
    requests[s].set_incarnation(impl_->incarnation(s));
    impl_->stubs[s]->async()->PullDense(c, &requests[s], &replies[s], done);
  });
  for (int s : used) {
    SKIFF_CHECK(replies[s].values_size() == static_cast<int>(asked[s].size()), "parameter server ",
                s, " answered a pull of ", asked[s].size(), " dense tables with ",
                replies[s].values_size());
    for (size_t k = 0; k < asked[s].size(); ++k) {
      const std::string& table = tables[asked[s][k]];
      const std::string& values = replies[s].values(static_cast<int>(k));
      const int64_t size = impl_->spec(table).size;
      SKIFF_CHECK(values.size() == size * sizeof(float), "parameter server ", s,
                  " answered a pull of dense '", table, "' with ", values.size(), " bytes for ",
                  size, " floats");
      std::memcpy(outs[asked[s][k]], values.data(), values.size());
    }
  }
}

void Client::push_dense(const std::string& table, const float* values, int64_t step) {
  push_dense(std::vector<std::string>{table}, std::vector<const float*>{values}, step);
}

void Client::push_dense(const std::vector<std::string>& tables,
                        const std::vector<const float*>& values, int64_t step) {
  impl_->send_dense(tables, values, step, Kind::kPushDense, "dense push", &Async::PushDense);
}

void Client::assign_dense(const std::string& table, const float* values) {
  impl_->send_dense(std::vector<std::string>{table}, std::vector<const float*>{values}, 0,
                    Kind::kAssign, "dense assign", &Async::AssignDense);
}

void Client::barrier(int64_t step) {
  proto::BarrierRequest request;
  request.set_trainer(impl_->trainer);
  request.set_step(step);
  std::vector<proto::BarrierRequest> requests(impl_->stubs.size(), request);
  impl_->send(impl_->all(), requests, Kind::kBarrier, "barrier", &Async::Barrier);
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

int64_t Client::shrink(double untouched_secs) {
  proto::ShrinkRequest request;
  request.set_untouched_secs(untouched_secs);
  int64_t evicted = 0;
  for (const auto& r : impl_->on_every_server<proto::ShrinkRequest, proto::ShrinkReply>(
           "shrink", request, &Async::Shrink)) {
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

std::vector<ServerProgress> Client::progress() {
  proto::Ack request;
  const auto replies =
      impl_->on_every_server<proto::Ack, proto::InfoReply>("info", request, &Async::Info);
  std::lock_guard<std::recursive_mutex> lock(impl_->stateful);
  std::vector<ServerProgress> out(replies.size());
  for (size_t s = 0; s < replies.size(); ++s) {
    const proto::InfoReply& r = replies[s];
    const ServerView& view = impl_->views[s];
    ServerProgress& p = out[s];
    p.endpoint = impl_->endpoints[s];
    p.incarnation = r.incarnation();
    p.checkpointing = r.checkpointing();
    p.checkpoints = r.checkpoints();
    p.restored = r.restored();
    const auto mine = r.trainers().find(impl_->trainer);
    p.pushes_applied = mine == r.trainers().end() ? 0 : mine->second.pushes();
    p.pushes_sent = view.pushes_sent;
    p.recoveries = view.recoveries;
    p.unacknowledged = static_cast<int64_t>(view.log.size());
  }
  return out;
}

void Client::stop_servers() {
  proto::Ack request;
  impl_->on_every_server<proto::Ack, proto::Ack>("stop", request, &Async::Stop);
}

}  // namespace skiff::ps
