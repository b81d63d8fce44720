// Where a parameter server's trainers meet at each step (ps/server.cc's Barrier): who
// arrived since when, and the steps whose barrier timed out, with the trainers that never
// came. Not locked itself: the server holds its state mutex around every call and does
// the waiting.
//
//   if (barrier.arrive(step, trainer, trainers)) apply(step);      // the last one
//   else while (!applied(step)) { barrier.check_timeout(step, timeout, trainers, shard); wait(); }
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace skiff::ps {

class StepBarrier {
 public:
  // `trainer` reached `step`; true when it is the last of the job's `trainers` (the
  // meeting is over).
  bool arrive(int64_t step, int trainer, int trainers);
  // Throws skiff::Error naming the trainers that did not come when the meeting of `step`
  // has lasted past `timeout_secs` (> 0; 0: no limit), for this waiter and every other.
  void check_timeout(int64_t step, double timeout_secs, int trainers, int shard);

 private:
  struct Meeting {
    std::set<int> arrived;
    std::chrono::steady_clock::time_point first;
  };
  std::map<int64_t, Meeting> meetings_;
  std::map<int64_t, std::string> failed_steps_;
};

}  // namespace skiff::ps
