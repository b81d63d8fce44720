// The row optimizers against double-precision reference loops written from the
// textbook formulas (through update_row, a dense table and a sparse row), and the dense
// table: initial slices, push_delta, save and load, damaged files, concurrent pushes.
#include "skiff/ps/dense_table.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "skiff/core/error.h"
#include "skiff/ps/row_optimizer.h"
#include "skiff/ps/sparse_table.h"
#include "tests/testing/error_of.h"

namespace skiff::ps {
namespace {

using skiff::testing::error_of;

using Values = std::vector<float>;

constexpr int kSteps = 5;
constexpr int kDim = 7;

// The gradient of step `t` (0-based), with a zero, negatives and a large element.
Values gradient(int t) {
  Values g(kDim);
  for (int i = 0; i < kDim; ++i) g[i] = static_cast<float>(std::cos(1.1 * i + 0.4 * t) * (i + 1));
  g[3] = 0;
  return g;
}

OptimizerConfig optimizer(const std::string& kind) {
  OptimizerConfig c;
  c.kind = kind;
  c.lr = 0.05f;
  c.beta1 = 0.8f;
  c.beta2 = 0.95f;
  c.epsilon = 1e-6f;
  c.initial_g2sum = 0.1f;
  return c;
}

// kSteps updates of `w` written from the definitions, in double precision.
std::vector<double> reference(const OptimizerConfig& c, std::vector<double> w) {
  std::vector<double> g2sum(w.size(), c.initial_g2sum), m(w.size(), 0), v(w.size(), 0);
  for (int t = 1; t <= kSteps; ++t) {
    Values g = gradient(t - 1);
    for (size_t i = 0; i < w.size(); ++i) {
      if (c.kind == "sgd") {
        w[i] -= c.lr * g[i];
      } else if (c.kind == "adagrad") {
        g2sum[i] += double(g[i]) * g[i];
        w[i] -= c.lr * g[i] / (std::sqrt(g2sum[i]) + c.epsilon);
      } else {
        m[i] = c.beta1 * m[i] + (1 - double(c.beta1)) * g[i];
        v[i] = c.beta2 * v[i] + (1 - double(c.beta2)) * g[i] * g[i];
        double m_hat = m[i] / (1 - std::pow(double(c.beta1), t));
        double v_hat = v[i] / (1 - std::pow(double(c.beta2), t));
        w[i] -= c.lr * m_hat / (std::sqrt(v_hat) + c.epsilon);
      }
    }
  }
  return w;
}

void expect_close(const Values& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 2e-6 + 2e-6 * std::fabs(want[i])) << what << " element " << i;
  }
}

const char* const kOptimizers[] = {"sgd", "adagrad", "adam"};

TEST(RowOptimizerTest, UpdateRowMatchesTheReference) {
  for (const char* kind : kOptimizers) {
    OptimizerConfig c = optimizer(kind);
    Values w = {0.5f, -0.25f, 1.0f, 0.0f, 2.0f, -3.0f, 0.125f};
    std::vector<double> want = reference(c, std::vector<double>(w.begin(), w.end()));
    Values state(state_width(c, kDim), -1.0f);
    init_state(c, state.data(), kDim);
    for (int t = 0; t < kSteps; ++t)
      update_row(c, w.data(), state.data(), gradient(t).data(), kDim);
    expect_close(w, want, kind);
  }
}

TEST(RowOptimizerTest, StateWidths) {
  EXPECT_EQ(state_width(optimizer("sgd"), 10), 0);
  EXPECT_EQ(state_width(optimizer("adagrad"), 10), 10);
  EXPECT_EQ(state_width(optimizer("adam"), 10), 22);
}

TEST(RowOptimizerTest, BadConfigurationsNameTheTable) {
  EXPECT_NE(error_of([] {
              check_optimizer(optimizer("ftrl"), "emb");
            }).find("table 'emb': unknown optimizer kind 'ftrl'"),
            std::string::npos);
  OptimizerConfig c = optimizer("adam");
  c.beta1 = 1;
  EXPECT_NE(error_of([&] { check_optimizer(c, "emb"); }).find("beta1 and beta2 in [0, 1)"),
            std::string::npos);
  c = optimizer("adagrad");
  c.epsilon = 0;
  c.initial_g2sum = 0;
  EXPECT_NE(error_of([&] { check_optimizer(c, "emb"); }).find("epsilon > 0"), std::string::npos);
  c = optimizer("sgd");
  c.lr = -1;
  EXPECT_NE(error_of([&] { check_optimizer(c, "emb"); }).find("lr >= 0"), std::string::npos);
}

TEST(RowOptimizerTest, TablesMatchTheReference) {
  InitializerConfig init;
  init.kind = "normal";
  init.std = 1;
  init.seed = 4;
  for (const char* kind : kOptimizers) {
    DenseTable dense("fc", kDim, init, optimizer(kind));
    Values start(kDim);
    dense.pull(start.data());
    for (int t = 0; t < kSteps; ++t) dense.push(gradient(t).data());
    Values got(kDim);
    dense.pull(got.data());
    expect_close(got, reference(optimizer(kind), {start.begin(), start.end()}),
                 std::string("dense ") + kind);

    SparseTableConfig config;
    config.name = "emb";
    config.dim = kDim;
    config.init = init;
    config.optimizer = optimizer(kind);
    SparseTable sparse(config);
    const int64_t id = -12345;
    sparse.pull(&id, 1, start.data());
    for (int t = 0; t < kSteps; ++t) sparse.push(&id, 1, gradient(t).data());
    sparse.pull(&id, 1, got.data());
    expect_close(got, reference(optimizer(kind), {start.begin(), start.end()}),
                 std::string("sparse ") + kind);
  }
}

// Dense table.

InitializerConfig uniform(uint64_t seed) {
  InitializerConfig init;
  init.seed = seed;
  return init;
}

Values pull(const DenseTable& table) {
  Values out(table.size());
  table.pull(out.data());
  return out;
}

TEST(DenseTableTest, StartsFromTheInitializerAndSlicesAgree) {
  DenseTable whole("w", 10, uniform(3), optimizer("sgd"));
  Values expected(10);
  init_span(uniform(3), 0, 0, expected.data(), 10);
  EXPECT_EQ(pull(whole), expected);
  DenseTable head("w", 4, uniform(3), optimizer("sgd"));
  DenseTable tail("w", 6, uniform(3), optimizer("sgd"), 4);
  Values joined = pull(head), rest = pull(tail);
  joined.insert(joined.end(), rest.begin(), rest.end());
  EXPECT_EQ(joined, expected);
}

TEST(DenseTableTest, PushDeltaAddsWithoutTheOptimizer) {
  DenseTable table("w", 3, uniform(1), optimizer("adam"));
  Values before = pull(table);
  Values delta = {1, -2, 0.5f};
  table.push_delta(delta.data());
  Values after = pull(table);
  for (int i = 0; i < 3; ++i) EXPECT_FLOAT_EQ(after[i], before[i] + delta[i]);
  EXPECT_EQ(table.pushes(), 1u);
}

TEST(DenseTableTest, ConcurrentPushesAddUp) {
  InitializerConfig zero;
  zero.kind = "constant";
  OptimizerConfig sgd = optimizer("sgd");
  sgd.lr = 1;
  DenseTable table("w", 1000, zero, sgd);
  const int threads = 4, steps = 500;
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&table, t] {
      Values grad(1000), seen(1000);
      for (int i = 0; i < 1000; ++i) grad[i] = 0.25f * ((i + t) % 4);
      for (int step = 0; step < steps; ++step) {
        table.push(grad.data());
        table.pull(seen.data());
      }
    });
  }
  for (auto& w : workers) w.join();
  Values got = pull(table);
  for (int i = 0; i < 1000; ++i) {
    double sum = 0;
    for (int t = 0; t < threads; ++t) sum += 0.25 * ((i + t) % 4) * steps;
    ASSERT_EQ(got[i], -sum) << "element " << i;
  }
  EXPECT_EQ(table.pushes(), uint64_t{threads * steps});
}

class DenseTableFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("skiff_dense_table_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

TEST_F(DenseTableFileTest, LoadRestoresValuesAndState) {
  for (const char* kind : kOptimizers) {
    DenseTable saved("w", kDim, uniform(8), optimizer(kind));
    for (int t = 0; t < 3; ++t) saved.push(gradient(t).data());
    saved.save(path("w.skpd"));
    EXPECT_FALSE(std::filesystem::exists(path("w.skpd.tmp")));
    DenseTable loaded("w", kDim, uniform(99), optimizer(kind));
    loaded.load(path("w.skpd"));
    EXPECT_EQ(pull(loaded), pull(saved)) << kind;
    for (int t = 3; t < 6; ++t) {
      saved.push(gradient(t).data());
      loaded.push(gradient(t).data());
    }
    EXPECT_EQ(pull(loaded), pull(saved)) << kind;
  }
}

TEST_F(DenseTableFileTest, DamagedOrMismatchedFilesFailNamingTheFile) {
  DenseTable table("w", kDim, uniform(8), optimizer("adam"));
  table.push(gradient(0).data());
  const std::string good = path("good.skpd");
  table.save(good);
  std::string bytes;
  {
    std::ifstream in(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto write = [&](const std::string& name, const std::string& content) {
    std::ofstream(path(name), std::ios::binary) << content;
    return path(name);
  };
  DenseTable target("w", kDim, uniform(8), optimizer("adam"));
  const Values before = pull(target);
  auto load_error = [&](const std::string& file) { return error_of([&] { target.load(file); }); };

  std::string truncated = write("truncated.skpd", bytes.substr(0, bytes.size() - 9));
  std::string message = load_error(truncated);
  EXPECT_NE(message.find("table file '" + truncated + "'"), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
  std::string flipped_bytes = bytes;
  flipped_bytes[40] ^= 1;
  std::string flipped = write("flipped.skpd", flipped_bytes);
  message = load_error(flipped);
  EXPECT_NE(message.find(flipped), std::string::npos) << message;
  EXPECT_NE(message.find("checksum"), std::string::npos) << message;
  EXPECT_NE(load_error(write("empty.skpd", "")).find("truncated"), std::string::npos);
  EXPECT_EQ(pull(target), before) << "a failed load changes nothing";

  DenseTable smaller("w", kDim - 1, uniform(8), optimizer("adam"));
  message = error_of([&] { smaller.load(good); });
  EXPECT_NE(message.find(good), std::string::npos) << message;
  EXPECT_NE(message.find("holds 7 values but dense table 'w' has 6"), std::string::npos) << message;
  DenseTable sgd("w", kDim, uniform(8), optimizer("sgd"));
  message = error_of([&] { sgd.load(good); });
  EXPECT_NE(message.find("optimizer 'adam' but dense table 'w' uses 'sgd'"), std::string::npos)
      << message;
  SparseTableConfig config;
  config.name = "emb";
  config.dim = kDim;
  SparseTable sparse(config);
  EXPECT_NE(error_of([&] { sparse.load(good); }).find("not a sparse table file"),
            std::string::npos);
}

TEST(DenseTableTest, BadConfigurationsNameTheTable) {
  EXPECT_NE(error_of([] {
              DenseTable t("w", 0, uniform(0), optimizer("sgd"));
            }).find("dense table 'w': size must be positive"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              DenseTable t("w", 3, uniform(0), optimizer("lamb"));
            }).find("table 'w': unknown optimizer kind 'lamb'"),
            std::string::npos);
}

}  // namespace
}  // namespace skiff::ps
