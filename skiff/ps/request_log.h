// The state-changing requests one trainer sent one parameter server, kept for fault
// tolerance (the trainer's side of the server's TrainerLedger): when the server keeps
// checkpoints, each request is numbered and kept until the server answers that its
// checkpoint holds it, so that a server restarted from that checkpoint gets the rest again
// (ServerCalls replays them). Not locked itself: ServerCalls holds its mutex for
// state-changing calls around every call.
//
//   RequestLog log(/*keeping=*/reply.checkpointing());
//   log.stamp(RequestKind::kPushSparse, &request);  // before sending it
//   log.acknowledge(ack.durable());                 // once the server answered
#pragma once

#include <cstdint>
#include <deque>
#include <string>

namespace skiff::ps {

// The kinds of state-changing requests a client may have to replay.
enum class RequestKind { kCreate, kPushSparse, kPushDense, kAssign, kBarrier };

class RequestLog {
 public:
  // A request kept until the server's checkpoint holds it.
  struct Kept {
    int64_t seq;
    RequestKind kind;
    std::string request;  // serialized, without the incarnation
  };

  // `keeping`: the server keeps checkpoints; without them requests are neither numbered nor
  // kept (a lost server cannot be recovered anyway). Numbers start at `first_seq`.
  explicit RequestLog(bool keeping = false, int64_t first_seq = 1)
      : keeping_(keeping), next_seq_(first_seq) {}

  bool keeping() const { return keeping_; }
  // Counts a push or an assignment and, when keeping, numbers `request` (a request with a
  // Sequence) and keeps it.
  template <typename Request>
  void stamp(RequestKind kind, Request* request) {
    if (kind != RequestKind::kCreate && kind != RequestKind::kBarrier) ++pushes_sent_;
    if (!keeping_) return;
    request->mutable_sequence()->set_seq(next_seq_++);
    kept_.push_back({request->sequence().seq(), kind, request->SerializeAsString()});
  }
  // Forgets the requests up to `durable`, the last one the server's checkpoint holds.
  void acknowledge(int64_t durable) {
    while (!kept_.empty() && kept_.front().seq <= durable) kept_.pop_front();
  }
  // The kept requests, oldest first.
  const std::deque<Kept>& kept() const { return kept_; }
  // The number of the oldest kept request (0: none is kept).
  int64_t first_kept() const { return kept_.empty() ? 0 : kept_.front().seq; }
  // The pushes and assignments sent to the server.
  int64_t pushes_sent() const { return pushes_sent_; }

 private:
  bool keeping_;
  int64_t next_seq_, pushes_sent_ = 0;
  std::deque<Kept> kept_;
};

}  // namespace skiff::ps
