#include "skiff/ps/server.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "ps.grpc.pb.h"
#include "skiff/core/error.h"
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
};

class Service final : public proto::ParameterServer::Service {
 public:
  explicit Service(const ServerOptions& options) : options_(options) {}

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
                           proto::Ack*) override {
    return guarded([&] {
      std::lock_guard<std::mutex> lock(mutex_);
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
        return;
      }
      auto table = std::make_unique<Table>();
      table->config = config;
      if (config.dense()) {
        table->dense = make_dense_table(config);
      } else {
        table->sparse = make_sparse_table(config);
      }
      tables_[config.name()] = std::move(table);
    });
  }

  grpc::Status PullSparse(grpc::ServerContext*, const proto::PullSparseRequest* request,
                          proto::PullSparseReply* reply) override {
    return guarded([&] {
      Table& table = sparse_table(request->table());
      const std::vector<int64_t> ids = array_of<int64_t>(request->ids());
      std::string* rows = reply->mutable_rows();
      rows->resize(ids.size() * table.config.dim() * sizeof(float));
      table.sparse->pull(ids.data(), ids.size(), reinterpret_cast<float*>(rows->data()));
    });
  }

  grpc::Status PushSparse(grpc::ServerContext*, const proto::PushSparseRequest* request,
                          proto::Ack*) override {
    return guarded([&] {
      Table& table = sparse_table(request->table());
      const std::vector<int64_t> ids = array_of<int64_t>(request->ids());
      const std::vector<float> values = array_of<float>(request->values());
      SKIFF_CHECK(values.size() == ids.size() * table.config.dim(), "parameter server table '",
                  request->table(), "' of dim ", table.config.dim(), ": a push of ", ids.size(),
                  " ids carries ", values.size(), " values (trainer ", request->trainer(), ")");
      switch (mode()) {
        case proto::SYNC: {
          check_not_applied(request->table(), request->step(), request->trainer());
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
  }

  grpc::Status PullDense(grpc::ServerContext*, const proto::PullDenseRequest* request,
                         proto::PullDenseReply* reply) override {
    return guarded([&] {
      Table& table = dense_table(request->table());
      std::string* values = reply->mutable_values();
      values->resize(table.config.size() * sizeof(float));
      table.dense->pull(reinterpret_cast<float*>(values->data()));
    });
  }

  grpc::Status PushDense(grpc::ServerContext*, const proto::PushDenseRequest* request,
                         proto::Ack*) override {
    return guarded([&] {
      Table& table = dense_table(request->table());
      const std::vector<float> values = dense_values(table, *request, "pushes");
      switch (mode()) {
        case proto::SYNC: {
          check_not_applied(request->table(), request->step(), request->trainer());
          std::lock_guard<std::mutex> lock(table.pending_mutex);
          Table::Pending& p = table.pending[request->step()];
          if (p.values.empty()) p.values.assign(values.size(), 0.f);
          for (size_t i = 0; i < values.size(); ++i) p.values[i] += values[i];
          break;
        }
        case proto::GEO:
          table.dense->push_delta(values.data());
          break;
        default:
          table.dense->push(values.data());
          break;
      }
    });
  }

  grpc::Status AssignDense(grpc::ServerContext*, const proto::PushDenseRequest* request,
                           proto::Ack*) override {
    return guarded([&] {
      Table& table = dense_table(request->table());
      table.dense->assign(dense_values(table, *request, "assigns").data());
    });
  }

  grpc::Status Barrier(grpc::ServerContext* context, const proto::BarrierRequest* request,
                       proto::Ack*) override {
    return guarded([&] {
      std::unique_lock<std::mutex> lock(mutex_);
      const int64_t step = request->step();
      if (step <= applied_step_) return;
      Meeting& meeting = meetings_[step];
      if (meeting.arrived.empty()) meeting.first = std::chrono::steady_clock::now();
      meeting.arrived.insert(request->trainer());
      if (static_cast<int>(meeting.arrived.size()) >= server_.trainers()) {
        apply_step(step);
        meetings_.erase(step);
        applied_step_ = step;
        changed_.notify_all();
        return;
      }
      const double timeout = server_.barrier_timeout_secs();
      while (applied_step_ < step) {
        SKIFF_CHECK(!stopping_, "parameter server ", options_.shard,
                    " stopped during the barrier of step ", step);
        SKIFF_CHECK(!context->IsCancelled(), "barrier of step ", step, " cancelled by trainer ",
                    request->trainer());
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
    });
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

  grpc::Status Shrink(grpc::ServerContext*, const proto::Ack*, proto::ShrinkReply* reply) override {
    return guarded([&] {
      const double now =
          std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
              .count();
      int64_t evicted = 0;
      for (auto& [name, table] : snapshot()) {
        if (table->sparse) evicted += static_cast<int64_t>(table->sparse->shrink(now));
      }
      reply->set_evicted(evicted);
    });
  }

  grpc::Status Info(grpc::ServerContext*, const proto::Ack*, proto::InfoReply* reply) override {
    return guarded([&] {
      reply->set_shard(options_.shard);
      reply->set_shards(options_.shards);
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
    } catch (const std::exception& e) {
      return invalid(e.what());
    }
  }

  // A dense request's values, checked to fill `table` (`verb`: what the trainer does).
  static std::vector<float> dense_values(const Table& table, const proto::PushDenseRequest& request,
                                         const char* verb) {
    std::vector<float> values = array_of<float>(request.values());
    SKIFF_CHECK(static_cast<int64_t>(values.size()) == table.config.size(),
                "parameter server dense table '", request.table(), "' of ", table.config.size(),
                " values: trainer ", request.trainer(), " ", verb, " ", values.size());
    return values;
  }

  // The trainers of the job not in `arrived`, as "1, 3".
  std::string missing_trainers(const std::set<int>& arrived) const {
    std::string out;
    for (int t = 0; t < server_.trainers(); ++t) {
      if (!arrived.count(t)) out += str_cat(out.empty() ? "" : ", ", t);
    }
    return out;
  }

  // Sync mode: a push for a step whose barrier has passed would never be applied.
  void check_not_applied(const std::string& table, int64_t step, int trainer) {
    std::lock_guard<std::mutex> lock(mutex_);
    SKIFF_CHECK(step > applied_step_, "parameter server ", options_.shard, " table '", table,
                "': trainer ", trainer, " pushes step ", step, " after step ", applied_step_,
                " was applied (sync steps go forward)");
  }

  proto::Mode mode() {
    std::lock_guard<std::mutex> lock(mutex_);
    return server_.mode();
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
