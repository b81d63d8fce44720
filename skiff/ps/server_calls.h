// A trainer's calls to the parameter servers (ps/client.cc): a channel to each server,
// calls to several servers at once, and the recovery of a server that went away: one that
// restarted from its checkpoint gets the requests of its RequestLog the checkpoint lacks
// again; a lost server without checkpoints ends the job with an error naming it.
//
//   ServerCalls calls(endpoints, trainer, connect_secs, call_secs, recover_secs);
//   calls.ask(servers, pulls, replies, "pull", &ServerCalls::Async::PullSparse);
//   calls.send(servers, pushes, RequestKind::kPushSparse, "push", &ServerCalls::Async::PushSparse);
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ps.grpc.pb.h"
#include "skiff/ps/client.h"
#include "skiff/ps/request_log.h"

namespace skiff::ps {

class ServerCalls {
 public:
  using Async = proto::ParameterServer::StubInterface::async_interface;
  // An asynchronous method of the servers' stub (&Async::PullSparse, ...).
  template <typename Request, typename Reply>
  using AsyncMethod = void (Async::*)(grpc::ClientContext*, const Request*, Reply*,
                                      std::function<void(grpc::Status)>);
  // Issues server s's call on `context`; the call hands its status to `done`.
  using Start = std::function<void(int s, grpc::ClientContext* context,
                                   std::function<void(grpc::Status)> done)>;

  // Connects to every server, waiting up to `connect_secs` for each (then fails naming the
  // ones it could not reach); each call then fails after `call_secs` (0: no limit). A server
  // that goes away is waited for up to `recover_secs` to come back from its checkpoint.
  ServerCalls(std::vector<std::string> endpoints, int trainer, double connect_secs,
              double call_secs, double recover_secs);

  int servers() const { return static_cast<int>(stubs_.size()); }
  // Every server's index, in order.
  std::vector<int> all() const;

  // Runs one asynchronous call per server in `servers` at once and waits for all. A server
  // that went away is recovered and its call issued again; other failures fail with every
  // server's error. A failure cancels the other calls of the moment, so that a trainer
  // never waits at a barrier while it holds up a peer: a lost server without checkpoints
  // ends the job at once; one that restarted is recovered (its requests replayed) and the
  // cancelled calls are issued again (state-changing ones are numbered, so each applies
  // once).
  void call(const std::vector<int>& servers, const char* what, const Start& start);

  // Reads (pulls), one request per server in `servers` (requests and replies indexed by
  // server), at once; each carries the server incarnation this client knows, so that a
  // restarted server answers only once this trainer's requests are replayed. They do not
  // wait behind another thread's state-changing calls.
  template <typename Request, typename Reply>
  void ask(const std::vector<int>& servers, std::vector<Request>& requests,
           std::vector<Reply>& replies, const char* what, AsyncMethod<Request, Reply> method) {
    call(servers, what, [&](int s, grpc::ClientContext* c, std::function<void(grpc::Status)> done) {
      requests[s].set_incarnation(views_[s].incarnation);
      (stubs_[s]->async()->*method)(c, &requests[s], &replies[s], std::move(done));
    });
  }

  // Sends state-changing requests of `kind` (one per server in `servers`, indexed by server)
  // at once; each is numbered, kept for replay and re-sent after a recovery. A trainer's
  // state-changing calls go one at a time, so that each server gets them in number order.
  template <typename Request>
  void send(const std::vector<int>& servers, std::vector<Request>& requests, RequestKind kind,
            const char* what, AsyncMethod<Request, proto::Ack> method) {
    std::lock_guard<std::recursive_mutex> lock(stateful_);
    for (int s : servers) views_[s].log.stamp(kind, &requests[s]);
    std::vector<proto::Ack> replies(requests.size());
    call(servers, what, [&](int s, grpc::ClientContext* c, std::function<void(grpc::Status)> done) {
      requests[s].mutable_sequence()->set_incarnation(views_[s].incarnation);
      (stubs_[s]->async()->*method)(c, &requests[s], &replies[s], std::move(done));
    });
    for (int s : servers) views_[s].log.acknowledge(replies[s].durable());
  }

  // The same request (neither numbered nor kept) to every server at once; their replies in
  // server order.
  template <typename Request, typename Reply>
  std::vector<Reply> on_every_server(const char* what, const Request& request,
                                     AsyncMethod<Request, Reply> method) {
    std::vector<Reply> replies(stubs_.size());
    call(all(), what, [&](int s, grpc::ClientContext* c, std::function<void(grpc::Status)> done) {
      (stubs_[s]->async()->*method)(c, &request, &replies[s], std::move(done));
    });
    return replies;
  }

  // Each server's state as seen by this client, in server order.
  std::vector<ServerProgress> progress();

 private:
  // What the client knows of one server.
  struct ServerView {
    // Written under `stateful_` (recovery); read by pulls without it, so that a pull never
    // waits behind another thread's barrier.
    std::atomic<uint64_t> incarnation{0};
    RequestLog log;  // with `stateful_` held
    int64_t recoveries = 0;
  };

  // Server s failed a call with `status`: waits for it to come back (up to recover_secs)
  // and, if it restarted, replays the requests its checkpoint lacks. Fails when the server
  // does not come back or kept no checkpoint.
  void recover(int s, const grpc::Status& status);
  // Asks server s for its state, waiting for it to be reachable until `deadline`.
  grpc::Status info(int s, std::chrono::system_clock::time_point deadline, proto::InfoReply* out);
  // Sends one kept request again, synchronously.
  grpc::Status resend(int s, const RequestLog::Kept& kept);

  const std::vector<std::string> endpoints_;
  const int trainer_;
  const double call_secs_, recover_secs_;
  std::vector<std::unique_ptr<proto::ParameterServer::Stub>> stubs_;
  // Held with `stateful_` by a trainer's state-changing calls (so that each server gets them
  // in number order), by recovery and by progress().
  std::vector<ServerView> views_;
  std::recursive_mutex stateful_;
};

}  // namespace skiff::ps
