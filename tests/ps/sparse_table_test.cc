// The row initializer (deterministic per seed and id, distributions) and the sparse
// table: rows made once, duplicate ids merged, admission, TTL eviction, save and load
// (values, optimizer state, ages, damaged files), concurrent pushes.
#include "skiff/ps/sparse_table.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "skiff/core/error.h"
#include "skiff/ps/id_index.h"
#include "skiff/ps/initializer.h"
#include "skiff/ps/shard.h"
#include "tests/testing/error_of.h"

namespace skiff::ps {
namespace {

using skiff::testing::error_of;

using Row = std::vector<float>;

Row initial_row(const InitializerConfig& init, int64_t id, int dim) {
  Row row(dim);
  init_row(init, id, row.data(), dim);
  return row;
}

InitializerConfig initializer(const std::string& kind, uint64_t seed = 0) {
  InitializerConfig init;
  init.kind = kind;
  init.seed = seed;
  return init;
}

// Initializer.

TEST(InitializerTest, SameSeedAndIdGiveTheSameRow) {
  for (const char* kind : {"uniform", "normal", "truncated_normal", "constant"}) {
    InitializerConfig init = initializer(kind, 11);
    init.value = 0.5f;
    for (int64_t id : {int64_t{0}, int64_t{-1}, int64_t{123456789}, INT64_MIN, INT64_MAX}) {
      EXPECT_EQ(initial_row(init, id, 16), initial_row(init, id, 16)) << kind << " id " << id;
    }
  }
}

TEST(InitializerTest, IdsAndSeedsGiveDifferentRows) {
  for (const char* kind : {"uniform", "normal", "truncated_normal"}) {
    InitializerConfig init = initializer(kind, 3);
    EXPECT_NE(initial_row(init, 1, 8), initial_row(init, 2, 8)) << kind;
    EXPECT_NE(initial_row(init, 1, 8), initial_row(init, -1, 8)) << kind;
    EXPECT_NE(initial_row(init, 1, 8), initial_row(initializer(kind, 4), 1, 8)) << kind;
    Row row = initial_row(init, 5, 8);
    EXPECT_NE(row[0], row[1]) << kind << ": elements of a row are independent";
  }
}

TEST(InitializerTest, SpansAreSlicesOfTheRow) {
  InitializerConfig init = initializer("normal", 9);
  Row whole = initial_row(init, 42, 10);
  Row tail(6);
  init_span(init, 42, 4, tail.data(), 6);
  EXPECT_EQ(Row(whole.begin() + 4, whole.end()), tail);
}

TEST(InitializerTest, UniformStaysWithinBoundsAndCoversThem) {
  InitializerConfig init = initializer("uniform", 1);
  init.low = -0.5f;
  init.high = 2.0f;
  float lo = 10, hi = -10;
  double sum = 0;
  const int ids = 4000, dim = 8;
  for (int64_t id = 0; id < ids; ++id) {
    for (float x : initial_row(init, id, dim)) {
      ASSERT_GE(x, init.low);
      ASSERT_LE(x, init.high);
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      sum += x;
    }
  }
  EXPECT_LT(lo, -0.49f);
  EXPECT_GT(hi, 1.99f);
  EXPECT_NEAR(sum / (ids * dim), 0.75, 0.02);
}

TEST(InitializerTest, NormalHasItsMeanAndStd) {
  InitializerConfig init = initializer("normal", 2);
  init.mean = 1.5f;
  init.std = 0.25f;
  const int ids = 20000, dim = 4;
  double sum = 0, squares = 0;
  for (int64_t id = -ids / 2; id < ids / 2; ++id) {
    for (float x : initial_row(init, id, dim)) {
      sum += x;
      squares += double(x) * x;
    }
  }
  const double n = double(ids) * dim;
  const double mean = sum / n, std = std::sqrt(squares / n - mean * mean);
  EXPECT_NEAR(mean, 1.5, 4 * 0.25 / std::sqrt(n));
  EXPECT_NEAR(std, 0.25, 0.005);
}

TEST(InitializerTest, TruncatedNormalStaysWithinTwoStd) {
  InitializerConfig init = initializer("truncated_normal", 5);
  init.std = 2;
  double squares = 0;
  for (int64_t id = 0; id < 5000; ++id) {
    for (float x : initial_row(init, id, 4)) {
      ASSERT_LE(std::fabs(x), 4.0f);
      squares += double(x) * x;
    }
  }
  // A standard normal truncated at 2 has std 0.880.
  EXPECT_NEAR(std::sqrt(squares / 20000), 2 * 0.880, 0.04);
}

TEST(InitializerTest, ConstantFillsTheValue) {
  InitializerConfig init = initializer("constant");
  init.value = -3.25f;
  EXPECT_EQ(initial_row(init, 77, 3), Row(3, -3.25f));
}

TEST(InitializerTest, BadConfigurationsNameTheTable) {
  EXPECT_NE(error_of([] {
              check_initializer(initializer("xavier"), "emb");
            }).find("table 'emb': unknown initializer kind 'xavier'"),
            std::string::npos);
  InitializerConfig bad = initializer("uniform");
  bad.low = 1;
  bad.high = 0;
  EXPECT_NE(error_of([&] { check_initializer(bad, "emb"); }).find("low <= high"),
            std::string::npos);
  bad = initializer("normal");
  bad.std = -1;
  EXPECT_NE(error_of([&] { check_initializer(bad, "emb"); }).find("std >= 0"), std::string::npos);
}

// Sparse table.

SparseTableConfig table_config(int dim, const std::string& optimizer = "sgd") {
  SparseTableConfig config;
  config.name = "emb";
  config.dim = dim;
  config.init = initializer("uniform", 17);
  config.optimizer.kind = optimizer;
  config.optimizer.lr = 0.1f;
  return config;
}

Row pull(SparseTable& table, const std::vector<int64_t>& ids) {
  Row out(ids.size() * table.dim(), -99.0f);
  table.pull(ids.data(), ids.size(), out.data());
  return out;
}

void push(SparseTable& table, const std::vector<int64_t>& ids, const Row& grads) {
  ASSERT_EQ(grads.size(), ids.size() * table.dim());
  table.push(ids.data(), ids.size(), grads.data());
}

// Deterministic gradients for `n` rows of `dim`, different per step.
Row gradients(size_t n, int dim, int step) {
  Row g(n * dim);
  for (size_t i = 0; i < g.size(); ++i) g[i] = std::sin(0.7 * i + 1.3 * step) * 0.5f;
  return g;
}

TEST(SparseTableTest, PullCreatesEachRowOnce) {
  SparseTable table(table_config(4));
  Row first = pull(table, {3, -7, 3});
  EXPECT_EQ(table.size(), 2u);
  Row three = initial_row(table.config().init, 3, 4),
      minus7 = initial_row(table.config().init, -7, 4);
  EXPECT_EQ(Row(first.begin(), first.begin() + 4), three);
  EXPECT_EQ(Row(first.begin() + 4, first.begin() + 8), minus7);
  EXPECT_EQ(Row(first.begin() + 8, first.end()), three);
  push(table, {3}, Row(4, 1.0f));
  Row again = pull(table, {3, -7});
  EXPECT_EQ(table.size(), 2u);
  EXPECT_FLOAT_EQ(again[0], three[0] - 0.1f);
  EXPECT_EQ(Row(again.begin() + 4, again.end()), minus7);
  SparseTable::Stats stats = table.stats();
  EXPECT_EQ(stats.rows, 2u);
  EXPECT_EQ(stats.pulls, 5u);
  EXPECT_EQ(stats.pushes, 1u);
}

TEST(SparseTableTest, ExtremeIdsAreRows) {
  SparseTable table(table_config(2));
  std::vector<int64_t> ids = {INT64_MIN, INT64_MAX, 0, -1};
  Row rows = pull(table, ids);
  EXPECT_EQ(table.size(), 4u);
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(Row(rows.begin() + 2 * i, rows.begin() + 2 * i + 2),
              initial_row(table.config().init, ids[i], 2));
  }
}

TEST(SparseTableTest, DuplicateIdsInAPushAreSummedIntoOneUpdate) {
  for (const char* optimizer : {"sgd", "adagrad", "adam"}) {
    SparseTable merged(table_config(3, optimizer)), single(table_config(3, optimizer));
    Row g = gradients(3, 3, 0);
    // ids 5, 9, 5 at once against 9 and the sum for 5.
    push(merged, {5, 9, 5}, g);
    Row sum5 = {g[0] + g[6], g[1] + g[7], g[2] + g[8]};
    push(single, {5}, sum5);
    push(single, {9}, Row(g.begin() + 3, g.begin() + 6));
    // A second step shows the optimizer state matches too.
    push(merged, {9, 5}, gradients(2, 3, 1));
    push(single, {9, 5}, gradients(2, 3, 1));
    EXPECT_EQ(pull(merged, {5, 9}), pull(single, {5, 9})) << optimizer;
    EXPECT_EQ(merged.stats().pushes, 5u);
  }
}

TEST(SparseTableTest, PushDeltaAddsToTheValues) {
  SparseTable table(table_config(2, "adam"));
  Row before = pull(table, {8});
  Row delta = {0.5f, -0.25f, 0.125f, 0.125f};
  table.push_delta(std::vector<int64_t>{8, 8}.data(), 2, delta.data());
  EXPECT_EQ(pull(table, {8}), (Row{before[0] + 0.625f, before[1] - 0.125f}));
}

TEST(SparseTableTest, IdsAreAdmittedAfterEnoughTouches) {
  SparseTableConfig config = table_config(2);
  config.admit_count = 3;
  SparseTable table(config);
  EXPECT_EQ(pull(table, {4, 4}), Row(4, 0.0f));  // one touch: duplicates count once
  push(table, {4}, Row{1, 1});                   // second touch: dropped
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.stats().dropped_unadmitted, 1u);
  EXPECT_EQ(pull(table, {4}), initial_row(config.init, 4, 2));  // third: created
  EXPECT_EQ(table.size(), 1u);

  // A push that admits the id creates the row and applies its gradient.
  pull(table, {6});
  pull(table, {6});
  push(table, {6}, Row{1, 2});
  Row six = initial_row(config.init, 6, 2);
  EXPECT_EQ(pull(table, {6}), (Row{six[0] - 0.1f * 1, six[1] - 0.1f * 2}));
  EXPECT_EQ(table.stats().dropped_unadmitted, 1u);
}

TEST(SparseTableTest, IdsAreAdmittedWithTheGivenProbabilityPerTouch) {
  SparseTableConfig config = table_config(2);
  config.admit_probability = 0.25;
  SparseTable table(config);
  const int64_t ids = 4000;
  std::vector<int64_t> all(ids);
  std::iota(all.begin(), all.end(), int64_t{0});
  Row rows(ids * 2);
  table.pull(all.data(), all.size(), rows.data());
  const double first = static_cast<double>(table.size()) / ids;
  EXPECT_NEAR(first, 0.25, 4 * std::sqrt(0.25 * 0.75 / ids));
  table.pull(all.data(), all.size(), rows.data());  // a second chance: 1 - 0.75^2 in all
  EXPECT_NEAR(static_cast<double>(table.size()) / ids, 1 - 0.75 * 0.75,
              4 * std::sqrt(0.4375 * 0.5625 / ids));

  // The draws depend on the seed, the id and the touch only: another table admits the same.
  SparseTable again(config);
  again.pull(all.data(), all.size(), rows.data());
  again.pull(all.data(), all.size(), rows.data());
  EXPECT_EQ(again.size(), table.size());
  for (int64_t id = 0; id < ids; ++id) {
    const bool here = pull(table, {id}) != Row(2, 0.0f);
    const bool there = pull(again, {id}) != Row(2, 0.0f);
    ASSERT_EQ(here, there) << "id " << id;
  }

  // With admit_count too, no id gets a row before that many touches.
  config.admit_count = 3;
  config.admit_probability = 1;
  SparseTable counted(config);
  pull(counted, {5});
  pull(counted, {5});
  EXPECT_EQ(counted.size(), 0u);
  pull(counted, {5});
  EXPECT_EQ(counted.size(), 1u);

  config.admit_probability = 1.5;
  EXPECT_NE(error_of([&] {
              SparseTable bad(config);
            }).find("sparse table 'emb': admit_probability must be in [0, 1], got 1.5"),
            std::string::npos);
}

TEST(SparseTableTest, ShrinkEvictsRowsUntouchedForTheTtl) {
  double now = 0;
  SparseTableConfig config = table_config(2);
  config.ttl_secs = 10;
  config.admit_count = 2;
  config.clock = [&now] { return now; };
  SparseTable table(config);
  pull(table, {1, 2, 3});
  pull(table, {1, 2, 3});  // admitted at t = 0
  pull(table, {9});        // pending at t = 0
  now = 5;
  push(table, {2}, Row{1, 1});
  now = 8;
  pull(table, {3});
  EXPECT_EQ(table.shrink(9.9), 0u);
  EXPECT_EQ(table.shrink(10), 1u);  // id 1: idle for 10 s
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.shrink(15), 1u);  // id 2
  EXPECT_EQ(table.stats().evicted, 2u);
  // The pending count of 9 went too: one more touch is not enough.
  now = 16;
  EXPECT_EQ(pull(table, {9}), Row(2, 0.0f));
  // An evicted id starts over from its initial row.
  pull(table, {1});
  EXPECT_EQ(pull(table, {1}), initial_row(config.init, 1, 2));

  SparseTable forever(table_config(2));
  pull(forever, {1});
  EXPECT_EQ(forever.shrink(1e12), 0u);
}

TEST(SparseTableTest, ShrinkTakesAnAgeOfItsOwn) {
  double now = 0;
  SparseTableConfig config = table_config(2);
  config.clock = [&now] { return now; };
  SparseTable table(config);  // no ttl of its own
  pull(table, {1});
  now = 4;
  pull(table, {2});
  EXPECT_EQ(table.shrink(6, 3), 1u);  // id 1: idle for 6 s
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(table.shrink(6), 0u);
}

TEST(IdIndexTest, FindsWhatWasInsertedThroughGrowthAndErasure) {
  IdIndex index;
  EXPECT_EQ(index.find(5), IdIndex::kNone);
  std::map<int64_t, uint32_t> want;
  // Ids of one lock stripe share the low bits of their hash: the index must spread them.
  for (int64_t k = 0; want.size() < 5000; ++k) {
    const int64_t id = k % 3 == 0 ? -k * 7919 : k * 1000003;
    if (mix64(static_cast<uint64_t>(id)) % 16 != 3 || want.count(id)) continue;
    const uint32_t slot = static_cast<uint32_t>(want.size());
    index.insert(id, slot);
    want[id] = slot;
  }
  index.insert(std::numeric_limits<int64_t>::min(), 5000);
  want[std::numeric_limits<int64_t>::min()] = 5000;
  ASSERT_EQ(index.size(), want.size());
  for (const auto& [id, slot] : want) ASSERT_EQ(index.find(id), slot) << id;
  EXPECT_EQ(index.find(42), IdIndex::kNone);

  index.for_each([](int64_t, uint32_t& slot) { slot += 1; });  // slots can be moved
  index.erase_if([](int64_t, uint32_t slot) { return slot % 2 == 0; });
  size_t kept = 0;
  for (const auto& [id, slot] : want) {
    const bool odd = (slot + 1) % 2 == 1;
    ASSERT_EQ(index.find(id), odd ? slot + 1 : IdIndex::kNone) << id;
    kept += odd;
  }
  EXPECT_EQ(index.size(), kept);
  IdIndex other;
  other.swap(index);
  IdIndex distinct;  // find_or_insert numbers ids by first appearance
  distinct.reserve(3);
  bool added = false;
  EXPECT_EQ(distinct.find_or_insert(-7, 0, &added), 0u);
  EXPECT_TRUE(added);
  EXPECT_EQ(distinct.find_or_insert(9, 1, &added), 1u);
  EXPECT_EQ(distinct.find_or_insert(-7, 2, &added), 0u);
  EXPECT_FALSE(added);
  EXPECT_EQ(distinct.size(), 2u);
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(other.size(), kept);
}

class SparseTableFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("skiff_sparse_table_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

// Pushes gradients for a few steps over ids that overlap between steps.
void train(SparseTable& table, int first_step, int steps) {
  for (int step = first_step; step < first_step + steps; ++step) {
    std::vector<int64_t> ids;
    for (int64_t k = 0; k < 20; ++k) ids.push_back((k * 7 + step * 3) % 30 - 10);
    push(table, ids, gradients(ids.size(), table.dim(), step));
  }
}

TEST_F(SparseTableFileTest, LoadRestoresValuesStateAndAges) {
  for (const char* optimizer : {"sgd", "adagrad", "adam"}) {
    double now = 100;
    SparseTableConfig config = table_config(5, optimizer);
    config.admit_count = 2;
    config.ttl_secs = 50;
    config.clock = [&now] { return now; };
    SparseTable saved(config);
    pull(saved, {-10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    train(saved, 0, 6);
    pull(saved, {1000});  // one touch: pending
    now = 120;
    push(saved, {0, 1}, gradients(2, 5, 9));
    now = 130;
    saved.save(path("emb.skps"));
    EXPECT_FALSE(std::filesystem::exists(path("emb.skps.tmp")));

    now = 1000;  // another process, another clock
    config.shards = 3;
    SparseTable loaded(config);
    loaded.load(path("emb.skps"));
    EXPECT_EQ(loaded.size(), saved.size());
    std::vector<int64_t> all;
    for (int64_t id = -10; id < 20; ++id) all.push_back(id);
    now = 130;
    train(saved, 6, 4);
    now = 1000;
    train(loaded, 6, 4);
    EXPECT_EQ(pull(loaded, all), pull(saved, all)) << optimizer;
    // The pending id needs one more touch in both.
    EXPECT_EQ(pull(loaded, {1000}), pull(saved, {1000}));
    EXPECT_EQ(loaded.size(), saved.size());

    // Ages survive: rows idle for 30 s when saved (all but 0 and 1, idle for 10 s) are
    // as old right after loading.
    SparseTable aged(config);
    aged.load(path("emb.skps"));
    const size_t rows = aged.size();
    EXPECT_EQ(aged.shrink(1000 + 19), 0u);
    EXPECT_EQ(aged.shrink(1000 + 20), rows - 2) << optimizer;
    EXPECT_EQ(aged.shrink(1000 + 40), 2u) << optimizer;
  }
}

TEST_F(SparseTableFileTest, DamagedFilesFailNamingTheFile) {
  SparseTable table(table_config(4, "adagrad"));
  train(table, 0, 3);
  const std::string good = path("good.skps");
  table.save(good);
  const std::string bytes = [&] {
    std::ifstream in(good, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  auto write = [&](const std::string& name, const std::string& content) {
    std::ofstream(path(name), std::ios::binary) << content;
    return path(name);
  };
  Row before = pull(table, {0, 1, 2});
  SparseTable target(table_config(4, "adagrad"));
  auto load_error = [&](const std::string& file) { return error_of([&] { target.load(file); }); };

  std::string truncated = write("truncated.skps", bytes.substr(0, bytes.size() / 2));
  std::string message = load_error(truncated);
  EXPECT_NE(message.find(truncated), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;

  std::string flipped_bytes = bytes;
  flipped_bytes[bytes.size() - 20] ^= 0x40;
  std::string flipped = write("flipped.skps", flipped_bytes);
  message = load_error(flipped);
  EXPECT_NE(message.find(flipped), std::string::npos) << message;
  EXPECT_NE(message.find("checksum"), std::string::npos) << message;

  std::string longer = write("longer.skps", bytes + "x");
  EXPECT_NE(load_error(longer).find("after the checksum"), std::string::npos);
  std::string garbage = write("garbage.skps", "hello world, not a table");
  EXPECT_NE(load_error(garbage).find("not a sparse table file"), std::string::npos);
  EXPECT_NE(load_error(path("missing.skps")).find("cannot open table file"), std::string::npos);
  EXPECT_EQ(target.size(), 0u) << "a failed load changes nothing";

  SparseTable wrong_dim(table_config(3, "adagrad"));
  message = error_of([&] { wrong_dim.load(good); });
  EXPECT_NE(message.find(good), std::string::npos) << message;
  EXPECT_NE(message.find("dim 4 but table 'emb' has dim 3"), std::string::npos) << message;
  SparseTable wrong_optimizer(table_config(4, "adam"));
  message = error_of([&] { wrong_optimizer.load(good); });
  EXPECT_NE(message.find("optimizer 'adagrad' but table 'emb' uses 'adam'"), std::string::npos)
      << message;

  target.load(good);
  EXPECT_EQ(pull(target, {0, 1, 2}), before);
}

TEST(SparseTableTest, ConcurrentPushesAddUp) {
  SparseTableConfig config = table_config(4);
  config.init = initializer("constant");
  config.optimizer.lr = 1;
  SparseTable table(config);
  const int threads = 4, steps = 2000;
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&table, t] {
      for (int step = 0; step < steps; ++step) {
        // Overlapping ids across threads, some repeated within a push.
        std::vector<int64_t> ids = {step % 50, (step + t) % 50, -(step % 7), step % 50};
        Row grads(ids.size() * 4, 0.25f);
        table.push(ids.data(), ids.size(), grads.data());
        Row out(ids.size() * 4);
        table.pull(ids.data(), ids.size(), out.data());
      }
    });
  }
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done) {  // rows only grow here: a count read later is never smaller
      const size_t earlier = table.size();
      EXPECT_LE(earlier, table.stats().rows);
    }
  });
  for (auto& w : workers) w.join();
  done = true;
  reader.join();
  // The sequential sum: every id's value is -0.25 times the times it was pushed.
  std::vector<double> expected(100, 0.0);
  for (int t = 0; t < threads; ++t) {
    for (int step = 0; step < steps; ++step) {
      for (int64_t id : {step % 50, (step + t) % 50, -(step % 7), step % 50}) {
        expected[id + 50] -= 0.25;
      }
    }
  }
  for (int64_t id = -50; id < 50; ++id) {
    if (expected[id + 50] == 0) continue;
    Row row = pull(table, {id});
    for (float x : row) ASSERT_EQ(x, expected[id + 50]) << "id " << id;
  }
  EXPECT_EQ(table.stats().pushes, uint64_t{threads * steps * 4});
}

TEST(SparseTableTest, BadConfigurationsNameTheTable) {
  SparseTableConfig config = table_config(0);
  EXPECT_NE(
      error_of([&] { SparseTable t(config); }).find("sparse table 'emb': dim must be positive"),
      std::string::npos);
  config = table_config(4, "rmsprop");
  EXPECT_NE(error_of([&] { SparseTable t(config); }).find("table 'emb': unknown optimizer kind"),
            std::string::npos);
  config = table_config(4);
  config.shards = 0;
  EXPECT_NE(error_of([&] { SparseTable t(config); }).find("shards"), std::string::npos);
}

}  // namespace
}  // namespace skiff::ps
