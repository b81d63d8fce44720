// A parameter server: one process's shard of every table, served over gRPC.
//
//   ps::Server server({"127.0.0.1:0", /*shard=*/0, /*shards=*/2});
//   std::printf("serving on port %d\n", server.port());
//   server.wait();   // until a client calls Stop, or shutdown()
//
// Tables are created by the trainers (CreateTable, idempotent: the same config again is
// accepted, a different one refused). A barrier is where every trainer meets, in any mode. In async
// mode a push updates the rows at once; in sync mode pushes of step s are kept until every trainer
// reached the barrier of step s, then their average is applied (one update per distinct id), as one
// process would on the trainers' batches together; in geo mode pushes are deltas added to the
// values. With a checkpoint folder the server survives being killed: restarted on the same
// address it resumes from its last checkpoint and the trainers replay the requests after it
// (docs/parameter_server.md, "Fault tolerance"). With a load folder, the tables start from a
// saved job's values.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace skiff::ps {

struct ServerOptions {
  std::string address = "127.0.0.1:0";  // host:port; port 0 picks a free one
  int shard = 0;                        // this server's index
  int shards = 1;                       // servers in the job
  // Where checkpoints go (a folder per shard inside it); empty: none. A server started
  // with the folder of a killed one resumes from its last checkpoint, and the trainers
  // replay what came after it.
  std::string checkpoint_dir;
  // A checkpoint is written at the first whole state this long after the last one: at a
  // step's barrier in sync mode, after a push otherwise (0: at every one).
  double checkpoint_secs = 30;
  // A folder tables were saved in (Client::save, by a job of as many servers; Paddle's
  // fleet.init_server(dirname)): each table the trainers create starts from its shard
  // there, and trainer 0's initial values (AssignDense) do not replace it. Empty: none.
  std::string load_dir;
  // With load_dir: only these tables are loaded (empty: every saved one); others start
  // fresh.
  std::vector<std::string> load_tables;
};

class Server {
 public:
  // Starts serving (fails naming the address when it cannot listen).
  explicit Server(const ServerOptions& options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // The port it listens on.
  int port() const;
  // Blocks until a client's Stop or shutdown().
  void wait();
  // Stops serving: waiting calls end (a barrier waiter gets an error), wait() returns.
  void shutdown();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace skiff::ps
