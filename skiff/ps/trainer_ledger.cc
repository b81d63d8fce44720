#include "skiff/ps/trainer_ledger.h"

#include <chrono>
#include <random>

#include "skiff/core/error.h"

namespace skiff::ps {

namespace {

uint64_t new_incarnation() {
  std::random_device device;
  const uint64_t time =
      static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  return ((static_cast<uint64_t>(device()) << 32) ^ device() ^ time) | 1;  // never 0
}

}  // namespace

TrainerLedger::TrainerLedger(int shard) : shard_(shard), incarnation_(new_incarnation()) {}

void TrainerLedger::check_incarnation(uint64_t incarnation) const {
  if (incarnation != 0 && incarnation != incarnation_) throw Restarted();
}

bool TrainerLedger::accept(int trainer, const proto::Sequence& sequence, bool push) {
  check_incarnation(sequence.incarnation());
  if (sequence.seq() == 0) return true;
  proto::TrainerProgress& progress = progress_[trainer];
  if (sequence.seq() <= progress.seq()) return false;
  SKIFF_CHECK(sequence.seq() == progress.seq() + 1, "parameter server ", shard_, ": request ",
              sequence.seq(), " of trainer ", trainer, " follows request ", progress.seq(),
              "; the ones between are lost (did the trainer restart?)");
  progress.set_seq(sequence.seq());
  if (push) progress.set_pushes(progress.pushes() + 1);
  return true;
}

void TrainerLedger::mark_durable() {
  for (const auto& [trainer, progress] : progress_) durable_[trainer] = progress.seq();
}

void TrainerLedger::restore(const proto::Checkpoint& state) {
  for (const auto& [trainer, progress] : state.trainers()) {
    progress_[trainer] = progress;
    durable_[trainer] = progress.seq();
  }
}

}  // namespace skiff::ps
