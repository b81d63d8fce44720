// Parameter server throughput: trainers pull then push batches of 10k ids (rows of 64
// floats, sgd) against 1 and 2 servers on 127.0.0.1, each server in its own process
// (forked), and report rows per second (pulled + pushed rows / time). Ids are drawn from
// 10M with a skew like a CTR model's (a few hot ids, a long tail).
//
//   build/bench/ps_throughput [--batches 50] [--ids 10000] [--dim 64]
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "skiff/ps/client.h"
#include "skiff/ps/server.h"

namespace {

using skiff::ps::Client;
using skiff::ps::Mode;
using skiff::ps::Server;
using skiff::ps::ServerOptions;
using skiff::ps::TableSpec;

struct Flags {
  int batches = 50;
  int ids = 10000;
  int dim = 64;
};

// Forks a server process for shard `shard` of `shards`; returns its pid and endpoint (the
// child tells its port through a pipe). Call before this process uses gRPC.
std::pair<pid_t, std::string> fork_server(int shard, int shards) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    ServerOptions options;
    options.shard = shard;
    options.shards = shards;
    options.checkpoint_secs = 0;
    Server server(options);
    const int port = server.port();
    if (write(fds[1], &port, sizeof(port)) != sizeof(port)) _exit(1);
    close(fds[1]);
    server.wait();
    _exit(0);
  }
  close(fds[1]);
  int port = 0;
  if (read(fds[0], &port, sizeof(port)) != sizeof(port)) std::exit(1);
  close(fds[0]);
  return {pid, "127.0.0.1:" + std::to_string(port)};
}

struct Servers {
  std::vector<pid_t> pids;
  std::vector<std::string> endpoints;
};

Servers fork_servers(int shards) {
  Servers out;
  for (int s = 0; s < shards; ++s) {
    auto [pid, endpoint] = fork_server(s, shards);
    out.pids.push_back(pid);
    out.endpoints.push_back(endpoint);
  }
  return out;
}

double run(const Servers& servers, const Flags& flags) {
  const std::vector<std::string>& endpoints = servers.endpoints;
  double rows_per_second = 0;
  {
    Client client(endpoints, 0);
    TableSpec spec;
    spec.name = "emb";
    spec.dim = flags.dim;
    spec.optimizer.lr = 0.01f;
    client.create_table(spec, Mode::kAsync, 1);
    std::mt19937_64 rng(1);
    std::vector<int64_t> ids(flags.ids);
    std::vector<float> rows(static_cast<size_t>(flags.ids) * flags.dim);
    std::vector<float> grads(rows.size(), 0.001f);
    auto batch = [&] {
      for (int64_t& id : ids) {
        // Zipf-like: floor of exp(uniform * ln 10M) spreads ids over 10M with a hot head.
        const double u = std::uniform_real_distribution<double>(0, std::log(1e7))(rng);
        id = static_cast<int64_t>(std::exp(u));
      }
    };
    batch();  // warm-up: creates the rows of the first batch
    client.pull_sparse("emb", ids.data(), ids.size(), rows.data());
    const auto start = std::chrono::steady_clock::now();
    for (int b = 0; b < flags.batches; ++b) {
      batch();
      client.pull_sparse("emb", ids.data(), ids.size(), rows.data());
      client.push_sparse("emb", ids.data(), ids.size(), grads.data());
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rows_per_second = 2.0 * flags.batches * flags.ids / secs;
    client.stop_servers();
  }
  for (pid_t pid : servers.pids) waitpid(pid, nullptr, 0);
  return rows_per_second;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--batches")) flags.batches = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--ids")) flags.ids = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--dim")) flags.dim = std::atoi(argv[a + 1]);
  }
  std::printf("pull + push of %d-id batches, %d floats per row, %d batches\n", flags.ids, flags.dim,
              flags.batches);
  // Every server is forked before this process uses gRPC (gRPC does not survive a fork).
  const Servers one = fork_servers(1), two = fork_servers(2);
  std::printf("RESULT ps_rows_per_s_1_server %.0f\n", run(one, flags));
  std::fflush(stdout);
  std::printf("RESULT ps_rows_per_s_2_servers %.0f\n", run(two, flags));
  return 0;
}
