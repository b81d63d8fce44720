#include "skiff/ps/server.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <shared_mutex>
#include <stdexcept>
#include <vector>

#include "ps.grpc.pb.h"
#include "skiff/core/error.h"
#include "skiff/ps/checkpoint.h"
#include "skiff/ps/dense_table.h"
#include "skiff/ps/sparse_table.h"
#include "skiff/ps/table_config.h"

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

// A request meant for an earlier incarnation of this server: the trainer must replay what
// the restored checkpoint lacks before anything else.
struct Restarted : std::runtime_error {
  Restarted() : std::runtime_error("server restarted") {}
};

uint64_t new_incarnation() {
  std::random_device device;
  const uint64_t time =
      static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  return ((static_cast<uint64_t>(device()) << 32) ^ device() ^ time) | 1;  // never 0
}

// Table names become file names in checkpoints and saved folders.
void check_table_name(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 200 && name[0] != '.';
  for (char c : name) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-');
  }
  SKIFF_CHECK(ok, "parameter server: table name '", name,
              "' (letters, digits, '_', '.', '-'; not starting with '.')");
}

// One table's shard, and (sync mode) the pushes of each step waiting for the barrier.
struct Table {
  proto::TableConfig config;
  std::unique_ptr<SparseTable> sparse;
  std::unique_ptr<DenseTable> dense;
  struct Pending {
    std::vector<int64_t> ids;
    std::vector<float> values;  // sparse: rows in ids' order; dense: the summed gradient
  };
  std::map<int64_t, Pending> pending;  // by step
  std::mutex pending_mutex;
  bool loaded = false;  // started from the load folder
};

class Service final : public proto::ParameterServer::Service {
 public:
  explicit Service(const ServerOptions& options)
      : options_(options), incarnation_(new_incarnation()) {
    if (!options.load_dir.empty()) check_load_dir();
    if (!options.checkpoint_dir.empty()) {
      checkpoints_ = std::make_unique<CheckpointFolder>(
          str_cat(options.checkpoint_dir, "/shard", options.shard, "-of-", options.shards));
      restore();
    }
    last_checkpoint_ = std::chrono::steady_clock::now();
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
      accept_locked(request->trainer(), request->sequence(), false);
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
      auto found = tables_.find(config.name());
      if (found != tables_.end()) {
        SKIFF_CHECK(same_config(found->second->config, config), "parameter server table '",
                    config.name(), "': created again with another configuration (",
                    describe(config), " vs ", describe(found->second->config), ")");
      } else {
        Table& table = add_table(config);
        try {
          load_saved(table);
        } catch (...) {  // a table whose file could not be read is not made
          tables_.erase(config.name());
          throw;
        }
      }
      reply->set_durable(durable_[request->trainer()]);
    });
  }

  grpc::Status PullSparse(grpc::ServerContext*, const proto::PullSparseRequest* request,
                          proto::PullSparseReply* reply) override {
    return guarded([&] {
      check_incarnation(request->incarnation());
      Table& table = sparse_table(request->table());
      const std::vector<int64_t> ids = array_of<int64_t>(request->ids());
      std::string* rows = reply->mutable_rows();
      rows->resize(ids.size() * table.config.dim() * sizeof(float));
      table.sparse->pull(ids.data(), ids.size(), reinterpret_cast<float*>(rows->data()));
    });
  }

  grpc::Status PushSparse(grpc::ServerContext*, const proto::PushSparseRequest* request,
                          proto::Ack* reply) override {
    return guarded([&] {
      Table& table = sparse_table(request->table());
      const std::vector<int64_t> ids = array_of<int64_t>(request->ids());
      const std::vector<float> values = array_of<float>(request->values());
      SKIFF_CHECK(values.size() == ids.size() * table.config.dim(), "parameter server table '",
                  request->table(), "' of dim ", table.config.dim(), ": a push of ", ids.size(),
                  " ids carries ", values.size(), " values (trainer ", request->trainer(), ")");
      apply_push(*request, reply, [&](proto::Mode mode) {
        switch (mode) {
          case proto::SYNC: {
            std::lock_guard<std::mutex> lock(table.pending_mutex);
            Table::Pending& p = table.pending[request->step()];
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
      check_incarnation(request->incarnation());
      for (const std::string& name : request->tables()) {
        Table& table = dense_table(name);
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
              Table::Pending& p = table->pending[request->step()];
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
      accept_locked(request->trainer(), request->sequence(), false);
      meet(context, *request, lock);
      reply->set_durable(durable_[request->trainer()]);
    });
  }

  // Waits, with mutex_ held through `lock`, until every trainer reached the request's step;
  // in sync mode the last one to arrive applies the step (and may write a checkpoint).
  void meet(grpc::ServerContext* context, const proto::BarrierRequest& request,
            std::unique_lock<std::mutex>& lock) {
    const int64_t step = request.step();
    if (step <= applied_step_) return;
    Meeting& meeting = meetings_[step];
    if (meeting.arrived.empty()) meeting.first = std::chrono::steady_clock::now();
    meeting.arrived.insert(request.trainer());
    if (static_cast<int>(meeting.arrived.size()) >= server_.trainers()) {
      apply_step(step);
      meetings_.erase(step);
      applied_step_ = step;
      // Nothing is pending now: every trainer waits here, so the state is whole.
      if (server_.mode() == proto::SYNC && checkpoint_due()) write_checkpoint_locked();
      changed_.notify_all();
      return;
    }
    const double timeout = server_.barrier_timeout_secs();
    while (applied_step_ < step) {
      SKIFF_CHECK(!stopping_, "parameter server ", options_.shard,
                  " stopped during the barrier of step ", step);
      SKIFF_CHECK(!context->IsCancelled(), "barrier of step ", step, " cancelled by trainer ",
                  request.trainer());
      auto it = meetings_.find(step);
      if (it != meetings_.end() && timeout > 0 &&
          std::chrono::steady_clock::now() - it->second.first >
              std::chrono::duration<double>(timeout)) {
        const std::string missing = missing_trainers(it->second.arrived);
        meetings_.erase(it);  // (the others waiting here fail the same way)
        failed_steps_[step] = missing;
      }
      if (auto failed = failed_steps_.find(step); failed != failed_steps_.end()) {
        fail("parameter server ", options_.shard, ": trainer(s) ", failed->second,
             " did not reach the barrier of step ", step, " within ", timeout,
             " s (dead or stuck?); the step is not applied");
      }
      changed_.wait_for(lock, std::chrono::milliseconds(50));
    }
  }

  grpc::Status Save(grpc::ServerContext*, const proto::TablesRequest* request,
                    proto::Ack*) override {
    return guarded([&] {
      for (auto& [name, table] : snapshot()) {
        const std::string path = shard_file(request->path(), name);
        if (table->sparse) table->sparse->save(path);
        if (table->dense) table->dense->save(path);
      }
    });
  }

  grpc::Status Load(grpc::ServerContext*, const proto::TablesRequest* request,
                    proto::Ack*) override {
    return guarded([&] {
      for (auto& [name, table] : snapshot()) {
        const std::string path = shard_file(request->path(), name);
        if (table->sparse) table->sparse->load(path);
        if (table->dense) table->dense->load(path);
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
        reply->set_incarnation(incarnation_);
        reply->set_checkpointing(checkpoints_ != nullptr);
        reply->set_checkpoints(checkpoints_written_);
        reply->set_restored(restored_);
        for (const auto& [trainer, progress] : progress_)
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
  std::vector<std::pair<Table*, std::vector<float>>> dense_values(
      const proto::PushDenseRequest& request, const char* verb) {
    std::vector<std::pair<Table*, std::vector<float>>> out;
    for (const proto::DenseValues& d : request.tables()) {
      Table& table = dense_table(d.table());
      std::vector<float> values = array_of<float>(d.values());
      SKIFF_CHECK(static_cast<int64_t>(values.size()) == table.config.size(),
                  "parameter server dense table '", d.table(), "' of ", table.config.size(),
                  " values: trainer ", request.trainer(), " ", verb, " ", values.size());
      out.emplace_back(&table, std::move(values));
    }
    return out;
  }

  // The trainers of the job not in `arrived`, as "1, 3".
  std::string missing_trainers(const std::set<int>& arrived) const {
    std::string out;
    for (int t = 0; t < server_.trainers(); ++t) {
      if (!arrived.count(t)) out += str_cat(out.empty() ? "" : ", ", t);
    }
    return out;
  }

  void check_incarnation(uint64_t incarnation) {
    if (incarnation != 0 && incarnation != incarnation_) throw Restarted();
  }

  // Takes a state-changing request of `trainer` numbered by `sequence`, with mutex_ held;
  // false for a replay of one already taken (not to be applied again).
  bool accept_locked(int trainer, const proto::Sequence& sequence, bool push) {
    check_incarnation(sequence.incarnation());
    if (sequence.seq() == 0) return true;
    proto::TrainerProgress& progress = progress_[trainer];
    if (sequence.seq() <= progress.seq()) return false;
    SKIFF_CHECK(sequence.seq() == progress.seq() + 1, "parameter server ", options_.shard,
                ": request ", sequence.seq(), " of trainer ", trainer, " follows request ",
                progress.seq(), "; the ones between are lost (did the trainer restart?)");
    progress.set_seq(sequence.seq());
    if (push) progress.set_pushes(progress.pushes() + 1);
    return true;
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
        fresh = accept_locked(request.trainer(), request.sequence(), true);
      }
      if (fresh) apply(mode);
    }
    bool due;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      due = server_.mode() != proto::SYNC && checkpoint_due();
    }
    if (due) {  // the state lock waits for the pushes in flight
      std::unique_lock<std::shared_mutex> state(state_mutex_);
      std::lock_guard<std::mutex> lock(mutex_);
      if (checkpoint_due()) write_checkpoint_locked();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    reply->set_durable(durable_[request.trainer()]);
  }

  bool checkpoint_due() const {
    return checkpoints_ && std::chrono::steady_clock::now() - last_checkpoint_ >=
                               std::chrono::duration<double>(options_.checkpoint_secs);
  }

  // Writes a checkpoint of the whole state, with mutex_ held and no push in flight.
  void write_checkpoint_locked() {
    proto::Checkpoint state;
    state.set_number(checkpoint_number_ + 1);
    state.set_configured(configured_);
    *state.mutable_server() = server_;
    for (const auto& [name, table] : tables_) {
      *state.add_tables() = table->config;
      if (table->loaded) state.add_loaded_tables(name);
    }
    for (const auto& [trainer, progress] : progress_)
      (*state.mutable_trainers())[trainer] = progress;
    state.set_applied_step(applied_step_);
    checkpoints_->write(state, [&](const std::string& dir) {
      for (const auto& [name, table] : tables_) {
        const std::string path = dir + "/table." + name;
        if (table->sparse) table->sparse->save(path);
        if (table->dense) table->dense->save(path);
      }
    });
    checkpoint_number_ = state.number();
    ++checkpoints_written_;
    for (const auto& [trainer, progress] : progress_) durable_[trainer] = progress.seq();
    last_checkpoint_ = std::chrono::steady_clock::now();
  }

  // Starts from the last checkpoint in the folder, if any.
  void restore() {
    proto::Checkpoint state;
    std::string dir;
    if (!checkpoints_->latest(&state, &dir)) return;
    configured_ = state.configured();
    server_ = state.server();
    for (const proto::TableConfig& config : state.tables()) {
      Table& table = add_table(config);
      const std::string path = dir + "/table." + config.name();
      if (table.sparse) table.sparse->load(path);
      if (table.dense) table.dense->load(path);
    }
    for (const std::string& name : state.loaded_tables()) {
      auto it = tables_.find(name);
      if (it != tables_.end()) it->second->loaded = true;
    }
    for (const auto& [trainer, progress] : state.trainers()) {
      progress_[trainer] = progress;
      durable_[trainer] = progress.seq();
    }
    applied_step_ = state.applied_step();
    checkpoint_number_ = restored_ = state.number();
    std::fprintf(stderr, "skiff ps server %d/%d: restored checkpoint %lld from %s\n",
                 options_.shard, options_.shards, static_cast<long long>(state.number()),
                 dir.c_str());
  }

  // The load folder must hold table files of this shard of a job of as many servers.
  void check_load_dir() const {
    namespace fs = std::filesystem;
    const std::string& dir = options_.load_dir;
    std::error_code error;
    SKIFF_CHECK(fs::is_directory(dir, error), "parameter server ", options_.shard,
                ": the load folder '", dir, "' is not a folder");
    const std::string mine = str_cat(".shard", options_.shard, "-of-", options_.shards);
    std::string other;
    for (const auto& entry : fs::directory_iterator(dir, error)) {
      const std::string name = entry.path().filename().string();
      if (name.size() > mine.size() &&
          name.compare(name.size() - mine.size(), mine.size(), mine) == 0)
        return;
      const size_t at = name.rfind(".shard");
      if (at != std::string::npos && other.empty()) other = name.substr(at + 1);
    }
    fail("parameter server ", options_.shard, ": the load folder '", dir,
         "' holds no table saved by shard ", options_.shard, " of ", options_.shards,
         other.empty() ? std::string(" (no table files at all)")
                       : str_cat(" (it holds files such as '", other,
                                 "': saved by a job of another number of servers)"));
  }

  // A new table starts from its file in the load folder, if there is one (and it is one
  // of load_tables, when given).
  void load_saved(Table& table) {
    const std::string& name = table.config.name();
    const auto& only = options_.load_tables;
    if (options_.load_dir.empty() ||
        (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()))
      return;
    const std::string path = shard_file(options_.load_dir, name);
    if (!std::filesystem::exists(path)) {
      std::fprintf(stderr, "skiff ps server %d/%d: table '%s' is not in %s: it starts fresh\n",
                   options_.shard, options_.shards, name.c_str(), options_.load_dir.c_str());
      return;
    }
    if (table.sparse) table.sparse->load(path);
    if (table.dense) table.dense->load(path);
    table.loaded = true;
  }

  Table& add_table(const proto::TableConfig& config) {
    auto table = std::make_unique<Table>();
    table->config = config;
    if (config.dense()) {
      table->dense = make_dense_table(config);
    } else {
      table->sparse = make_sparse_table(config);
    }
    return *(tables_[config.name()] = std::move(table));
  }

  Table& find_table(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = tables_.find(name);
    SKIFF_CHECK(it != tables_.end(), "parameter server ", options_.shard, " has no table '", name,
                "' (create it first)");
    return *it->second;
  }
  Table& sparse_table(const std::string& name) {
    Table& t = find_table(name);
    SKIFF_CHECK(t.sparse, "parameter server table '", name, "' is dense, not sparse");
    return t;
  }
  Table& dense_table(const std::string& name) {
    Table& t = find_table(name);
    SKIFF_CHECK(t.dense, "parameter server table '", name, "' is sparse, not dense");
    return t;
  }

  std::vector<std::pair<std::string, Table*>> snapshot() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::pair<std::string, Table*>> out;
    for (auto& [name, table] : tables_) out.emplace_back(name, table.get());
    return out;
  }

  std::string shard_file(const std::string& folder, const std::string& table) const {
    return str_cat(folder, "/", table, ".shard", options_.shard, "-of-", options_.shards);
  }

  // Sync mode, with mutex_ held: the average of the trainers' pushes of `step`, applied.
  void apply_step(int64_t step) {
    const float scale = 1.f / static_cast<float>(server_.trainers());
    for (auto& [name, table] : tables_) {
      std::lock_guard<std::mutex> lock(table->pending_mutex);
      auto it = table->pending.find(step);
      if (it == table->pending.end()) continue;
      Table::Pending& p = it->second;
      for (float& v : p.values) v *= scale;
      if (table->sparse) {
        table->sparse->push(p.ids.data(), p.ids.size(), p.values.data());
      } else if (!p.values.empty()) {
        table->dense->push(p.values.data());
      }
      table->pending.erase(it);
    }
  }

  const ServerOptions options_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::unique_ptr<Table>> tables_;
  proto::ServerConfig server_;
  bool configured_ = false;
  // The trainers at each step's barrier, since when; steps whose barrier timed out, with
  // the trainers that never came.
  struct Meeting {
    std::set<int> arrived;
    std::chrono::steady_clock::time_point first;
  };
  std::map<int64_t, Meeting> meetings_;
  std::map<int64_t, std::string> failed_steps_;
  int64_t applied_step_ = INT64_MIN;  // the last step every trainer met (and, sync, applied)
  bool stopping_ = false;
  // Fault tolerance: this process's random incarnation; each trainer's last request taken
  // and pushes applied, and its last request held by the newest checkpoint.
  const uint64_t incarnation_;
  std::map<int, proto::TrainerProgress> progress_;
  std::map<int, int64_t> durable_;
  // Pushes hold it shared while they apply; a checkpoint holds it alone. Taken before mutex_.
  std::shared_mutex state_mutex_;
  std::unique_ptr<CheckpointFolder> checkpoints_;
  std::chrono::steady_clock::time_point last_checkpoint_;
  int64_t checkpoint_number_ = 0, checkpoints_written_ = 0, restored_ = 0;
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
