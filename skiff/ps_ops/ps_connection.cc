#include "skiff/ps_ops/ps_connection.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <utility>

#include "skiff/core/error.h"
#include "skiff/ps_ops/ps_geo.h"

namespace skiff {

struct PsOpsConnection {
  // Ops hold it shared for a call; connecting and disconnecting hold it exclusively.
  std::shared_mutex mutex;
  ps::Client* client = nullptr;
  std::map<std::string, int64_t> widths;
  std::atomic<int64_t> step{0};
  std::unique_ptr<PsGeo> geo;  // geo mode's local copies; null in sync and async mode
};

namespace {

// Every connection by handle. Entries are never removed (a closed one keeps no client), so
// an op's pointer stays valid; never destroyed: ops may run during exit.
struct Registry {
  std::mutex mutex;
  std::map<int64_t, std::unique_ptr<PsOpsConnection>> connections;
  int64_t next = 1;
};

Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

// Connection `handle`, made (empty) when `create`; nullptr for an unknown one otherwise.
PsOpsConnection* find(int64_t handle, bool create) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.connections.find(handle);
  if (it != r.connections.end()) return it->second.get();
  if (!create) return nullptr;
  return (r.connections[handle] = std::make_unique<PsOpsConnection>()).get();
}

}  // namespace

void connect_ps_ops(ps::Client* client, std::map<std::string, int64_t> table_widths,
                    int64_t first_step, int64_t handle) {
  SKIFF_CHECK(client, "connect_ps_ops: no client given");
  PsOpsConnection& c = *find(handle, true);
  std::unique_lock<std::shared_mutex> lock(c.mutex);
  c.client = client;
  c.widths = std::move(table_widths);
  c.step = first_step;
  c.geo.reset();
}

int64_t open_ps_ops_connection(ps::Client* client) {
  int64_t handle;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    handle = r.next++;
  }
  connect_ps_ops(client, {}, 0, handle);
  return handle;
}

void add_ps_ops_table(int64_t handle, const std::string& table, int64_t width) {
  PsOpsConnection* c = find(handle, false);
  SKIFF_CHECK(c, "add_ps_ops_table: no connection ", handle);
  std::unique_lock<std::shared_mutex> lock(c->mutex);
  c->widths[table] = width;
}

void disconnect_ps_ops(int64_t handle) {
  PsOpsConnection* c = find(handle, false);
  if (!c) return;
  std::unique_lock<std::shared_mutex> lock(c->mutex);
  c->client = nullptr;
  c->widths.clear();
  c->geo.reset();
}

int64_t ps_ops_step(int64_t handle) {
  PsOpsConnection* c = find(handle, false);
  return c ? c->step.load() : 0;
}

void set_ps_ops_geo(int64_t handle, int trainers,
                    std::map<std::string, std::vector<float>> dense_bases) {
  PsOpsConnection* c = find(handle, false);
  SKIFF_CHECK(c, "set_ps_ops_geo: no connection ", handle);
  std::unique_lock<std::shared_mutex> lock(c->mutex);
  c->geo = std::make_unique<PsGeo>(trainers, std::move(dense_bases));
}

void ps_ops_geo_sync(int64_t handle, const std::map<std::string, std::pair<float*, int64_t>>& dense,
                     bool final) {
  PsConnectionRef ps("ps_ops_geo_sync", handle);
  std::vector<PsGeo::Dense> values;
  for (const auto& [table, data] : dense) {
    ps.check_width(table, data.second, "in all");
    values.push_back({table, data.first, data.second});
  }
  ps.geo().sync(ps.client(), values, ps.step(), final);
}

PsConnectionRef::PsConnectionRef(const char* op, int64_t handle)
    : connection_(find(handle, true)), lock_(connection_->mutex), op_(op) {
  SKIFF_CHECK(connection_->client, op,
              handle == 0
                  ? ": no parameter-server connection; call fleet.init_worker() / "
                    "skiff.distributed.ps.program.init_worker(connection) first"
                  : ": parameter-server connection " + std::to_string(handle) + " is closed");
}

ps::Client& PsConnectionRef::client() const { return *connection_->client; }

void PsConnectionRef::check_width(const std::string& table, int64_t want, const char* what) const {
  const auto& widths = connection_->widths;
  auto it = widths.find(table);
  SKIFF_CHECK(it != widths.end(), op_, ": table '", table,
              "' was not created by init_worker (this connection has ", widths.size(),
              " tables); split the program with DistributedMinimizer before init_worker");
  SKIFF_CHECK(it->second == want, op_, ": table '", table, "' has ", it->second, " floats ", what,
              " but the op uses ", want);
}

PsGeo& PsConnectionRef::geo() const {
  SKIFF_CHECK(connection_->geo, op_,
              ": the parameter-server connection is not in geo mode (a program split for geo "
              "mode needs init_worker on a geo connection)");
  return *connection_->geo;
}

int64_t PsConnectionRef::step() const { return connection_->step; }

int64_t PsConnectionRef::end_step() { return connection_->step++; }

}  // namespace skiff
