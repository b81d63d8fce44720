// The parameter-server connections the ps_* ops of this process use, by handle (the ops'
// `connection` attr): 0 is a split program's, set by the frontend once the tables exist
// (skiff.distributed.ps.program.init_worker); eager layers open their own (each
// skiff.distributed.ps.Connection one). A connection is a ps::Client, the width of each
// table the ops may touch, the step counter that ps_barrier advances and, in geo mode, the
// trainer's local copies (ps_geo.h).
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
#include <utility>
#include <vector>

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
// Puts connection `handle` in geo mode (ps_geo.h) for a job of `trainers`: its geo ops
// train local copies; `dense_bases` holds each dense table's values as the trainer pulled
// them into its parameters. Disconnecting drops the copies.
void set_ps_ops_geo(int64_t handle, int trainers,
                    std::map<std::string, std::vector<float>> dense_bases);
// A geo sync of connection `handle` outside the program (ps_geo_step does them every k
// steps): `dense` maps each dense table to the trainer's values and their count (the
// table's width), written in place. `final`, after the last step: sends the share of what
// moved and drops the carries, pulling nothing.
void ps_ops_geo_sync(int64_t handle, const std::map<std::string, std::pair<float*, int64_t>>& dense,
                     bool final);

class PsGeo;
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
  // The connection's geo state; throws naming the op when it is not in geo mode.
  PsGeo& geo() const;

 private:
  PsOpsConnection* connection_;
  std::shared_lock<std::shared_mutex> lock_;
  const char* op_;
};

}  // namespace skiff
