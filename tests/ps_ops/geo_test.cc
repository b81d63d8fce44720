// Geo mode's trainer side: GeoRows keeps the rows a trainer uses, sends its share of each
// delta and carries the rest; a program split for geo mode trains local copies and, with
// one trainer, leaves on the servers at each sync exactly what the unsplit program holds
// locally (so nothing is lost or sent twice), and only at a sync.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "skiff/passes/ps_split.h"
#include "skiff/ps_ops/geo_rows.h"
#include "skiff/runtime/executor.h"
#include "tests/ps_ops/ps_ops_testing.h"
#include "tests/testing/error_of.h"

namespace skiff {
namespace {

using testing::Batches;
using testing::Connected;
using testing::dense_spec;
using testing::error_of;
using testing::kSparseDim;
using testing::kSparseRows;
using testing::Servers;
using testing::sparse_spec;

// A pull that gives row id = {id, 10 * id} and counts the ids it was asked for.
struct FakeServers {
  std::vector<int64_t> pulled;
  GeoRows::Pull pull() {
    return [this](const int64_t* ids, size_t n, float* out) {
      for (size_t i = 0; i < n; ++i) {
        pulled.push_back(ids[i]);
        out[2 * i] = static_cast<float>(ids[i]);
        out[2 * i + 1] = 10.f * static_cast<float>(ids[i]);
      }
    };
  }
};

TEST(GeoRows, SendsItsShareCarriesTheRestAndForgetsOldCarries) {
  FakeServers servers;
  GeoRows rows(2, /*carry_syncs=*/2);
  const std::vector<int64_t> ids = {3, 5};
  std::vector<float> out(4);
  rows.get(ids.data(), 2, out.data(), servers.pull());
  EXPECT_EQ(out, (std::vector<float>{3, 30, 5, 50}));
  const std::vector<float> grads = {1, 2, 0, 0};  // id 5 does not move
  rows.add(ids.data(), 2, grads.data(), -0.5f);
  rows.get(ids.data(), 1, out.data(), servers.pull());  // held: not pulled again
  EXPECT_EQ(servers.pulled, (std::vector<int64_t>{3, 5}));
  EXPECT_EQ((std::vector<float>{out[0], out[1]}), (std::vector<float>{2.5f, 29}));

  std::vector<int64_t> sent;
  std::vector<float> deltas;
  rows.take_deltas(0.5f, false, &sent, &deltas);  // 2 trainers: half of id 3's delta
  EXPECT_EQ(sent, std::vector<int64_t>{3});
  EXPECT_EQ(deltas, (std::vector<float>{-0.25f, -0.5f}));
  EXPECT_EQ(rows.held(), 0u);
  EXPECT_EQ(rows.carried(), 1u);

  // Next used, id 3 is pulled again with its carry on top, which goes out with its delta.
  rows.get(ids.data(), 1, out.data(), servers.pull());
  EXPECT_EQ((std::vector<float>{out[0], out[1]}), (std::vector<float>{2.75f, 29.5f}));
  EXPECT_EQ(rows.carried(), 0u);
  rows.take_deltas(0.5f, false, &sent, &deltas);
  EXPECT_EQ(deltas, (std::vector<float>{-0.125f, -0.25f}));
  EXPECT_EQ(rows.carried(), 1u);
  // Not used in the next 2 syncs: its carry is dropped.
  rows.take_deltas(0.5f, false, &sent, &deltas);
  EXPECT_TRUE(sent.empty());
  EXPECT_EQ(rows.carried(), 1u);
  rows.take_deltas(0.5f, false, &sent, &deltas);
  EXPECT_EQ(rows.carried(), 0u);

  // A final sync sends the share and carries nothing.
  rows.get(ids.data(), 1, out.data(), servers.pull());
  rows.add(ids.data(), 1, grads.data(), 1.f);
  rows.take_deltas(0.5f, true, &sent, &deltas);
  EXPECT_EQ(deltas, (std::vector<float>{0.5f, 1}));
  EXPECT_EQ(rows.carried(), 0u);

  const std::string what = error_of([&] { rows.add(ids.data(), 1, grads.data(), 1.f); });
  EXPECT_NE(what.find("the gradient of id 3 reached the trainer's rows before the id was looked "
                      "up since the last sync"),
            std::string::npos)
      << what;
}

std::vector<float> dense_on_servers(ps::Client& client, const std::string& table, size_t size) {
  std::vector<float> values(size);
  client.pull_dense(table, values.data());
  return values;
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << what << " " << i;
}

TEST(PsGeo, OneTrainerLeavesTheUnsplitProgramsValuesOnTheServersAtEachSync) {
  constexpr int kSteps = 20, kK = 3;
  const testing::SparseModel m = testing::sparse_model({"sgd", 0.1});
  PsSplitOptions options;
  options.sparse = {{m.table, "emb", kSparseDim}};
  options.dense = {{m.w, "fc.w"}, {m.b, "fc.b"}};
  options.mode = PsSplitMode::kGeo;
  options.k_steps = kK;
  const Program trainer = ps_split(m.main, options);
  const Program trainer_startup = ps_split_startup(m.startup, m.main, trainer);
  const ps::TableSpec spec = sparse_spec(0.1f);
  const Batches batches(kSteps);
  Executor exe;

  Scope local;
  exe.run(m.startup, &local);
  const std::vector<float> table = testing::initial_table(spec);
  local.var(m.table)->set(Tensor::from_vector<float>({kSparseRows, kSparseDim}, table));
  const std::vector<float> w0 = fetch(local, m.w).to_vector<float>();
  const std::vector<float> b0 = fetch(local, m.b).to_vector<float>();

  Servers servers;
  ps::Client client(servers.endpoints, 0);
  client.create_table(spec, ps::Mode::kGeo, 1);
  client.create_table(dense_spec("fc.w", kSparseDim, 0.1f), ps::Mode::kGeo, 1);
  client.create_table(dense_spec("fc.b", 1, 0.1f), ps::Mode::kGeo, 1);
  client.assign_dense("fc.w", w0.data());
  client.assign_dense("fc.b", b0.data());
  Connected connected(&client, {{"emb", kSparseDim}, {"fc.w", kSparseDim}, {"fc.b", 1}});
  set_ps_ops_geo(0, 1, {{"fc.w", w0}, {"fc.b", b0}});
  Scope remote;
  exe.run(trainer_startup, &remote);
  EXPECT_EQ(remote.find_var(m.table), nullptr);
  remote.var(m.w)->set(Tensor::from_vector<float>({kSparseDim, 1}, w0));
  remote.var(m.b)->set(Tensor::from_vector<float>({1}, b0));

  std::vector<int64_t> ids(kSparseRows);
  for (int64_t id = 0; id < kSparseRows; ++id) ids[id] = id;
  std::vector<float> rows(kSparseRows * kSparseDim);
  for (int s = 0; s < kSteps; ++s) {
    const std::map<std::string, Tensor> feeds = {{m.ids, batches.ids[s]},
                                                 {m.label, batches.labels[s]}};
    const float want = exe.run(m.main, &local, feeds, {m.loss})[0].item<float>();
    const float got = exe.run(trainer, &remote, feeds, {m.loss})[0].item<float>();
    EXPECT_NEAR(got, want, 1e-5 * (1 + std::fabs(want))) << "step " << s;
    expect_near(fetch(remote, m.w).to_vector<float>(), fetch(local, m.w).to_vector<float>(),
                "trainer's fc.w");
    const bool synced = (s + 1) % kK == 0;
    if (s == 0 || synced) {  // the servers move at a sync only
      expect_near(dense_on_servers(client, "fc.w", kSparseDim),
                  synced ? fetch(local, m.w).to_vector<float>() : w0, "servers' fc.w");
    }
    if (synced) {
      client.pull_sparse("emb", ids.data(), ids.size(), rows.data());
      expect_near(rows, fetch(local, m.table).to_vector<float>(), "servers' rows");
    }
  }
  EXPECT_EQ(ps_ops_step(), kSteps);
  // The steps after the last sync go out with the final one.
  auto w = fetch(remote, m.w), b = fetch(remote, m.b);
  ps_ops_geo_sync(0, {{"fc.w", {w.data<float>(), kSparseDim}}, {"fc.b", {b.data<float>(), 1}}},
                  /*final=*/true);
  client.pull_sparse("emb", ids.data(), ids.size(), rows.data());
  expect_near(rows, fetch(local, m.table).to_vector<float>(), "final rows");
  expect_near(dense_on_servers(client, "fc.w", kSparseDim), fetch(local, m.w).to_vector<float>(),
              "final fc.w");
  expect_near(dense_on_servers(client, "fc.b", 1), fetch(local, m.b).to_vector<float>(),
              "final fc.b");
}

TEST(PsGeo, GeoOpsNeedAGeoConnection) {
  Servers servers;
  ps::Client client(servers.endpoints, 0);
  client.create_table(sparse_spec(0.1f), ps::Mode::kAsync, 1);
  Connected connected(&client, {{"emb", kSparseDim}});
  Program p;
  BlockBuilder b(&p);
  b.data("ids", DType::kI64, {2});
  b.op("ps_pull_sparse", {{"Ids", {"ids"}}}, {{"Out", {"rows"}}},
       {{"table", std::string("emb")}, {"dim", kSparseDim}, {"geo", true}});
  Scope scope;
  const std::string what = error_of([&] {
    Executor().run(p, &scope, {{"ids", Tensor::from_vector<int64_t>({2}, {1, 2})}}, {"rows"});
  });
  EXPECT_NE(what.find("ps_pull_sparse: the parameter-server connection is not in geo mode"),
            std::string::npos)
      << what;
}

}  // namespace
}  // namespace skiff
