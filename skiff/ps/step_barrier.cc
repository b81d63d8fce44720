#include "skiff/ps/step_barrier.h"

#include "skiff/core/error.h"

namespace skiff::ps {

namespace {

// The trainers of the job not in `arrived`, as "1, 3".
std::string missing_trainers(const std::set<int>& arrived, int trainers) {
  std::string out;
  for (int t = 0; t < trainers; ++t) {
    if (!arrived.count(t)) out += str_cat(out.empty() ? "" : ", ", t);
  }
  return out;
}

}  // namespace

bool StepBarrier::arrive(int64_t step, int trainer, int trainers) {
  Meeting& meeting = meetings_[step];
  if (meeting.arrived.empty()) meeting.first = std::chrono::steady_clock::now();
  meeting.arrived.insert(trainer);
  if (static_cast<int>(meeting.arrived.size()) < trainers) return false;
  // Earlier meetings still open were left by trainers that died waiting: every trainer
  // is past them now.
  meetings_.erase(meetings_.begin(), meetings_.upper_bound(step));
  return true;
}

void StepBarrier::check_timeout(int64_t step, double timeout_secs, int trainers, int shard) {
  auto it = meetings_.find(step);
  if (it != meetings_.end() && timeout_secs > 0 &&
      std::chrono::steady_clock::now() - it->second.first >
          std::chrono::duration<double>(timeout_secs)) {
    const std::string missing = missing_trainers(it->second.arrived, trainers);
    meetings_.erase(it);  // (the others waiting here fail the same way)
    failed_steps_[step] = missing;
  }
  if (auto failed = failed_steps_.find(step); failed != failed_steps_.end()) {
    fail("parameter server ", shard, ": trainer(s) ", failed->second,
         " did not reach the barrier of step ", step, " within ", timeout_secs,
         " s (dead or stuck?); the step is not applied");
  }
}

}  // namespace skiff::ps
