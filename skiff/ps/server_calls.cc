#include "skiff/ps/server_calls.h"

#include <condition_variable>
#include <cstdio>
#include <thread>

#include "skiff/core/error.h"

namespace skiff::ps {
namespace {

// How many times a call to one server is tried again after the server went away.
constexpr int kMaxRecoveries = 5;

// The server is unreachable, or answers as a new process (a request meant for its earlier
// incarnation): one that keeps checkpoints is recovered.
bool restarted(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE ||
         (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION &&
          status.error_message() == "server restarted");
}

void set_deadline(grpc::ClientContext* context, double secs) {
  if (secs > 0) {
    context->set_deadline(std::chrono::system_clock::now() +
                          std::chrono::microseconds(static_cast<int64_t>(secs * 1e6)));
  }
}

}  // namespace

ServerCalls::ServerCalls(std::vector<std::string> endpoints, int trainer, double connect_secs,
                         double call_secs, double recover_secs)
    : endpoints_(std::move(endpoints)),
      trainer_(trainer),
      call_secs_(call_secs),
      recover_secs_(recover_secs),
      views_(endpoints_.size()) {
  SKIFF_CHECK(!endpoints_.empty(), "parameter server client: no server endpoints");
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  // A restarted server is found within a second, not after gRPC's default backoff.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  const auto deadline = std::chrono::system_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(connect_secs * 1e3));
  std::string unreachable;
  for (size_t s = 0; s < endpoints_.size(); ++s) {
    auto channel =
        grpc::CreateCustomChannel(endpoints_[s], grpc::InsecureChannelCredentials(), args);
    stubs_.push_back(proto::ParameterServer::NewStub(channel));
    proto::InfoReply reply;
    if (!channel->WaitForConnected(deadline) || !info(static_cast<int>(s), deadline, &reply).ok()) {
      unreachable += (unreachable.empty() ? "" : ", ") + endpoints_[s];
      continue;
    }
    views_[s].incarnation = reply.incarnation();
    // A trainer whose process started again numbers its requests after those the server
    // holds from the one before (else they would be taken for replays and dropped).
    const auto held = reply.trainers().find(trainer);
    views_[s].log = RequestLog(reply.checkpointing(),
                               held == reply.trainers().end() ? 1 : held->second.seq() + 1);
  }
  SKIFF_CHECK(unreachable.empty(), "parameter server client (trainer ", trainer, "): cannot reach ",
              unreachable, " within ", connect_secs, " s");
}

std::vector<int> ServerCalls::all() const {
  std::vector<int> out(stubs_.size());
  for (size_t s = 0; s < out.size(); ++s) out[s] = static_cast<int>(s);
  return out;
}

void ServerCalls::call(const std::vector<int>& servers, const char* what, const Start& start) {
  std::vector<int> todo = servers;
  for (int attempt = 0; !todo.empty(); ++attempt) {
    std::vector<grpc::ClientContext> contexts(todo.size());
    std::vector<grpc::Status> statuses(todo.size());
    std::mutex done_mutex;
    std::condition_variable done_cv;
    size_t done = 0;
    bool cancelled = false, fatal_seen = false;
    for (size_t k = 0; k < todo.size(); ++k) {
      set_deadline(&contexts[k], call_secs_);
      start(todo[k], &contexts[k], [&, k](grpc::Status status) {
        std::lock_guard<std::mutex> lock(done_mutex);
        // A server without checkpoints that fails ends the job; one with checkpoints that
        // went away is recovered before the others' calls are issued again (a peer may be
        // waiting at one of them for this trainer, which would otherwise not replay).
        const bool fatal = !status.ok() && !views_[todo[k]].log.keeping();
        fatal_seen = fatal_seen || fatal;
        const bool cancel = fatal || (!status.ok() && restarted(status));
        statuses[k] = std::move(status);
        ++done;
        if (cancel && !cancelled) {
          cancelled = true;
          for (size_t j = 0; j < contexts.size(); ++j)
            if (j != k) contexts[j].TryCancel();
        }
        done_cv.notify_all();
      });
    }
    {
      std::unique_lock<std::mutex> lock(done_mutex);
      done_cv.wait(lock, [&] { return done == todo.size(); });
    }
    std::string errors;
    std::vector<int> again;
    for (size_t k = 0; k < todo.size(); ++k) {
      if (statuses[k].ok()) continue;
      if (cancelled && statuses[k].error_code() == grpc::StatusCode::CANCELLED) {
        if (!fatal_seen) again.push_back(todo[k]);  // (numbered: applied at most once)
        continue;
      }
      if (restarted(statuses[k]) && attempt < kMaxRecoveries) {
        recover(todo[k], statuses[k]);
        again.push_back(todo[k]);
        continue;
      }
      errors += str_cat(errors.empty() ? "" : "; ", "server ", todo[k], " (", endpoints_[todo[k]],
                        "): ", statuses[k].error_message());
    }
    SKIFF_CHECK(errors.empty(), "parameter server ", what, " failed: ", errors);
    todo = std::move(again);
  }
}

grpc::Status ServerCalls::info(int s, std::chrono::system_clock::time_point deadline,
                               proto::InfoReply* out) {
  // wait_for_ready covers waiting for a connection; a call that went out on a connection
  // the dying server then broke fails UNAVAILABLE and is tried again.
  while (true) {
    grpc::ClientContext context;
    context.set_wait_for_ready(true);
    context.set_deadline(deadline);
    proto::Ack request;
    grpc::Status status = stubs_[s]->Info(&context, request, out);
    if (status.ok() || status.error_code() != grpc::StatusCode::UNAVAILABLE ||
        std::chrono::system_clock::now() >= deadline) {
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

grpc::Status ServerCalls::resend(int s, const RequestLog::Kept& kept) {
  grpc::ClientContext context;
  set_deadline(&context, call_secs_);
  proto::Ack ack;
  const uint64_t incarnation = views_[s].incarnation;
  auto parse = [&](auto& request) {
    SKIFF_CHECK(request.ParseFromString(kept.request),
                "parameter server client: a kept "
                "request does not parse");
    request.mutable_sequence()->set_incarnation(incarnation);
  };
  auto* stub = stubs_[s].get();
  switch (kept.kind) {
    case RequestKind::kCreate: {
      proto::CreateTableRequest r;
      parse(r);
      return stub->CreateTable(&context, r, &ack);
    }
    case RequestKind::kPushSparse: {
      proto::PushSparseRequest r;
      parse(r);
      return stub->PushSparse(&context, r, &ack);
    }
    case RequestKind::kPushDense:
    case RequestKind::kAssign: {
      proto::PushDenseRequest r;
      parse(r);
      return kept.kind == RequestKind::kAssign ? stub->AssignDense(&context, r, &ack)
                                               : stub->PushDense(&context, r, &ack);
    }
    case RequestKind::kBarrier: {
      proto::BarrierRequest r;
      parse(r);
      return stub->Barrier(&context, r, &ack);
    }
  }
  return grpc::Status(grpc::StatusCode::INTERNAL, "unknown request kind");
}

void ServerCalls::recover(int s, const grpc::Status& status) {
  std::lock_guard<std::recursive_mutex> lock(stateful_);
  ServerView& view = views_[s];
  const std::string server = str_cat("parameter server ", s, " (", endpoints_[s], ")");
  SKIFF_CHECK(view.log.keeping(), server, " failed: ", status.error_message(),
              "; it keeps no checkpoints (start the servers with a checkpoint folder to survive "
              "a server's loss), so trainer ",
              trainer_, " cannot go on");
  for (int attempt = 0; attempt < kMaxRecoveries; ++attempt) {
    const auto deadline = std::chrono::system_clock::now() +
                          std::chrono::microseconds(static_cast<int64_t>(recover_secs_ * 1e6));
    proto::InfoReply reply;
    const grpc::Status reached = info(s, deadline, &reply);
    SKIFF_CHECK(reached.ok(), server, " is gone (", status.error_message(),
                ") and did not come back within ", recover_secs_, " s: ", reached.error_message());
    if (reply.incarnation() == view.incarnation) return;  // the same process: call again
    SKIFF_CHECK(reply.checkpointing(), server,
                " restarted without its checkpoint folder: its "
                "tables are lost, trainer ",
                trainer_, " cannot go on");
    const auto progress = reply.trainers().find(trainer_);
    const int64_t held = progress == reply.trainers().end() ? 0 : progress->second.seq();
    SKIFF_CHECK(view.log.first_kept() <= held + 1, server, " restarted from checkpoint ",
                reply.restored(), ", which holds trainer ", trainer_, "'s requests up to ", held,
                " but the trainer kept only those from ", view.log.first_kept(),
                " (an older checkpoint folder?)");
    view.incarnation = reply.incarnation();
    ++view.recoveries;
    grpc::Status replayed;
    size_t count = 0;
    for (const RequestLog::Kept& kept : view.log.kept()) {
      if (kept.seq <= held) continue;
      replayed = resend(s, kept);
      if (!replayed.ok()) break;
      ++count;
    }
    if (replayed.ok()) {
      std::fprintf(stderr,
                   "skiff ps: %s restarted from checkpoint %lld; trainer %d replayed %zu "
                   "request(s)\n",
                   server.c_str(), static_cast<long long>(reply.restored()), trainer_, count);
      return;
    }
    SKIFF_CHECK(restarted(replayed), server, ": replaying trainer ", trainer_,
                "'s requests failed: ", replayed.error_message());
  }
  fail(server, " kept failing while trainer ", trainer_, " replayed its requests (", kMaxRecoveries,
       " attempts)");
}

std::vector<ServerProgress> ServerCalls::progress() {
  proto::Ack request;
  const auto replies = on_every_server<proto::Ack, proto::InfoReply>("info", request, &Async::Info);
  std::lock_guard<std::recursive_mutex> lock(stateful_);
  std::vector<ServerProgress> out(replies.size());
  for (size_t s = 0; s < replies.size(); ++s) {
    const proto::InfoReply& r = replies[s];
    const ServerView& view = views_[s];
    ServerProgress& p = out[s];
    p.endpoint = endpoints_[s];
    p.incarnation = r.incarnation();
    p.checkpointing = r.checkpointing();
    p.checkpoints = r.checkpoints();
    p.restored = r.restored();
    p.applied_step = r.applied_step();
    const auto mine = r.trainers().find(trainer_);
    p.pushes_applied = mine == r.trainers().end() ? 0 : mine->second.pushes();
    p.pushes_sent = view.log.pushes_sent();
    p.recoveries = view.recoveries;
    p.unacknowledged = static_cast<int64_t>(view.log.kept().size());
  }
  return out;
}

}  // namespace skiff::ps
