// A trainer's side of the parameter servers: each sparse id goes to the server
// shard_of(id) holds, each dense table to dense_shard_of(name); calls to several
// servers run at once.
//
//   ps::Client client({"127.0.0.1:7001", "127.0.0.1:7002"}, /*trainer=*/0);
//   client.create_table(spec, ps::Mode::kSync, /*trainers=*/2);
//   client.pull_sparse("emb", ids, n, rows);          // rows: n x dim
//   client.push_sparse("emb", ids, n, grads, step);
//   client.barrier(step);                             // sync: the step is applied
//
// When the servers keep checkpoints, the client numbers its state-changing requests to each
// server and keeps those the server's last checkpoint does not hold yet; a server that
// restarts from its checkpoint gets them again (replayed, each applied once), so a server
// killed and restarted mid-job costs a pause, not the job. Without checkpoints a lost
// server ends the job with an error naming it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "skiff/ps/table_spec.h"

namespace skiff::ps {

struct TableInfo {
  std::string name;
  int64_t rows = 0, pulls = 0, pushes = 0, dropped_unadmitted = 0, evicted = 0;
};

// One server as this client sees it (for monitoring and tests).
struct ServerProgress {
  std::string endpoint;
  uint64_t incarnation = 0;    // changes when the server process restarts
  bool checkpointing = false;  // the server keeps checkpoints
  int64_t checkpoints = 0;     // written by the server's current process
  int64_t restored = 0;        // the checkpoint it started from (0: none)
  int64_t applied_step = 0;    // the last step every trainer met (none yet: INT64_MIN)
  int64_t pushes_applied = 0;  // this trainer's pushes and assignments it applied
  int64_t pushes_sent = 0;     // this client's pushes and assignments to it
  int64_t recoveries = 0;      // times this client replayed requests to a restarted server
  int64_t unacknowledged = 0;  // requests kept for replay
};

class Client {
 public:
  // Connects to every server, waiting up to `connect_secs` for each (then fails naming the
  // ones it could not reach); each call then fails after `call_secs` (0: no limit). A
  // server that goes away is waited for up to `recover_secs` to come back from its
  // checkpoint.
  Client(std::vector<std::string> endpoints, int trainer, double connect_secs = 10,
         double call_secs = 0, double recover_secs = 60);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  int servers() const;
  // Creates the table on every server (or checks it exists with the same spec) in a job of
  // `trainers` in `mode`, whose barriers fail after `barrier_timeout_secs` without every
  // trainer (0: no limit).
  void create_table(const TableSpec& spec, Mode mode, int trainers,
                    double barrier_timeout_secs = 300);
  // The rows of `ids` (n x dim floats into `out`; ids may repeat).
  void pull_sparse(const std::string& table, const int64_t* ids, size_t n, float* out);
  // Gradients (or geo deltas) of `ids`, n x dim floats, for `step` (sync mode).
  void push_sparse(const std::string& table, const int64_t* ids, size_t n, const float* values,
                   int64_t step = 0);
  void pull_dense(const std::string& table, float* out);
  void push_dense(const std::string& table, const float* values, int64_t step = 0);
  // Several dense tables at once: one call to each server holding some of them (a step's
  // dense tables travel together).
  void pull_dense(const std::vector<std::string>& tables, const std::vector<float*>& outs);
  void push_dense(const std::vector<std::string>& tables, const std::vector<const float*>& values,
                  int64_t step = 0);
  // Sets a dense table's values (trainer 0's initial parameters, as Paddle's init_worker).
  void assign_dense(const std::string& table, const float* values);
  // Returns once every trainer reached step `step` on every server (in sync mode, once
  // the step's update is applied); steps go forward.
  void barrier(int64_t step);
  // Every server writes (reads) its shard of every table in `folder`.
  void save(const std::string& folder);
  void load(const std::string& folder);
  // Evicts rows untouched for `untouched_secs` (when positive) or else for their table's
  // ttl_secs, on every server; returns how many.
  int64_t shrink(double untouched_secs = 0);
  // Each table's counts summed over the servers.
  std::vector<TableInfo> info();
  // Each server's state as seen by this client, in server order.
  std::vector<ServerProgress> progress();
  // Tells every server to stop.
  void stop_servers();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace skiff::ps
