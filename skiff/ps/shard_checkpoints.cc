#include "skiff/ps/shard_checkpoints.h"

#include "skiff/core/error.h"

namespace skiff::ps {

ShardCheckpoints::ShardCheckpoints(const ServerOptions& options)
    : interval_secs_(options.checkpoint_secs), last_(std::chrono::steady_clock::now()) {
  if (!options.checkpoint_dir.empty()) {
    folder_ = std::make_unique<CheckpointFolder>(
        str_cat(options.checkpoint_dir, "/shard", options.shard, "-of-", options.shards));
  }
}

bool ShardCheckpoints::due() const {
  return folder_ &&
         std::chrono::steady_clock::now() - last_ >= std::chrono::duration<double>(interval_secs_);
}

void ShardCheckpoints::write(proto::Checkpoint state, const ShardTables& tables,
                             TrainerLedger* ledger) {
  state.set_number(number_ + 1);
  folder_->write(state, [&](const std::string& dir) { tables.save_checkpoint(dir); });
  number_ = state.number();
  ++written_;
  ledger->mark_durable();
  restart_clock();
}

bool ShardCheckpoints::latest(proto::Checkpoint* state, std::string* dir) const {
  return folder_ && folder_->latest(state, dir);
}

}  // namespace skiff::ps
