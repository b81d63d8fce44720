// The parameter server over gRPC on 127.0.0.1: two servers and one or two trainers in this
// process. Rows are sharded and initialised as a single table would be; async pushes apply
// at once, sync pushes average over the trainers at the step's barrier, geo pushes add
// deltas; save/load, stop, and the errors a trainer can meet.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>
#include <vector>

#include "skiff/core/error.h"
#include "skiff/ps/client.h"
#include "skiff/ps/initializer.h"
#include "skiff/ps/server.h"
#include "tests/testing/error_of.h"

namespace skiff::ps {
namespace {

using skiff::testing::error_of;

ServerOptions options(int shard, int shards, int port = 0, const std::string& checkpoints = "",
                      double checkpoint_secs = 30) {
  ServerOptions o;
  o.address = "127.0.0.1:" + std::to_string(port);
  o.shard = shard;
  o.shards = shards;
  o.checkpoint_dir = checkpoints;
  o.checkpoint_secs = checkpoint_secs;
  return o;
}

// n servers in this process, made with the options `make(shard)` gives (default: options()).
struct Cluster {
  std::vector<std::unique_ptr<Server>> servers;
  std::vector<std::string> endpoints;

  explicit Cluster(int n, const std::function<ServerOptions(int)>& make = {}) {
    for (int s = 0; s < n; ++s) {
      servers.push_back(std::make_unique<Server>(make ? make(s) : options(s, n)));
      endpoints.push_back("127.0.0.1:" + std::to_string(servers.back()->port()));
    }
  }
};

// A dense table of `size` values starting at `value`, updated by sgd at `lr`.
TableSpec constant_dense(const std::string& name, int64_t size, float value, float lr = 0.1f) {
  TableSpec spec;
  spec.name = name;
  spec.dense = true;
  spec.size = size;
  spec.init.kind = "constant";
  spec.init.value = value;
  spec.optimizer.lr = lr;
  return spec;
}

TableSpec embedding(const std::string& name, int dim, const std::string& optimizer = "sgd") {
  TableSpec spec;
  spec.name = name;
  spec.dim = dim;
  spec.init.kind = "uniform";
  spec.init.low = -0.5f;
  spec.init.high = 0.5f;
  spec.init.seed = 7;
  spec.optimizer.kind = optimizer;
  spec.optimizer.lr = 0.1f;
  return spec;
}

std::vector<float> initial_rows(const TableSpec& spec, const std::vector<int64_t>& ids) {
  std::vector<float> rows(ids.size() * spec.dim);
  for (size_t i = 0; i < ids.size(); ++i)
    init_row(spec.init, ids[i], &rows[i * spec.dim], spec.dim);
  return rows;
}

TEST(ParameterServer, PullsRowsFromEveryShardAsOneTableWouldInitialiseThem) {
  Cluster cluster(2);
  Client client(cluster.endpoints, 0);
  const TableSpec spec = embedding("emb", 4);
  client.create_table(spec, Mode::kAsync, 1);
  std::vector<int64_t> ids;
  for (int64_t i = -50; i < 150; ++i) ids.push_back(i * 7919);
  ids.push_back(ids[3]);  // a repeat
  std::vector<float> rows(ids.size() * 4);
  client.pull_sparse("emb", ids.data(), ids.size(), rows.data());
  EXPECT_EQ(rows, initial_rows(spec, ids));
  const std::vector<TableInfo> info = client.info();
  ASSERT_EQ(info.size(), 1u);
  EXPECT_EQ(info[0].rows, 200);  // distinct ids, spread over both servers
}

TEST(ParameterServer, AsyncPushesApplyAtOnceWithDuplicatesSummed) {
  Cluster cluster(2);
  Client client(cluster.endpoints, 0);
  const TableSpec spec = embedding("emb", 2);
  client.create_table(spec, Mode::kAsync, 1);
  const std::vector<int64_t> ids = {1, 2, 1, 1000003};
  const std::vector<float> grads = {1, 2, 3, 4, 5, 6, 7, 8};
  client.push_sparse("emb", ids.data(), ids.size(), grads.data());
  const std::vector<int64_t> distinct = {1, 2, 1000003};
  std::vector<float> rows(6);
  client.pull_sparse("emb", distinct.data(), 3, rows.data());
  std::vector<float> want = initial_rows(spec, distinct);
  const float summed[6] = {1 + 5, 2 + 6, 3, 4, 7, 8};
  for (int k = 0; k < 6; ++k) EXPECT_FLOAT_EQ(rows[k], want[k] - 0.1f * summed[k]) << k;
}

TEST(ParameterServer, SyncStepsApplyTheTrainersAverageAtTheBarrier) {
  Cluster cluster(2);
  const TableSpec spec = embedding("emb", 2);
  const TableSpec dense = constant_dense("fc.w", 3, 1, 0.5f);
  const std::vector<int64_t> ids = {11, 12};
  std::vector<std::vector<float>> seen(2);
  auto trainer = [&](int t) {
    Client client(cluster.endpoints, t);
    client.create_table(spec, Mode::kSync, 2);
    client.create_table(dense, Mode::kSync, 2);
    for (int step = 0; step < 3; ++step) {
      const float g = static_cast<float>(t + 1);  // trainer 0 pushes 1s, trainer 1 2s
      const std::vector<float> grads(4, g), dense_grad(3, g);
      client.push_sparse("emb", ids.data(), 2, grads.data(), step);
      client.push_dense("fc.w", dense_grad.data(), step);
      client.barrier(step);
    }
    seen[t].resize(4 + 3);
    client.pull_sparse("emb", ids.data(), 2, seen[t].data());
    client.pull_dense("fc.w", seen[t].data() + 4);
  };
  std::thread a(trainer, 0), b(trainer, 1);
  a.join();
  b.join();
  EXPECT_EQ(seen[0], seen[1]);
  const std::vector<float> init = initial_rows(spec, ids);
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(seen[0][k], init[k] - 3 * 0.1f * 1.5f, 1e-6) << k;
  for (int k = 4; k < 7; ++k) EXPECT_NEAR(seen[0][k], 1 - 3 * 0.5f * 1.5f, 1e-6) << k;
}

TEST(ParameterServer, ASyncPushForAStepAlreadyAppliedFails) {
  Cluster cluster(1);
  Client client(cluster.endpoints, 0);
  client.create_table(embedding("emb", 1), Mode::kSync, 1);
  const int64_t id = 7;
  const float grad = 1;
  client.push_sparse("emb", &id, 1, &grad, 5);
  client.barrier(5);
  try {
    client.push_sparse("emb", &id, 1, &grad, 3);
    FAIL() << "a push for step 3 after step 5 was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pushes step 3 after step 5"), std::string::npos)
        << e.what();
  }
}

TEST(ParameterServer, TrainersMeetAtABarrierInAnyModeAfterTrainerZeroAssignsDenseValues) {
  Cluster cluster(2);
  const TableSpec dense = constant_dense("fc.w", 3, 0);
  std::vector<float> seen(3);
  auto trainer = [&](int t) {
    Client client(cluster.endpoints, t);
    client.create_table(dense, Mode::kAsync, 2);
    if (t == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // trainer 1 waits
      const std::vector<float> mine = {1, 2, 3};
      client.assign_dense("fc.w", mine.data());
    }
    client.barrier(-1);
    if (t == 1) client.pull_dense("fc.w", seen.data());
  };
  std::thread a(trainer, 0), b(trainer, 1);
  a.join();
  b.join();
  EXPECT_EQ(seen, (std::vector<float>{1, 2, 3}));
}

TEST(ParameterServer, ABarrierWithoutEveryTrainerFailsNamingTheMissingOnes) {
  Cluster cluster(2);
  Client client(cluster.endpoints, 0);
  client.create_table(embedding("emb", 1), Mode::kSync, 3, /*barrier_timeout_secs=*/0.3);
  const int64_t id = 7;
  const float grad = 1;
  client.push_sparse("emb", &id, 1, &grad, 0);
  const auto start = std::chrono::steady_clock::now();
  try {
    client.barrier(0);  // trainers 1 and 2 never come
    FAIL() << "a barrier passed without two of three trainers";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("trainer(s) 1, 2 did not reach the barrier of step 0"),
              std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  float row;
  client.pull_sparse("emb", &id, 1, &row);
  EXPECT_EQ(row, initial_rows(embedding("emb", 1), {id})[0]);  // the step was not applied
}

TEST(ParameterServer, GeoPushesAddDeltas) {
  Cluster cluster(1);
  Client client(cluster.endpoints, 0);
  const TableSpec spec = embedding("emb", 3);
  client.create_table(spec, Mode::kGeo, 1);
  const int64_t id = 42;
  const std::vector<float> delta = {0.25f, -1.f, 2.f};
  client.push_sparse("emb", &id, 1, delta.data());
  std::vector<float> row(3);
  client.pull_sparse("emb", &id, 1, row.data());
  const std::vector<float> init = initial_rows(spec, {id});
  for (int k = 0; k < 3; ++k) EXPECT_FLOAT_EQ(row[k], init[k] + delta[k]);
}

TEST(ParameterServer, IdsAreAdmittedOnEveryServerAndShrinkEvictsIdleRows) {
  Cluster cluster(2);
  Client client(cluster.endpoints, 0);
  TableSpec spec = embedding("emb", 2);
  spec.admit_count = 2;
  client.create_table(spec, Mode::kAsync, 1);
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < 40; ++i) ids.push_back(i * 1000003);  // spread over both servers
  std::vector<float> rows(ids.size() * 2), grads(ids.size() * 2, 1.0f);
  client.pull_sparse("emb", ids.data(), ids.size(), rows.data());
  EXPECT_EQ(rows, std::vector<float>(rows.size(), 0.0f));   // one touch: not admitted yet
  client.push_sparse("emb", ids.data(), 10, grads.data());  // the 2nd touch of 10: applied
  client.pull_sparse("emb", ids.data(), ids.size(), rows.data());
  std::vector<float> want = initial_rows(spec, ids);
  for (size_t k = 0; k < 20; ++k) want[k] -= 0.1f;
  EXPECT_EQ(rows, want);
  TableInfo info = client.info()[0];
  EXPECT_EQ(info.rows, 40);
  EXPECT_EQ(info.dropped_unadmitted, 0);

  // Another job asking for other admission gets an error naming the table.
  TableSpec other = spec;
  other.admit_probability = 0.5;
  EXPECT_NE(error_of([&] { client.create_table(other, Mode::kAsync, 1); }).find("'emb'"),
            std::string::npos);

  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  client.pull_sparse("emb", ids.data(), 5, rows.data());
  EXPECT_EQ(client.shrink(), 0);      // the table keeps rows forever (no ttl_secs)
  EXPECT_EQ(client.shrink(0.2), 35);  // rows idle for 0.2 s: all but the 5 just pulled
  info = client.info()[0];
  EXPECT_EQ(info.rows, 5);
  EXPECT_EQ(info.evicted, 35);
}

TEST(ParameterServer, SavedShardsLoadIntoNewServers) {
  const auto folder =
      std::filesystem::temp_directory_path() / ("skiff_ps_save" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  const TableSpec spec = embedding("emb", 2, "adagrad");
  const std::vector<int64_t> ids = {1, 2, 3, 4, 5, 6};
  const std::vector<float> grads(12, 0.5f);
  std::vector<float> before(12), after(12);
  {
    Cluster cluster(2);
    Client client(cluster.endpoints, 0);
    client.create_table(spec, Mode::kAsync, 1);
    client.push_sparse("emb", ids.data(), ids.size(), grads.data());
    client.save(folder.string());
    client.push_sparse("emb", ids.data(), ids.size(), grads.data());  // the optimizer state too
    client.pull_sparse("emb", ids.data(), ids.size(), before.data());
  }
  Cluster cluster(2);
  Client client(cluster.endpoints, 0);
  client.create_table(spec, Mode::kAsync, 1);
  client.load(folder.string());
  client.push_sparse("emb", ids.data(), ids.size(), grads.data());
  client.pull_sparse("emb", ids.data(), ids.size(), after.data());
  EXPECT_EQ(before, after);
  std::filesystem::remove_all(folder);
}

TEST(ParameterServer, ServersGivenALoadFolderStartTheTablesFromIt) {
  const auto folder =
      std::filesystem::temp_directory_path() / ("skiff_ps_load" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  const TableSpec spec = embedding("emb", 2);
  const TableSpec dense = constant_dense("fc.w", 2, 1);
  const std::vector<int64_t> ids = {1, 2, 3, 4, 5, 6};
  const std::vector<float> grads(12, 0.5f), dense_grad = {1, 2};
  std::vector<float> saved(12), saved_dense(2);
  {
    Cluster cluster(2);
    Client client(cluster.endpoints, 0);
    client.create_table(spec, Mode::kAsync, 1);
    client.create_table(dense, Mode::kAsync, 1);
    client.push_sparse("emb", ids.data(), ids.size(), grads.data());
    client.push_dense("fc.w", dense_grad.data());
    client.save(folder.string());
    client.pull_sparse("emb", ids.data(), ids.size(), saved.data());
    client.pull_dense("fc.w", saved_dense.data());
  }
  auto loading = [&](int shard, int shards, std::vector<std::string> only = {}) {
    ServerOptions o = options(shard, shards);
    o.load_dir = folder.string();
    o.load_tables = std::move(only);
    return o;
  };
  {
    Cluster cluster(2, [&](int shard) { return loading(shard, 2); });
    Client client(cluster.endpoints, 0);
    client.create_table(spec, Mode::kAsync, 1);
    client.create_table(dense, Mode::kAsync, 1);
    const std::vector<float> trainer_values = {7, 7};
    client.assign_dense("fc.w", trainer_values.data());  // the saved values stay
    std::vector<float> rows(12), values(2);
    client.pull_sparse("emb", ids.data(), ids.size(), rows.data());
    client.pull_dense("fc.w", values.data());
    EXPECT_EQ(rows, saved);
    EXPECT_EQ(values, saved_dense);
  }
  {  // only the tables asked for: the dense one starts fresh and takes trainer 0's values
    Cluster cluster(2, [&](int shard) { return loading(shard, 2, {"emb"}); });
    Client client(cluster.endpoints, 0);
    client.create_table(spec, Mode::kAsync, 1);
    client.create_table(dense, Mode::kAsync, 1);
    const std::vector<float> trainer_values = {7, 7};
    client.assign_dense("fc.w", trainer_values.data());
    std::vector<float> rows(12), values(2);
    client.pull_sparse("emb", ids.data(), ids.size(), rows.data());
    client.pull_dense("fc.w", values.data());
    EXPECT_EQ(rows, saved);
    EXPECT_EQ(values, trainer_values);
  }
  std::string what = error_of([&] { Server server(loading(0, 3)); });
  EXPECT_NE(what.find("holds no table saved by shard 0 of 3 (it holds files such as "),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("-of-2'"), std::string::npos) << what;
  ServerOptions missing = options(0, 1);
  missing.load_dir = (folder / "nope").string();
  what = error_of([&] { Server server(missing); });
  EXPECT_NE(what.find("the load folder '" + missing.load_dir + "' is not a folder"),
            std::string::npos)
      << what;
  std::filesystem::remove_all(folder);
}

TEST(ParameterServer, ErrorsNameTheTableAndTheServer) {
  Cluster cluster(2);
  Client client(cluster.endpoints, 0);
  client.create_table(embedding("emb", 4), Mode::kAsync, 1);
  try {
    Client other(cluster.endpoints, 1);
    other.create_table(embedding("emb", 8), Mode::kAsync, 1);  // another dimension
    FAIL() << "a table was re-created with another dimension";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'emb'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("dim 8"), std::string::npos) << e.what();
  }
  float row[4];
  const int64_t id = 1;
  EXPECT_THROW(client.pull_sparse("nope", &id, 1, row), Error);
  try {
    Client(cluster.endpoints, 2).create_table(embedding("emb", 4), Mode::kSync, 2);
    FAIL() << "a trainer changed the job's mode";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("SYNC"), std::string::npos) << e.what();
  }
}

TEST(ParameterServer, AnUnreachableServerFailsWithinTheConnectTime) {
  int port;
  {
    Server probe(options(0, 1));
    port = probe.port();
  }  // (nothing listens there now)
  try {
    Client client({"127.0.0.1:" + std::to_string(port)}, 0, /*connect_secs=*/0.5);
    FAIL() << "connected to a closed port";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(port)), std::string::npos) << e.what();
  }
}

TEST(ParameterServer, StopEndsEveryServersWait) {
  Cluster cluster(2);
  std::thread waiting([&] {
    for (auto& s : cluster.servers) s->wait();
  });
  Client(cluster.endpoints, 0).stop_servers();
  waiting.join();  // (the test's timeout catches a hang)
}

// A fresh folder under the system's temporary one, removed at the end of the test.
struct TempFolder {
  std::filesystem::path path;
  explicit TempFolder(const std::string& name)
      : path(std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
  }
  ~TempFolder() { std::filesystem::remove_all(path); }
};

TEST(ParameterServer, ARestartedServerResumesFromItsCheckpointAndTheTrainersReplay) {
  const TempFolder folder("skiff_ps_ckpt");
  const TableSpec spec = embedding("emb", 2, "adagrad");
  const std::vector<int64_t> ids = {1, 2, 3, 5, 8};
  auto grads = [](int k) { return std::vector<float>(10, 0.25f * static_cast<float>(k + 1)); };
  std::vector<float> want(10), got(10);
  {
    Cluster reference(1);
    Client client(reference.endpoints, 0);
    client.create_table(spec, Mode::kAsync, 1);
    for (int k = 0; k < 5; ++k) client.push_sparse("emb", ids.data(), ids.size(), grads(k).data());
    client.pull_sparse("emb", ids.data(), ids.size(), want.data());
  }
  // The first server checkpoints after every push; the second never does, so the third
  // starts from the first's last checkpoint and the trainer replays what came after it.
  auto server = std::make_unique<Server>(options(0, 1, 0, folder.path.string(), 0));
  const int port = server->port();
  Client client({"127.0.0.1:" + std::to_string(port)}, 0, 10, 0, /*recover_secs=*/20);
  client.create_table(spec, Mode::kAsync, 1);
  for (int k = 0; k < 3; ++k) client.push_sparse("emb", ids.data(), ids.size(), grads(k).data());
  EXPECT_EQ(client.progress()[0].unacknowledged, 0);
  server.reset();  // (gone as if killed: nothing after its checkpoint is written)
  server = std::make_unique<Server>(options(0, 1, port, folder.path.string(), 3600));
  for (int k = 3; k < 5; ++k) client.push_sparse("emb", ids.data(), ids.size(), grads(k).data());
  EXPECT_EQ(client.progress()[0].unacknowledged, 2);
  server.reset();
  server = std::make_unique<Server>(options(0, 1, port, folder.path.string(), 3600));
  client.pull_sparse("emb", ids.data(), ids.size(), got.data());
  EXPECT_EQ(got, want);
  const ServerProgress progress = client.progress()[0];
  EXPECT_EQ(progress.restored, 3);  // one checkpoint per push
  EXPECT_EQ(progress.recoveries, 2);
  EXPECT_EQ(progress.pushes_sent, 5);
  EXPECT_EQ(progress.pushes_applied, 5);  // each exactly once
}

TEST(ParameterServer, ATrainerStartedAgainHasItsPushesAppliedByACheckpointingServer) {
  const TempFolder folder("skiff_ps_trainer_again");
  Server server(options(0, 1, 0, folder.path.string(), 0));
  const std::vector<std::string> endpoints = {"127.0.0.1:" + std::to_string(server.port())};
  const TableSpec spec = embedding("emb", 1);
  const int64_t id = 4;
  const float grad = 1;
  {
    Client first(endpoints, 0);  // (its process ends)
    first.create_table(spec, Mode::kAsync, 1);
    for (int k = 0; k < 3; ++k) first.push_sparse("emb", &id, 1, &grad);
  }
  Client again(endpoints, 0);
  again.create_table(spec, Mode::kAsync, 1);
  for (int k = 0; k < 2; ++k) again.push_sparse("emb", &id, 1, &grad);
  float row = 0;
  again.pull_sparse("emb", &id, 1, &row);
  EXPECT_FLOAT_EQ(row, initial_rows(spec, {id})[0] - 5 * 0.1f);  // none taken for a replay
  EXPECT_EQ(again.progress()[0].pushes_applied, 5);
}

TEST(ParameterServer, TrainersStartedAgainMeetAfterTheLastAppliedStepWithoutStalePushes) {
  Cluster cluster(1);
  const TableSpec spec = embedding("emb", 1);
  const int64_t id = 9;
  const float grad = 1;
  {
    Client a(cluster.endpoints, 0), b(cluster.endpoints, 1);
    a.create_table(spec, Mode::kSync, 2);
    b.create_table(spec, Mode::kSync, 2);
    a.push_sparse("emb", &id, 1, &grad, 0);
    b.push_sparse("emb", &id, 1, &grad, 0);
    std::thread wait_a([&] { a.barrier(0); });
    b.barrier(0);
    wait_a.join();
    a.push_sparse("emb", &id, 1, &grad, 1);  // then both die before step 1's barrier
  }
  Client a(cluster.endpoints, 0), b(cluster.endpoints, 1);
  a.create_table(spec, Mode::kSync, 2);
  b.create_table(spec, Mode::kSync, 2);
  const int64_t applied = a.progress()[0].applied_step;
  EXPECT_EQ(applied, 0);
  // Step 1's push stays pending; the next meeting is past it and drops it.
  std::thread wait_a([&] { a.barrier(applied + 2); });
  b.barrier(applied + 2);
  wait_a.join();
  float row = 0;
  a.pull_sparse("emb", &id, 1, &row);
  EXPECT_FLOAT_EQ(row, initial_rows(spec, {id})[0] - 0.1f);  // step 0 only
  EXPECT_EQ(b.progress()[0].applied_step, 2);
}

TEST(ParameterServer, ALostServerWithoutCheckpointsEndsTheTrainerClearly) {
  auto server = std::make_unique<Server>(options(0, 1));
  const int port = server->port();
  Client client({"127.0.0.1:" + std::to_string(port)}, 0);
  client.create_table(embedding("emb", 2), Mode::kAsync, 1);
  server.reset();
  server = std::make_unique<Server>(options(0, 1, port));
  const int64_t id = 1;
  float row[2];
  try {
    client.pull_sparse("emb", &id, 1, row);
    FAIL() << "a restarted server without checkpoints was used";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no checkpoints"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(port)), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace skiff::ps
