// The parameter-server connection the ps_* ops of this process use: a ps::Client set by
// the frontend once the tables exist (skiff.distributed.ps.program.init_worker), the width
// of each table the ops may touch, and the step counter that ps_barrier advances.
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

// Makes `client` (not owned: it must outlive disconnect_ps_ops) the connection of the ps
// ops, with the width of each table they may use (floats per row of a sparse table, floats
// of a dense one: the ops check their buffers against it before the client writes them),
// and numbers the next step `first_step`. Replaces an earlier connection once the ops
// using it have returned.
void connect_ps_ops(ps::Client* client, std::map<std::string, int64_t> table_widths,
                    int64_t first_step);
// Forgets the connection once the ops using it have returned; ps ops then fail.
void disconnect_ps_ops();
// The step the ps ops push gradients for now (the one the next ps_barrier ends).
int64_t ps_ops_step();

// An op's hold on the connection for the length of its call: disconnect_ps_ops waits for
// it, so the client cannot go away under a call.
class PsConnectionRef {
 public:
  // Throws skiff::Error "<op>: no parameter-server connection; ..." when none is set.
  explicit PsConnectionRef(const char* op);

  ps::Client& client() const;
  // The registered width of `table`; throws naming the op and the table when it differs
  // from `want` (or the table was not created by init_worker).
  void check_width(const std::string& table, int64_t want, const char* what) const;
  int64_t step() const;
  // Ends the current step: returns its number and numbers the next one.
  int64_t end_step();

 private:
  std::shared_lock<std::shared_mutex> lock_;
  const char* op_;
};

}  // namespace skiff
