#include "skiff/ps/server.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <vector>

#include "ps.grpc.pb.h"
#include "skiff/core/error.h"
#include "skiff/ps/shard_checkpoints.h"
#include "skiff/ps/shard_tables.h"
#include "skiff/ps/step_barrier.h"
#include "skiff/ps/table_config.h"
#include "skiff/ps/trainer_ledger.h"

namespace skiff::ps {
namespace {

template <typename T>
std::vector<T> array_of(const std::string& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

grpc::Status invalid(const std::string& message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message);
}

// The gRPC service: parses and checks each request, then applies it to the shard's tables
// (ShardTables) in the job's mode, sequencing each trainer's requests (TrainerLedger),
// meeting the trainers at each step's barrier (StepBarrier) and checkpointing the whole
// state (ShardCheckpoints). One mutex guards the state; pushes apply under a shared lock that a
// checkpoint takes alone.
class Service final : public proto::ParameterServer::Service {
 public:
  explicit Service(const ServerOptions& options)
      : options_(options), tables_(options_), ledger_(options.shard), checkpoints_(options) {
    if (checkpoints_.enabled()) restore();
    checkpoints_.restart_clock();
  }

  // Ends barrier waits and tells wait() to stop the server.
  void stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    changed_.notify_all();
  }
  void wait_for_stop() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return stopping_; });
  }

  grpc::Status CreateTable(grpc::ServerContext*, const proto::CreateTableRequest* request,
                           proto::Ack* reply) override {
    return guarded([&] {
      std::lock_guard<std::mutex> lock(mutex_);
      ledger_.accept(request->trainer(), request->sequence(), false);
      check_table_name(request->table().name());
      if (!configured_) {
        server_ = request->server();
        configured_ = true;
      } else {
        SKIFF_CHECK(server_.mode() == request->server().mode() &&
                        server_.trainers() == request->server().trainers() &&
                        server_.barrier_timeout_secs() == request->server().barrier_timeout_secs(),
                    "parameter server ", options_.shard, ": a trainer asks for mode ",
                    proto::Mode_Name(request->server().mode()), " with ",
                    request->server().trainers(), " trainers (barrier timeout ",
                    request->server().barrier_timeout_secs(), " s), the job runs ",
                    proto::Mode_Name(server_.mode()), " with ", server_.trainers(), " (",
                    server_.barrier_timeout_secs(), " s)");
      }
      const proto::TableConfig& config = request->table();
      if (const ShardTable* found = tables_.find(config.name())) {
        SKIFF_CHECK(same_config(found->config, config), "parameter server table '", config.name(),
                    "': created again with another configuration (", describe(config), " vs ",
                    describe(found->config), ")");
      } else {
        ShardTable& table = tables_.add(config);
        try {
          tables_.load_saved(table);
        } catch (...) {  // a table whose file could not be read is not made
          tables_.erase(config.name());
          throw;
        }
      }
      reply->set_durable(ledger_.durable(request->trainer()));
    });
  }

  grpc::Status PullSparse(grpc::ServerContext*, const proto::PullSparseRequest* request,
                          proto::PullSparseReply* reply) override {
    return guarded([&] {
      ledger_.check_incarnation(request->incarnation());
      ShardTable& table = sparse_table(request->table());
      const std::vector<int64_t> ids = array_of<int64_t>(request->ids());
      std::string* rows = reply->mutable_rows();
      rows->resize(ids.size() * table.config.dim() * sizeof(float));
      table.sparse->pull(ids.data(), ids.size(), reinterpret_cast<float*>(rows->data()));
    });
  }

  grpc::Status PushSparse(grpc::ServerContext*, const proto::PushSparseRequest* request,
                          proto::Ack* reply) override {
    return guarded([&] {
      ShardTable& table = sparse_table(request->table());
      const std::vector<int64_t> ids = array_of<int64_t>(request->ids());
      const std::vector<float> values = array_of<float>(request->values());
      SKIFF_CHECK(values.size() == ids.size() * table.config.dim(), "parameter server table '",
                  request->table(), "' of dim ", table.config.dim(), ": a push of ", ids.size(),
                  " ids carries ", values.size(), " values (trainer ", request->trainer(), ")");
      apply_push(*request, reply, [&](proto::Mode mode) {
        switch (mode) {
          case proto::SYNC: {
            std::lock_guard<std::mutex> lock(table.pending_mutex);
            ShardTable::Pending& p = table.pending[request->step()];
            p.ids.insert(p.ids.end(), ids.begin(), ids.end());
            p.values.insert(p.values.end(), values.begin(), values.end());
            break;
          }
          case proto::GEO:
            table.sparse->push_delta(ids.data(), ids.size(), values.data());
            break;
          default:
            table.sparse->push(ids.data(), ids.size(), values.data());
            break;
        }
      });
    });
  }

  grpc::Status PullDense(grpc::ServerContext*, const proto::PullDenseRequest* request,
                         proto::PullDenseReply* reply) override {
    return guarded([&] {
      ledger_.check_incarnation(request->incarnation());
      for (const std::string& name : request->tables()) {
        ShardTable& table = dense_table(name);
        std::string* values = reply->add_values();
        values->resize(table.config.size() * sizeof(float));
        table.dense->pull(reinterpret_cast<float*>(values->data()));
      }
    });
  }

  grpc::Status PushDense(grpc::ServerContext*, const proto::PushDenseRequest* request,
                         proto::Ack* reply) override {
    return guarded([&] {
      const auto tables = dense_values(*request, "pushes");
      apply_push(*request, reply, [&](proto::Mode mode) {
        for (auto& [table, values] : tables) {
          switch (mode) {
            case proto::SYNC: {
              std::lock_guard<std::mutex> lock(table->pending_mutex);
              ShardTable::Pending& p = table->pending[request->step()];
              if (p.values.empty()) p.values.assign(values.size(), 0.f);
              for (size_t i = 0; i < values.size(); ++i) p.values[i] += values[i];
              break;
            }
            case proto::GEO:
              table->dense->push_delta(values.data());
              break;
            default:
              table->dense->push(values.data());
              break;
          }
        }
      });
    });
  }

  grpc::Status AssignDense(grpc::ServerContext*, const proto::PushDenseRequest* request,
                           proto::Ack* reply) override {
    return guarded([&] {
      const auto tables = dense_values(*request, "assigns");
      apply_push(
          *request, reply,
          [&](proto::Mode) {
            for (auto& [table, values] : tables)
              if (!table->loaded) table->dense->assign(values.data());
          },
          /*stepped=*/false);
    });
  }

  grpc::Status Barrier(grpc::ServerContext* context, const proto::BarrierRequest* request,
                       proto::Ack* reply) override {
    return guarded([&] {
      std::unique_lock<std::mutex> lock(mutex_);
      // A replayed barrier is met again (arrivals are not kept in checkpoints).
      ledger_.accept(request->trainer(), request->sequence(), false);
      meet(context, *request, lock);
      reply->set_durable(ledger_.durable(request->trainer()));
    });
  }

  // Waits, with mutex_ held through `lock`, until every trainer reached the request's step;
  // in sync mode the last one to arrive applies the step (and may write a checkpoint).
  void meet(grpc::ServerContext* context, const proto::BarrierRequest& request,
            std::unique_lock<std::mutex>& lock) {
    const int64_t step = request.step();
    if (step <= applied_step_) return;
    if (barrier_.arrive(step, request.trainer(), server_.trainers())) {
      tables_.apply_step(step, server_.trainers());
      applied_step_ = step;
      // Nothing is pending now: every trainer waits here, so the state is whole.
      if (server_.mode() == proto::SYNC && checkpoints_.due()) write_checkpoint_locked();
      changed_.notify_all();
      return;
    }
    const double timeout = server_.barrier_timeout_secs();
    while (applied_step_ < step) {
      SKIFF_CHECK(!stopping_, "parameter server ", options_.shard,
                  " stopped during the barrier of step ", step);
      SKIFF_CHECK(!context->IsCancelled(), "barrier of step ", step, " cancelled by trainer ",
                  request.trainer());
      barrier_.check_timeout(step, timeout, server_.trainers(), options_.shard);
      changed_.wait_for(lock, std::chrono::milliseconds(50));
    }
  }

  grpc::Status Save(grpc::ServerContext*, const proto::TablesRequest* request,
                    proto::Ack*) override {
    return guarded([&] {
      for (auto& [name, table] : snapshot()) {
        table->save(tables_.shard_file(request->path(), name));
      }
    });
  }

  grpc::Status Load(grpc::ServerContext*, const proto::TablesRequest* request,
                    proto::Ack*) override {
    return guarded([&] {
      for (auto& [name, table] : snapshot()) {
        table->load(tables_.shard_file(request->path(), name));
      }
    });
  }

  grpc::Status Shrink(grpc::ServerContext*, const proto::ShrinkRequest* request,
                      proto::ShrinkReply* reply) override {
    return guarded([&] {
      const double now =
          std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
              .count();
      int64_t evicted = 0;
      for (auto& [name, table] : snapshot()) {
        if (table->sparse) {
          evicted += static_cast<int64_t>(table->sparse->shrink(now, request->untouched_secs()));
        }
      }
      reply->set_evicted(evicted);
    });
  }

  grpc::Status Info(grpc::ServerContext*, const proto::Ack*, proto::InfoReply* reply) override {
    return guarded([&] {
      reply->set_shard(options_.shard);
      reply->set_shards(options_.shards);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        reply->set_incarnation(ledger_.incarnation());
        reply->set_checkpointing(checkpoints_.enabled());
        reply->set_checkpoints(checkpoints_.written());
        reply->set_restored(checkpoints_.restored());
        reply->set_applied_step(applied_step_);
        for (const auto& [trainer, progress] : ledger_.progress())
          (*reply->mutable_trainers())[trainer] = progress;
      }
      for (auto& [name, table] : snapshot()) {
        proto::TableStats* s = reply->add_tables();
        s->set_name(name);
        if (table->sparse) fill_stats(*table->sparse, s);
      }
    });
  }

  grpc::Status Stop(grpc::ServerContext*, const proto::Ack*, proto::Ack*) override {
    stop();
    return grpc::Status::OK;
  }

 private:
  // Runs `body`, answering a skiff::Error (or any exception) as an error status.
  template <typename Body>
  grpc::Status guarded(Body&& body) {
    try {
      body();
      return grpc::Status::OK;
    } catch (const Restarted& e) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, e.what());
    } catch (const std::exception& e) {
      return invalid(e.what());
    }
  }

  // A dense request's values, checked to fill `table` (`verb`: what the trainer does).
  // Each dense table of a push or assignment with its values, checked against its size.
  std::vector<std::pair<ShardTable*, std::vector<float>>> dense_values(
      const proto::PushDenseRequest& request, const char* verb) {
    std::vector<std::pair<ShardTable*, std::vector<float>>> out;
    for (const proto::DenseValues& d : request.tables()) {
      ShardTable& table = dense_table(d.table());
      std::vector<float> values = array_of<float>(d.values());
      SKIFF_CHECK(static_cast<int64_t>(values.size()) == table.config.size(),
                  "parameter server dense table '", d.table(), "' of ", table.config.size(),
                  " values: trainer ", request.trainer(), " ", verb, " ", values.size());
      out.emplace_back(&table, std::move(values));
    }
    return out;
  }

  // "table 'emb'", "tables 'fc.w', 'fc.b'": what a push is for, in messages.
  static std::string tables_of(const proto::PushSparseRequest& request) {
    return str_cat("table '", request.table(), "'");
  }
  static std::string tables_of(const proto::PushDenseRequest& request) {
    std::string names;
    for (const proto::DenseValues& d : request.tables())
      names += str_cat(names.empty() ? "" : ", ", "'", d.table(), "'");
    return str_cat(request.tables_size() == 1 ? "table " : "tables ", names);
  }

  // Applies a push or assignment (`apply(mode)`) unless it is a replay of one already
  // applied; a sync push must be for a step not yet applied. In async and geo mode a
  // checkpoint may follow.
  template <typename Request, typename Apply>
  void apply_push(const Request& request, proto::Ack* reply, Apply&& apply, bool stepped = true) {
    {
      std::shared_lock<std::shared_mutex> state(state_mutex_);
      proto::Mode mode;
      bool fresh;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        mode = server_.mode();
        SKIFF_CHECK(!stepped || mode != proto::SYNC || request.step() > applied_step_,
                    "parameter server ", options_.shard, " ", tables_of(request), ": trainer ",
                    request.trainer(), " pushes step ", request.step(), " after step ",
                    applied_step_, " was applied (sync steps go forward)");
        fresh = ledger_.accept(request.trainer(), request.sequence(), true);
      }
      if (fresh) apply(mode);
    }
    bool due;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      due = server_.mode() != proto::SYNC && checkpoints_.due();
    }
    if (due) {  // the state lock waits for the pushes in flight
      std::unique_lock<std::shared_mutex> state(state_mutex_);
      std::lock_guard<std::mutex> lock(mutex_);
      if (checkpoints_.due()) write_checkpoint_locked();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    reply->set_durable(ledger_.durable(request.trainer()));
  }

  // Writes a checkpoint of the whole state, with mutex_ held and no push in flight.
  void write_checkpoint_locked() {
    proto::Checkpoint state;
    state.set_configured(configured_);
    *state.mutable_server() = server_;
    for (auto& [name, table] : tables_.list()) {
      *state.add_tables() = table->config;
      if (table->loaded) state.add_loaded_tables(name);
    }
    for (const auto& [trainer, progress] : ledger_.progress())
      (*state.mutable_trainers())[trainer] = progress;
    state.set_applied_step(applied_step_);
    checkpoints_.write(std::move(state), tables_, &ledger_);
  }

  // Starts from the last checkpoint in the folder, if any.
  void restore() {
    proto::Checkpoint state;
    std::string dir;
    if (!checkpoints_.latest(&state, &dir)) return;
    configured_ = state.configured();
    server_ = state.server();
    for (const proto::TableConfig& config : state.tables()) {
      tables_.add(config);
      tables_.load_checkpoint(dir, config.name());
    }
    for (const std::string& name : state.loaded_tables()) {
      if (ShardTable* table = tables_.find(name)) table->loaded = true;
    }
    ledger_.restore(state);
    applied_step_ = state.applied_step();
    checkpoints_.restored_from(state.number());
    std::fprintf(stderr, "skiff ps server %d/%d: restored checkpoint %lld from %s\n",
                 options_.shard, options_.shards, static_cast<long long>(state.number()),
                 dir.c_str());
  }

  ShardTable& sparse_table(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    return tables_.sparse(name);
  }
  ShardTable& dense_table(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    return tables_.dense(name);
  }
  std::vector<std::pair<std::string, ShardTable*>> snapshot() {
    std::lock_guard<std::mutex> lock(mutex_);
    return tables_.list();
  }

  const ServerOptions options_;
  std::mutex mutex_;
  std::condition_variable changed_;
  ShardTables tables_;
  proto::ServerConfig server_;
  bool configured_ = false;
  StepBarrier barrier_;
  int64_t applied_step_ = INT64_MIN;  // the last step every trainer met (and, sync, applied)
  bool stopping_ = false;
  TrainerLedger ledger_;
  // Pushes hold it shared while they apply; a checkpoint holds it alone. Taken before mutex_.
  std::shared_mutex state_mutex_;
  ShardCheckpoints checkpoints_;
};

}  // namespace

struct Server::Impl {
  explicit Impl(const ServerOptions& options) : service(options) {}
  Service service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::once_flag shut;
};

Server::Server(const ServerOptions& options) : impl_(std::make_unique<Impl>(options)) {
  SKIFF_CHECK(options.shards >= 1 && options.shard >= 0 && options.shard < options.shards,
              "parameter server: shard ", options.shard, " of ", options.shards);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.address, grpc::InsecureServerCredentials(), &impl_->port);
  builder.RegisterService(&impl_->service);
  builder.SetMaxReceiveMessageSize(-1);
  builder.SetMaxSendMessageSize(-1);
  impl_->server = builder.BuildAndStart();
  SKIFF_CHECK(impl_->server && impl_->port > 0, "parameter server: cannot listen on ",
              options.address);
}

Server::~Server() { shutdown(); }

int Server::port() const { return impl_->port; }

void Server::wait() {
  impl_->service.wait_for_stop();
  shutdown();
}

void Server::shutdown() {
  std::call_once(impl_->shut, [&] {
    impl_->service.stop();
    impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  });
}

}  // namespace skiff::ps
