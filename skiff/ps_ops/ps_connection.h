// The parameter-server connections the ps_* ops of this process use, by handle (the ops'
// `connection` attr): 0 is a split program's, set by the frontend once the tables exist
// (skiff.distributed.ps.program.init_worker); eager layers open their own (each
// skiff.distributed.ps.Connection one). A connection is a ps::Client, the width of each
// table the ops may touch, and the step counter that ps_barrier advances.
//
//   ps::Client client(endpoints, /*trainer=*/0);
//   client.create_table(spec, ps::Mode::kSync, /*trainers=*/2);   // every table
//   connect_ps_ops(&client, {{"emb", 8}, {"fc.w", 512}}, /*first_step=*/0);
//   exe.run(trainer_program, &scope);   // ps_pull_sparse ... ps_barrier
//   disconnect_ps_ops();
#pragma once

#include <cstdint>
#include <map>
#include <shared_mutex>
#include <string>

namespace skiff {

namespace ps {
class Client;
}

// Makes `client` (not owned: it must outlive disconnect_ps_ops) connection `handle` of the
// ps ops, with the width of each table they may use (floats per row of a sparse table,
// floats of a dense one: the ops check their buffers against it before the client writes
// them), and numbers the next step `first_step`. Replaces an earlier client once the ops
// using it have returned.
void connect_ps_ops(ps::Client* client, std::map<std::string, int64_t> table_widths,
                    int64_t first_step, int64_t handle = 0);
// A new handle (above 0) connected to `client`, with no tables yet.
int64_t open_ps_ops_connection(ps::Client* client);
// Lets the ops of connection `handle` use `table` of `width` floats (per row, or in all).
void add_ps_ops_table(int64_t handle, const std::string& table, int64_t width);
// Forgets connection `handle`'s client once the ops using it have returned; its ops then
// fail.
void disconnect_ps_ops(int64_t handle = 0);
// The step connection `handle`'s ops push gradients for now (the one the next ps_barrier
// ends).
int64_t ps_ops_step(int64_t handle = 0);

struct PsOpsConnection;  // (ps_connection.cc)

// An op's hold on the connection for the length of its call: disconnect_ps_ops waits for
// it, so the client cannot go away under a call.
class PsConnectionRef {
 public:
  // Throws skiff::Error "<op>: no parameter-server connection; ..." when `handle` has no
  // client.
  PsConnectionRef(const char* op, int64_t handle);

  ps::Client& client() const;
  // The registered width of `table`; throws naming the op and the table when it differs
  // from `want` (or the table was not created by init_worker).
  void check_width(const std::string& table, int64_t want, const char* what) const;
  int64_t step() const;
  // Ends the current step: returns its number and numbers the next one.
  int64_t end_step();

 private:
  PsOpsConnection* connection_;
  std::shared_lock<std::shared_mutex> lock_;
  const char* op_;
};

}  // namespace skiff
