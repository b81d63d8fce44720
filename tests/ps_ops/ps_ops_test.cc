// The ps_* ops against two parameter servers in the test process: a pull gives the servers'
// rows (zeros for padding), pushes apply at the sync barrier, and the training program of
// a small recommendation model split by ps_split, trained by one sync trainer, ends where
// the unsplit program ends locally; the errors of a missing connection, a table of another
// width and bad declarations.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/passes/ps_split.h"
#include "skiff/ps/client.h"
#include "skiff/ps/initializer.h"
#include "skiff/ps/server.h"
#include "skiff/ps_ops/ps_connection.h"
#include "skiff/runtime/executor.h"
#include "tests/ps_ops/ps_ops_testing.h"
#include "tests/testing/error_of.h"
#include "tests/testing/sparse_model.h"

namespace skiff {
namespace {

using skiff::testing::error_of;

using testing::Batches;
using testing::Connected;
using testing::dense_spec;
using testing::initial_row;
using testing::kSparseDim;
using testing::kSparseRows;
using testing::Servers;
using testing::sparse_spec;

// ids [2, 3] -> ps_pull_sparse of table "emb" (padding id 9).
Program pull_program(int64_t dim = kSparseDim, DType ids_dtype = DType::kI64) {
  Program p;
  BlockBuilder b(&p);
  b.data("ids", ids_dtype, {2, 3});
  b.op("ps_pull_sparse", {{"Ids", {"ids"}}}, {{"Out", {"rows"}}},
       {{"table", std::string("emb")}, {"dim", dim}, {"padding_idx", int64_t{9}}});
  return p;
}

const std::vector<int64_t> kIds = {5, -7, 5, 123456789012, 9, 9};

TEST(PsOps, FailWithoutAConnection) {
  Scope scope;
  const std::string what = error_of([&] {
    Executor().run(pull_program(), &scope, {{"ids", Tensor::from_vector<int64_t>({2, 3}, kIds)}},
                   {"rows"});
  });
  EXPECT_NE(what.find("ps_pull_sparse: no parameter-server connection; call fleet.init_worker()"),
            std::string::npos)
      << what;
}

TEST(PsOps, PullGivesTheServersRowsAndZerosForPadding) {
  Servers servers;
  ps::Client client(servers.endpoints, 0);
  const ps::TableSpec spec = sparse_spec(0.1f);
  client.create_table(spec, ps::Mode::kAsync, 1);
  Connected connected(&client, {{"emb", kSparseDim}});
  Scope scope;
  const Tensor rows = Executor().run(
      pull_program(), &scope, {{"ids", Tensor::from_vector<int64_t>({2, 3}, kIds)}}, {"rows"})[0];
  ASSERT_EQ(rows.shape(), (Shape{2, 3, kSparseDim}));
  for (size_t i = 0; i < kIds.size(); ++i) {
    const std::vector<float> want =
        kIds[i] == 9 ? std::vector<float>(kSparseDim, 0.f) : initial_row(spec, kIds[i]);
    for (int64_t k = 0; k < kSparseDim; ++k)
      EXPECT_EQ(rows.data<float>()[i * kSparseDim + k], want[k]) << "id " << kIds[i];
  }
}

TEST(PsOps, PushesApplyAtTheSyncBarrier) {
  Servers servers;
  ps::Client client(servers.endpoints, 0);
  const ps::TableSpec spec = sparse_spec(1.0f);
  client.create_table(spec, ps::Mode::kSync, 1);
  client.create_table(dense_spec("bias", 3, 1.0f), ps::Mode::kSync, 1);
  Connected connected(&client, {{"emb", kSparseDim}, {"bias", 3}});
  Program p;
  BlockBuilder b(&p);
  b.data("ids", DType::kI64, {2, 3});
  b.data("grad", DType::kF32, {2, 3, kSparseDim});
  b.data("bias_grad", DType::kF32, {3});
  b.op("ps_push_sparse", {{"Ids", {"ids"}}, {"Grad", {"grad"}}}, {},
       {{"table", std::string("emb")}, {"dim", kSparseDim}, {"padding_idx", int64_t{9}}});
  b.op("ps_push_dense", {{"X", {"bias_grad"}}}, {}, {{"tables", std::vector<std::string>{"bias"}}});
  b.op("ps_barrier", {}, {{"Step", {"step"}}}, {{"mode", std::string("sync")}});
  b.data("bias", DType::kF32, {3});
  b.op("ps_pull_dense", {{"X", {"bias"}}}, {{"Out", {"bias"}}},
       {{"tables", std::vector<std::string>{"bias"}}});
  std::vector<float> grad(kIds.size() * kSparseDim);
  for (size_t i = 0; i < grad.size(); ++i) grad[i] = 0.01f * static_cast<float>(i);
  Scope scope;
  const auto out = Executor().run(p, &scope,
                                  {{"ids", Tensor::from_vector<int64_t>({2, 3}, kIds)},
                                   {"grad", Tensor::from_vector<float>({2, 3, kSparseDim}, grad)},
                                   {"bias_grad", Tensor::from_vector<float>({3}, {1, 2, 3})},
                                   {"bias", Tensor::from_vector<float>({3}, {9, 9, 9})}},
                                  {"step", "bias"});
  EXPECT_EQ(out[0].item<int64_t>(), 0);
  EXPECT_EQ(ps_ops_step(), 1);
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{-0.5f, -1.5f, -2.5f}));
  // Id 5 twice (its rows summed), -7 and 123456789012 once, the padding id not at all.
  const std::vector<int64_t> ids = {5, -7, 123456789012, 9};
  std::vector<float> rows(ids.size() * kSparseDim);
  client.pull_sparse("emb", ids.data(), ids.size(), rows.data());
  const std::vector<std::vector<int>> positions = {{0, 2}, {1}, {3}, {}};
  for (size_t r = 0; r < ids.size(); ++r) {
    std::vector<float> want = initial_row(spec, ids[r]);
    for (int at : positions[r])
      for (int64_t k = 0; k < kSparseDim; ++k) want[k] -= grad[at * kSparseDim + k];
    for (int64_t k = 0; k < kSparseDim; ++k)
      EXPECT_NEAR(rows[r * kSparseDim + k], want[k], 1e-6) << "id " << ids[r];
  }
}

TEST(PsOps, AnOpenedConnectionServesOpsThatNameItWithTheirOwnStep) {
  Servers servers;
  ps::Client client(servers.endpoints, 0);
  const ps::TableSpec spec = sparse_spec(1.0f);
  client.create_table(spec, ps::Mode::kSync, 1);
  const int64_t handle = open_ps_ops_connection(&client);
  ASSERT_GT(handle, 0);
  add_ps_ops_table(handle, "emb", kSparseDim);
  Program p;
  BlockBuilder b(&p);
  b.data("ids", DType::kI64, {1});
  b.data("grad", DType::kF32, {1, kSparseDim});
  b.op("ps_push_sparse", {{"Ids", {"ids"}}, {"Grad", {"grad"}}}, {},
       {{"table", std::string("emb")},
        {"dim", kSparseDim},
        {"connection", handle},
        {"step", int64_t{41}}});
  Scope scope;
  const std::vector<float> grad(kSparseDim, 0.25f);
  Executor().run(p, &scope,
                 {{"ids", Tensor::from_vector<int64_t>({1}, {77})},
                  {"grad", Tensor::from_vector<float>({1, kSparseDim}, grad)}},
                 {});
  EXPECT_EQ(ps_ops_step(handle), 0);  // the step came from the attr
  client.barrier(41);                 // step 41's push is applied
  std::vector<float> row(kSparseDim);
  const int64_t id = 77;
  client.pull_sparse("emb", &id, 1, row.data());
  const std::vector<float> init = initial_row(spec, id);
  for (int64_t k = 0; k < kSparseDim; ++k) EXPECT_NEAR(row[k], init[k] - 0.25f, 1e-6);
  disconnect_ps_ops(handle);
  const std::string what = error_of([&] {
    Executor().run(p, &scope,
                   {{"ids", Tensor::from_vector<int64_t>({1}, {77})},
                    {"grad", Tensor::from_vector<float>({1, kSparseDim}, grad)}},
                   {});
  });
  EXPECT_NE(what.find("ps_push_sparse: parameter-server connection " + std::to_string(handle) +
                      " is closed"),
            std::string::npos)
      << what;
}

TEST(PsOps, SplitProgramTrainsAsTheUnsplitOneWithOneSyncTrainer) {
  constexpr int kSteps = 20;
  const testing::SparseModel m = testing::sparse_model({"sgd", 0.1});
  PsSplitOptions options;
  options.sparse = {{m.table, "emb", kSparseDim}};
  options.dense = {{m.w, "fc.w"}, {m.b, "fc.b"}};
  const Program trainer = ps_split(m.main, options);
  const Program trainer_startup = ps_split_startup(m.startup, m.main, trainer);
  const ps::TableSpec spec = sparse_spec(0.1f);
  const Batches batches(kSteps);
  Executor exe;

  // Locally, from the table's initial rows and the startup program's dense values.
  Scope local;
  exe.run(m.startup, &local);
  const std::vector<float> table = testing::initial_table(spec);
  local.var(m.table)->set(Tensor::from_vector<float>({kSparseRows, kSparseDim}, table));
  const Tensor w0 = fetch(local, m.w).clone(), b0 = fetch(local, m.b).clone();

  // On the servers, starting from the same values (as init_worker assigns trainer 0's).
  Servers servers;
  ps::Client client(servers.endpoints, 0);
  client.create_table(spec, ps::Mode::kSync, 1);
  client.create_table(dense_spec("fc.w", kSparseDim, 0.1f), ps::Mode::kSync, 1);
  client.create_table(dense_spec("fc.b", 1, 0.1f), ps::Mode::kSync, 1);
  client.assign_dense("fc.w", w0.data<float>());
  client.assign_dense("fc.b", b0.data<float>());
  Connected connected(&client, {{"emb", kSparseDim}, {"fc.w", kSparseDim}, {"fc.b", 1}});
  Scope remote;
  exe.run(trainer_startup, &remote);
  EXPECT_EQ(remote.find_var(m.table), nullptr);  // the split startup makes no table
  remote.var(m.w)->set(w0.clone());
  remote.var(m.b)->set(b0.clone());

  for (int s = 0; s < kSteps; ++s) {
    const std::map<std::string, Tensor> feeds = {{m.ids, batches.ids[s]},
                                                 {m.label, batches.labels[s]}};
    const float want = exe.run(m.main, &local, feeds, {m.loss})[0].item<float>();
    const float got = exe.run(trainer, &remote, feeds, {m.loss})[0].item<float>();
    EXPECT_NEAR(got, want, 1e-5 * (1 + std::fabs(want))) << "step " << s;
  }
  EXPECT_EQ(ps_ops_step(), kSteps);
  std::vector<int64_t> ids(kSparseRows);
  for (int64_t id = 0; id < kSparseRows; ++id) ids[id] = id;
  std::vector<float> rows(kSparseRows * kSparseDim);
  client.pull_sparse("emb", ids.data(), ids.size(), rows.data());
  const std::vector<float> trained = fetch(local, m.table).to_vector<float>();
  double moved = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_NEAR(rows[i], trained[i], 1e-5) << "table element " << i;
    moved = std::max(moved, std::fabs(static_cast<double>(trained[i]) - table[i]));
  }
  EXPECT_GT(moved, 1e-3);
  for (const std::string& name : {m.w, m.b}) {
    const std::vector<float> got = fetch(remote, name).to_vector<float>();
    const std::vector<float> want = fetch(local, name).to_vector<float>();
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << name;
  }
}

TEST(PsOps, RefuseATableOfAnotherWidthAndBadDeclarations) {
  Servers servers;
  ps::Client client(servers.endpoints, 0);
  client.create_table(sparse_spec(0.1f), ps::Mode::kAsync, 1);
  const std::map<std::string, Tensor> feeds = {{"ids", Tensor::from_vector<int64_t>({2, 3}, kIds)}};
  {
    Connected connected(&client, {{"emb", kSparseDim}});
    Scope scope;
    std::string what = error_of([&] { Executor().run(pull_program(8), &scope, feeds, {"rows"}); });
    EXPECT_NE(what.find("table 'emb' has 4 floats per row but the op uses 8"), std::string::npos)
        << what;
  }
  {
    Connected connected(&client, {{"other", kSparseDim}});
    Scope scope;
    std::string what = error_of([&] { Executor().run(pull_program(), &scope, feeds, {"rows"}); });
    EXPECT_NE(what.find("table 'emb' was not created by init_worker"), std::string::npos) << what;
  }
  std::string what = error_of([] { pull_program(kSparseDim, DType::kI32); });
  EXPECT_NE(what.find("ps_pull_sparse: Ids ('ids') must be int64, got int32"), std::string::npos)
      << what;
  what = error_of([] {
    Program p;
    BlockBuilder b(&p);
    b.data("ids", DType::kI64, {2, 3});
    b.data("grad", DType::kF32, {2, 3, 5});
    b.op("ps_push_sparse", {{"Ids", {"ids"}}, {"Grad", {"grad"}}}, {},
         {{"table", std::string("emb")}, {"dim", kSparseDim}});
  });
  EXPECT_NE(what.find("ps_push_sparse: table 'emb': Grad ('grad') must be a float32 tensor of "
                      "shape [2, 3, 4]"),
            std::string::npos)
      << what;
}

}  // namespace
}  // namespace skiff
