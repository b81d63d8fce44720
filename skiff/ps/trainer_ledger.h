// What a parameter server (ps/server.cc) took from each trainer, for fault tolerance:
// the server's random incarnation (a request for an earlier one means the server
// restarted), each trainer's last request taken and pushes applied, and the last request
// the newest checkpoint holds ("durable": the trainer may forget what came before it).
// Not locked itself: the server holds its state mutex around every call.
//
//   TrainerLedger ledger(shard);
//   if (ledger.accept(trainer, request.sequence(), /*push=*/true)) apply(request);
//   reply->set_durable(ledger.durable(trainer));
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>

#include "ps.pb.h"

namespace skiff::ps {

// A request meant for an earlier incarnation of this server: the trainer must replay what
// the restored checkpoint lacks before anything else.
struct Restarted : std::runtime_error {
  Restarted() : std::runtime_error("server restarted") {}
};

class TrainerLedger {
 public:
  // `shard` names the server in errors.
  explicit TrainerLedger(int shard);

  uint64_t incarnation() const { return incarnation_; }
  // Throws Restarted for a request of another incarnation (0: any).
  void check_incarnation(uint64_t incarnation) const;
  // Takes a state-changing request of `trainer` numbered by `sequence` (seq 0: not
  // numbered); false for a replay of one already taken (not to be applied again). Throws
  // skiff::Error when requests between were lost.
  bool accept(int trainer, const proto::Sequence& sequence, bool push);
  // The last request of `trainer` the newest checkpoint holds.
  int64_t durable(int trainer) { return durable_[trainer]; }
  // A checkpoint of the current state was written: everything taken is durable.
  void mark_durable();
  const std::map<int, proto::TrainerProgress>& progress() const { return progress_; }
  // Starts from a checkpoint's progress (all of it durable).
  void restore(const proto::Checkpoint& state);

 private:
  const int shard_;
  const uint64_t incarnation_;
  std::map<int, proto::TrainerProgress> progress_;
  std::map<int, int64_t> durable_;
};

}  // namespace skiff::ps
