#include "skiff/ps_ops/ps_connection.h"

#include <atomic>
#include <mutex>
#include <utility>

#include "skiff/core/error.h"

namespace skiff {

namespace {

struct Connection {
  // Ops hold it shared for a call; connecting and disconnecting hold it exclusively.
  std::shared_mutex mutex;
  ps::Client* client = nullptr;
  std::map<std::string, int64_t> widths;
  std::atomic<int64_t> step{0};
};

Connection& connection() {
  static Connection* c = new Connection;  // never destroyed: ops may run during exit
  return *c;
}

}  // namespace

void connect_ps_ops(ps::Client* client, std::map<std::string, int64_t> table_widths,
                    int64_t first_step) {
  SKIFF_CHECK(client, "connect_ps_ops: no client given");
  Connection& c = connection();
  std::unique_lock<std::shared_mutex> lock(c.mutex);
  c.client = client;
  c.widths = std::move(table_widths);
  c.step = first_step;
}

void disconnect_ps_ops() {
  Connection& c = connection();
  std::unique_lock<std::shared_mutex> lock(c.mutex);
  c.client = nullptr;
  c.widths.clear();
}

int64_t ps_ops_step() { return connection().step; }

PsConnectionRef::PsConnectionRef(const char* op) : lock_(connection().mutex), op_(op) {
  SKIFF_CHECK(connection().client, op,
              ": no parameter-server connection; call fleet.init_worker() / "
              "skiff.distributed.ps.program.init_worker(connection) first");
}

ps::Client& PsConnectionRef::client() const { return *connection().client; }

void PsConnectionRef::check_width(const std::string& table, int64_t want, const char* what) const {
  const auto& widths = connection().widths;
  auto it = widths.find(table);
  SKIFF_CHECK(it != widths.end(), op_, ": table '", table,
              "' was not created by init_worker (this connection has ", widths.size(),
              " tables); split the program with DistributedMinimizer before init_worker");
  SKIFF_CHECK(it->second == want, op_, ": table '", table, "' has ", it->second, " floats ", what,
              " but the op uses ", want);
}

int64_t PsConnectionRef::step() const { return connection().step; }

int64_t PsConnectionRef::end_step() { return connection().step++; }

}  // namespace skiff
