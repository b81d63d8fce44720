// ps_split on the training program of a small recommendation model (testing/sparse_model.h):
// the ops it rewrites, removes and appends, the variables it drops from the program and the
// startup program, and the programs it refuses, naming the op and the variable.
#include "skiff/passes/ps_split.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/testing/sparse_model.h"

namespace skiff {
namespace {

using testing::sparse_model;
using testing::SparseModel;
using testing::SparseModelOptions;

PsSplitOptions all_distributed(const SparseModel& m, PsSplitMode mode = PsSplitMode::kSync) {
  PsSplitOptions o;
  o.sparse = {{m.table, "emb", testing::kSparseDim}};
  o.dense = {{m.w, "fc.w"}, {m.b, "fc.b"}};
  o.mode = mode;
  return o;
}

std::vector<std::string> op_types(const Program& p) {
  std::vector<std::string> types;
  for (const OpDesc& op : p.block(0).ops) types.push_back(op.type);
  return types;
}

int count(const std::vector<std::string>& types, const std::string& type) {
  return static_cast<int>(std::count(types.begin(), types.end(), type));
}

bool declares(const Program& p, const std::string& name) {
  return p.block(0).find_local_var(name) != nullptr;
}

// The op of `type` in block 0 (the first), or fails the test.
const OpDesc& op_of(const Program& p, const std::string& type, int nth = 0) {
  for (const OpDesc& op : p.block(0).ops)
    if (op.type == type && nth-- == 0) return op;
  ADD_FAILURE() << "no op " << type;
  static const OpDesc none;
  return none;
}

// Runs ps_split expecting a skiff::Error whose message holds every part.
void expect_refused(const Program& main, const PsSplitOptions& o,
                    const std::vector<std::string>& parts) {
  try {
    ps_split(main, o);
    ADD_FAILURE() << "ps_split accepted the program";
  } catch (const Error& e) {
    for (const std::string& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// append_optimizer gives sparse gradients to sgd and adam only: adagrad gets a dense one.
SparseModel model_for(const std::string& optimizer, SparseModelOptions o = {}) {
  o.is_sparse = optimizer == "sgd" || optimizer == "adam";
  return sparse_model({optimizer, 0.1}, o);
}

TEST(PsSplit, LookupsBecomePullsAndPushesUpdatesGoToTheServers) {
  for (const char* optimizer : {"sgd", "adam", "adagrad"}) {
    SCOPED_TRACE(optimizer);
    const SparseModel m = model_for(optimizer);
    const Program split = ps_split(m.main, all_distributed(m));
    const std::vector<std::string> types = op_types(split);
    for (const char* gone : {"embedding", "embedding_grad", "sgd", "adam", "adagrad"})
      EXPECT_EQ(count(types, gone), 0) << gone;
    EXPECT_EQ(count(types, "ps_pull_sparse"), 1);
    EXPECT_EQ(count(types, "ps_push_sparse"), 1);
    // The end of block 0: the dense push, the barrier, the dense pull (all tables each).
    const std::vector<std::string> tail(types.end() - 3, types.end());
    EXPECT_EQ(tail, (std::vector<std::string>{"ps_push_dense", "ps_barrier", "ps_pull_dense"}));

    const OpDesc& lookup = m.main.block(0).ops[0];
    const OpDesc& pull = split.block(0).ops[0];  // in the lookup's place
    EXPECT_EQ(pull.type, "ps_pull_sparse");
    EXPECT_EQ(pull.input("Ids"), lookup.input("Ids"));
    EXPECT_EQ(pull.output("Out"), lookup.output("Out"));
    EXPECT_EQ(pull.attr<std::string>("table"), "emb");
    EXPECT_EQ(pull.attr<int64_t>("dim"), testing::kSparseDim);
    EXPECT_EQ(pull.attr<int64_t>("padding_idx"), -1);
    EXPECT_EQ(pull.source(), lookup.source());
    const OpDesc& push = op_of(split, "ps_push_sparse");
    EXPECT_EQ(push.input("Ids"), lookup.input("Ids"));
    EXPECT_EQ(push.input("Grad"), std::vector<std::string>{grad_name(lookup.first_output("Out"))});

    const std::vector<std::string> tables = {"fc.w", "fc.b"};
    const OpDesc& push_dense = op_of(split, "ps_push_dense");
    EXPECT_EQ(push_dense.input("X"), (std::vector<std::string>{"fc.w@GRAD", "fc.b@GRAD"}));
    EXPECT_EQ(push_dense.attr<std::vector<std::string>>("tables"), tables);
    EXPECT_EQ(op_of(split, "ps_barrier").attr<std::string>("mode"), "sync");
    const OpDesc& pull_dense = op_of(split, "ps_pull_dense");
    EXPECT_EQ(pull_dense.input("X"), (std::vector<std::string>{m.w, m.b}));
    EXPECT_EQ(pull_dense.output("Out"), pull_dense.input("X"));
    EXPECT_EQ(pull_dense.attr<std::vector<std::string>>("tables"), tables);

    // The table, its gradient and every server-side optimizer state are gone.
    EXPECT_FALSE(declares(split, m.table));
    EXPECT_FALSE(declares(split, grad_name(m.table)));
    EXPECT_FALSE(declares(split, "learning_rate_0"));
    for (const auto& [name, v] : split.block(0).vars) {
      EXPECT_TRUE(!v.persistable || name == m.w || name == m.b) << name;
    }
    EXPECT_TRUE(declares(split, m.w));
    EXPECT_TRUE(declares(split, m.ids));
    EXPECT_TRUE(declares(split, m.label));
  }
}

TEST(PsSplit, AsyncModeBarrierDoesNotWait) {
  const SparseModel m = sparse_model({"sgd", 0.1});
  const Program split = ps_split(m.main, all_distributed(m, PsSplitMode::kAsync));
  EXPECT_EQ(op_of(split, "ps_barrier").attr<std::string>("mode"), "async");
}

TEST(PsSplit, GeoModeTrainsLocalCopiesAndSyncsEveryKSteps) {
  OptimizerConfig c{"sgd", 0.1};
  c.lr_schedule.type = "step_decay";  // the trainer's own rate: a schedule works
  const SparseModel m = sparse_model(c);
  PsSplitOptions o = all_distributed(m, PsSplitMode::kGeo);
  o.k_steps = 5;
  const Program split = ps_split(m.main, o);
  const std::vector<std::string> types = op_types(split);
  EXPECT_EQ(count(types, "embedding") + count(types, "embedding_grad"), 0);
  EXPECT_EQ(count(types, "sgd"), 2);  // the dense parameters' updates stay
  EXPECT_EQ(
      count(types, "ps_barrier") + count(types, "ps_push_dense") + count(types, "ps_pull_dense"),
      0);
  EXPECT_TRUE(op_of(split, "ps_pull_sparse").attr<bool>("geo"));
  const OpDesc& push = op_of(split, "ps_push_sparse");
  EXPECT_TRUE(push.attr<bool>("geo"));
  EXPECT_EQ(push.first_input("LearningRate"), op_of(split, "sgd").first_input("LearningRate"));
  EXPECT_FALSE(declares(split, m.table));
  const OpDesc& step = split.block(0).ops.back();
  ASSERT_EQ(step.type, "ps_geo_step");
  EXPECT_EQ(step.input("X"), (std::vector<std::string>{m.w, m.b}));
  EXPECT_EQ(step.output("Out"), step.input("X"));
  EXPECT_EQ(step.attr<std::vector<std::string>>("tables"),
            (std::vector<std::string>{"fc.w", "fc.b"}));
  EXPECT_EQ(step.attr<int64_t>("k_steps"), 5);

  o.k_steps = 0;
  expect_refused(m.main, o, {"geo mode needs k_steps > 0"});
  const SparseModel adam = model_for("adam");
  o = all_distributed(adam, PsSplitMode::kGeo);
  o.k_steps = 5;
  expect_refused(adam.main, o, {"sparse table 'emb.w'", "op 'adam'", "geo mode", "sgd"});
}

TEST(PsSplit, SharedTablePushesEachLookupsGradient) {
  SparseModelOptions o;
  o.shared_lookup = true;
  const SparseModel m = sparse_model({"adam", 0.1}, o);
  const Program split = ps_split(m.main, all_distributed(m));
  const std::vector<std::string> types = op_types(split);
  EXPECT_EQ(count(types, "ps_pull_sparse"), 2);
  EXPECT_EQ(count(types, "ps_push_sparse"), 2);
  // The sum of the renamed gradients went with the update.
  for (const OpDesc& op : split.block(0).ops) {
    for (const std::string& n : op.output_names())
      EXPECT_EQ(n.find(grad_name(m.table)), std::string::npos) << op.type << " writes " << n;
  }
}

// As Python's optimizers without sparse updates make it: sum(fill_any_like(W, 0), W@GRAD).
TEST(PsSplit, SparseGradientMadeDenseForTheUpdateIsPushedAsRows) {
  SparseModel m = sparse_model({"sgd", 0.1});
  Block& b = m.main.block(0);
  auto update = std::find_if(b.ops.begin(), b.ops.end(),
                             [&](const OpDesc& op) { return op.first_input("Param") == m.table; });
  ASSERT_NE(update, b.ops.end());
  update->set_input("Grad", {"dense_grad"});
  OpDesc zeros("fill_any_like"), sum("sum");
  zeros.set_input("X", {m.table}).set_output("Out", {"zeros"}).set_attr("value", 0.0);
  sum.set_input("X", {"zeros", grad_name(m.table)}).set_output("Out", {"dense_grad"});
  update = b.ops.insert(update, sum);
  b.ops.insert(update, zeros);
  b.add_var(VarDesc("zeros", DType::kF32, {testing::kSparseRows, testing::kSparseDim}));
  b.add_var(VarDesc("dense_grad", DType::kF32, {testing::kSparseRows, testing::kSparseDim}));
  const Program split = ps_split(m.main, all_distributed(m));
  const std::vector<std::string> types = op_types(split);
  EXPECT_EQ(count(types, "ps_push_sparse"), 1);
  EXPECT_EQ(count(types, "fill_any_like"), 1);  // the loss's seed only
  EXPECT_EQ(count(types, "sum"), 0);
  EXPECT_FALSE(declares(split, "zeros"));
  EXPECT_FALSE(declares(split, "dense_grad"));
}

TEST(PsSplit, ParametersLeftOutKeepTheirUpdateAndLearningRate) {
  const SparseModel m = sparse_model({"sgd", 0.1});
  PsSplitOptions o = all_distributed(m);
  o.dense = {{m.w, "fc.w"}};
  const Program split = ps_split(m.main, o);
  const OpDesc& sgd = op_of(split, "sgd");
  EXPECT_EQ(sgd.first_input("Param"), m.b);
  EXPECT_TRUE(declares(split, sgd.first_input("LearningRate")));
  EXPECT_EQ(count(op_types(split), "ps_pull_dense"), 1);
}

TEST(PsSplit, NothingToSplitLeavesTheProgram) {
  const SparseModel m = sparse_model({"sgd", 0.1});
  EXPECT_EQ(ps_split(m.main, {}), m.main);
}

TEST(PsSplitStartup, DropsTheInitialisationOfWhatTheServersHold) {
  const SparseModel m = sparse_model({"adam", 0.1});
  const Program split = ps_split(m.main, all_distributed(m));
  const Program startup = ps_split_startup(m.startup, m.main, split);
  std::vector<std::string> written;
  for (const OpDesc& op : startup.block(0).ops)
    for (const std::string& n : op.output_names()) written.push_back(n);
  EXPECT_EQ(written, (std::vector<std::string>{m.w, m.b}));
  EXPECT_FALSE(declares(startup, m.table));
  EXPECT_FALSE(declares(startup, "learning_rate_0"));
  EXPECT_TRUE(declares(startup, m.w));
}

TEST(PsSplit, RefusesATableAnotherOpReads) {
  SparseModelOptions o;
  o.tied_weights = true;
  const SparseModel m = sparse_model({"sgd", 0.1}, o);
  expect_refused(m.main, all_distributed(m),
                 {"op 'matmul'", "sparse_model.h", "reads sparse table 'emb.w'"});
}

TEST(PsSplit, RefusesAnOptimizerTheServersDoNotHave) {
  const SparseModel m = model_for("momentum");
  expect_refused(m.main, all_distributed(m), {"'emb.w'", "op 'momentum'", "sgd, adam or adagrad"});
}

TEST(PsSplit, RefusesALearningRateSchedule) {
  OptimizerConfig c{"sgd", 0.1};
  c.lr_schedule.type = "step_decay";
  const SparseModel m = sparse_model(c);
  expect_refused(m.main, all_distributed(m),
                 {"learning rate 'learning_rate_0'", "op 'lr_step_decay'", "schedule"});
}

TEST(PsSplit, RefusesWeightDecayOrClippingOfASparseTable) {
  OptimizerConfig decay{"sgd", 0.1};
  decay.weight_decay = 0.01;
  const SparseModel m = sparse_model(decay);
  expect_refused(m.main, all_distributed(m), {"gradient of sparse table 'emb.w'", "op 'scale'"});

  OptimizerConfig clip{"sgd", 0.1};
  clip.clip_global_norm = 1.0;
  const SparseModel c = sparse_model(clip);
  expect_refused(c.main, all_distributed(c), {"'emb.w'", "clip_by_global_norm"});
}

TEST(PsSplit, DenseParametersKeepWeightDecayOnTheTrainer) {
  OptimizerConfig decay{"sgd", 0.1};
  decay.weight_decay = 0.01;
  const SparseModel m = sparse_model(decay);
  PsSplitOptions o;
  o.dense = {{m.w, "fc.w"}, {m.b, "fc.b"}, {m.table, "emb"}};
  // Made dense by the decay, the table's gradient can go to a dense table whole.
  const Program split = ps_split(m.main, o);
  const std::string pushed = op_of(split, "ps_push_dense").first_input("X");
  EXPECT_NE(pushed, grad_name(m.w));  // the decayed gradient
  EXPECT_EQ(count(op_types(split), "scale"), 3);
}

TEST(PsSplit, RefusesBadOptions) {
  const SparseModel m = sparse_model({"sgd", 0.1});
  PsSplitOptions o = all_distributed(m);
  o.sparse[0].dim = 8;
  expect_refused(m.main, o, {"sparse table 'emb'", "'emb.w'", "[50, 4]", "[V, 8]"});
  o = all_distributed(m);
  o.dense.push_back({"nope", "t"});
  expect_refused(m.main, o, {"'nope'", "not a persistable tensor"});
  o = all_distributed(m);
  o.dense[1].table = "fc.w";
  expect_refused(m.main, o, {"table 'fc.w'", "two parameters"});
  o = all_distributed(m);
  o.dense = {{m.table, "emb"}};
  o.sparse.clear();
  expect_refused(m.main, o, {"'emb.w@GRAD'", "dense parameter 'emb.w'", "selected_rows"});
}

}  // namespace
}  // namespace skiff
