// When and how a parameter server (ps/server.cc) checkpoints its whole state: the
// checkpoint folder of its shard (CheckpointFolder), the time of the last checkpoint and
// the numbers written and restored. Not locked itself: the server calls it with its state
// mutex held and no push in flight.
//
//   ShardCheckpoints checkpoints(options);          // none when checkpoint_dir is empty
//   if (checkpoints.due()) checkpoints.write(state, tables, &ledger);
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "ps.pb.h"
#include "skiff/ps/checkpoint.h"
#include "skiff/ps/server.h"
#include "skiff/ps/shard_tables.h"
#include "skiff/ps/trainer_ledger.h"

namespace skiff::ps {

class ShardCheckpoints {
 public:
  explicit ShardCheckpoints(const ServerOptions& options);

  bool enabled() const { return folder_ != nullptr; }
  // A checkpoint is enabled and checkpoint_secs have passed since the last one.
  bool due() const;
  // Writes `state` (its number set here) with every table's files, marks what the
  // trainers sent durable in `ledger`, and restarts the clock.
  void write(proto::Checkpoint state, const ShardTables& tables, TrainerLedger* ledger);
  // The last complete checkpoint's state and folder; false when there is none (or
  // checkpoints are off).
  bool latest(proto::Checkpoint* state, std::string* dir) const;
  // The server resumed from checkpoint `number`.
  void restored_from(int64_t number) { number_ = restored_ = number; }
  // Counts from now to the next checkpoint.
  void restart_clock() { last_ = std::chrono::steady_clock::now(); }

  int64_t written() const { return written_; }
  int64_t restored() const { return restored_; }

 private:
  const double interval_secs_;
  std::unique_ptr<CheckpointFolder> folder_;
  std::chrono::steady_clock::time_point last_;
  int64_t number_ = 0, written_ = 0, restored_ = 0;
};

}  // namespace skiff::ps
