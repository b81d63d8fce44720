// ModelRunner: requests run alone without dynamic batching; with it, concurrent requests of
// one shape join into batches (up to max_batch_size, a preferred size, or after the queue
// delay) and each caller gets its own rows; other shapes are not joined; a full queue
// answers 429, a passed deadline 504, a failed run 500 to every request of the batch.
#include "skiff/serve/model_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <vector>

#include "skiff/serve/infer_types.h"

namespace skiff::serve {
namespace {

// A model of one instance computing y = 2x, recording the rows of each run; it can be
// held (runs wait until released) or made to fail.
class DoublingModel : public ModelBackend {
 public:
  DoublingModel() {
    signature_.inputs = {{"x", DType::kF32, {-1, 2}}};
    signature_.outputs = {{"y", DType::kF32, {-1, 2}}};
  }
  const Signature& signature() const override { return signature_; }
  int num_instances() const override { return 1; }
  const char* platform() const override { return "test"; }
  std::vector<Tensor> run(int, const std::vector<Tensor>& inputs) override {
    std::unique_lock<std::mutex> lock(mu_);
    ++started_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return !held_; });
    runs_.push_back(inputs[0].dim(0));
    if (fail_) fail("the test model failed");
    Tensor y = Tensor::empty(inputs[0].shape(), DType::kF32);
    for (int64_t i = 0; i < y.numel(); ++i) y.data<float>()[i] = 2 * inputs[0].data<float>()[i];
    return {y};
  }
  void hold(bool held) {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = held;
    cv_.notify_all();
  }
  void wait_started(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return started_ >= n; });
  }
  std::vector<int64_t> runs() {
    std::lock_guard<std::mutex> lock(mu_);
    return runs_;
  }
  bool fail_ = false;

 private:
  Signature signature_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  int started_ = 0;
  std::vector<int64_t> runs_;
};

Tensor rows(int64_t n, float first, int64_t width = 2) {
  Tensor t = Tensor::empty(Shape{n, width}, DType::kF32);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = first + static_cast<float>(i);
  return t;
}

constexpr auto kNoDeadline = Clock::time_point::max();

RunnerOptions batching(int max_batch, std::vector<int> preferred, int delay_ms) {
  RunnerOptions o;
  o.max_batch_size = max_batch;
  o.dynamic_batching = true;
  o.preferred_batch_sizes = std::move(preferred);
  o.max_queue_delay = std::chrono::milliseconds(delay_ms);
  return o;
}

TEST(ModelRunner, WithoutBatchingEachRequestRunsAlone) {
  auto model = std::make_shared<DoublingModel>();
  RunnerOptions o;
  o.max_batch_size = 8;
  {
    ModelRunner runner(model, o);
    std::vector<std::future<std::vector<Tensor>>> answers;
    for (int i = 0; i < 4; ++i)
      answers.push_back(std::async(std::launch::async, [&runner, i] {
        return runner.infer({rows(1, 10.0f * i)}, kNoDeadline);
      }));
    for (int i = 0; i < 4; ++i) EXPECT_EQ(answers[i].get()[0].data<float>()[0], 20.0f * i);
  }
  EXPECT_EQ(model->runs(), (std::vector<int64_t>{1, 1, 1, 1}));
}

TEST(ModelRunner, ConcurrentRequestsJoinAndEachGetsItsRows) {
  auto model = std::make_shared<DoublingModel>();
  std::vector<int> batch_rows;
  std::mutex stats_mu;
  ModelRunner runner(model, batching(8, {4}, 10000), [&](const BatchStats& s) {
    std::lock_guard<std::mutex> lock(stats_mu);
    batch_rows.push_back(static_cast<int>(s.rows));
  });
  // Three requests of 1, 2 and 1 rows reach the preferred 4 and run at once.
  std::vector<std::future<std::vector<Tensor>>> answers;
  const int64_t sizes[] = {1, 2, 1};
  for (int i = 0; i < 3; ++i)
    answers.push_back(std::async(std::launch::async, [&runner, i, &sizes] {
      return runner.infer({rows(sizes[i], 100.0f * i)}, kNoDeadline);
    }));
  for (int i = 0; i < 3; ++i) {
    Tensor y = answers[i].get()[0];
    ASSERT_EQ(y.shape(), (Shape{sizes[i], 2}));
    for (int64_t k = 0; k < y.numel(); ++k)
      EXPECT_EQ(y.data<float>()[k], 2 * (100.0f * i + static_cast<float>(k)));
  }
  EXPECT_EQ(model->runs(), (std::vector<int64_t>{4}));
  std::lock_guard<std::mutex> lock(stats_mu);
  EXPECT_EQ(batch_rows, (std::vector<int>{4}));
}

TEST(ModelRunner, ALoneRequestRunsAfterTheQueueDelay) {
  auto model = std::make_shared<DoublingModel>();
  ModelRunner runner(model, batching(8, {4}, 20));
  EXPECT_EQ(runner.infer({rows(1, 1.0f)}, kNoDeadline)[0].data<float>()[0], 2.0f);
  EXPECT_EQ(model->runs(), (std::vector<int64_t>{1}));
}

TEST(ModelRunner, ShapesThatDifferPastTheBatchDimAreNotJoined) {
  auto model = std::make_shared<DoublingModel>();
  model->hold(true);
  ModelRunner runner(model, batching(8, {}, 50));
  auto blocker =
      std::async(std::launch::async, [&] { return runner.infer({rows(1, 0)}, kNoDeadline); });
  model->wait_started(1);
  auto a =
      std::async(std::launch::async, [&] { return runner.infer({rows(1, 0, 2)}, kNoDeadline); });
  auto b =
      std::async(std::launch::async, [&] { return runner.infer({rows(1, 0, 3)}, kNoDeadline); });
  while (runner.pending() < 3) std::this_thread::yield();
  model->hold(false);
  blocker.get();
  EXPECT_EQ(a.get()[0].shape(), (Shape{1, 2}));
  EXPECT_EQ(b.get()[0].shape(), (Shape{1, 3}));
  EXPECT_EQ(model->runs(), (std::vector<int64_t>{1, 1, 1}));
}

TEST(ModelRunner, AFullQueueAnswers429AtOnce) {
  auto model = std::make_shared<DoublingModel>();
  model->hold(true);
  RunnerOptions o;
  o.max_queue_size = 1;
  ModelRunner runner(model, o);
  auto running =
      std::async(std::launch::async, [&] { return runner.infer({rows(1, 0)}, kNoDeadline); });
  model->wait_started(1);
  auto queued =
      std::async(std::launch::async, [&] { return runner.infer({rows(1, 0)}, kNoDeadline); });
  while (runner.pending() < 2) std::this_thread::yield();
  try {
    runner.infer({rows(1, 0)}, kNoDeadline);
    FAIL() << "a third request found room";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.status(), 429);
    EXPECT_NE(std::string(e.what()).find("queue is full"), std::string::npos) << e.what();
  }
  model->hold(false);
  running.get();
  queued.get();
}

TEST(ModelRunner, ADeadlinePassedInTheQueueAnswers504WithoutRunning) {
  auto model = std::make_shared<DoublingModel>();
  model->hold(true);
  ModelRunner runner(model, RunnerOptions{});
  auto running =
      std::async(std::launch::async, [&] { return runner.infer({rows(1, 0)}, kNoDeadline); });
  model->wait_started(1);
  auto late = std::async(std::launch::async, [&] {
    return runner.infer({rows(1, 0)}, Clock::now() + std::chrono::milliseconds(1));
  });
  // The late request waits (pending 2) until its deadline passes; on a loaded machine it
  // may have waited and given up before this thread looks.
  while (runner.pending() < 2 &&
         late.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  model->hold(false);
  running.get();
  try {
    late.get();
    FAIL() << "the late request ran";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.status(), 504);
  }
  EXPECT_EQ(model->runs().size(), 1u);
}

TEST(ModelRunner, AFailedRunAnswers500ToEveryRequestOfItsBatch) {
  auto model = std::make_shared<DoublingModel>();
  model->fail_ = true;
  ModelRunner runner(model, batching(8, {2}, 10000));
  auto a = std::async(std::launch::async, [&] { return runner.infer({rows(1, 0)}, kNoDeadline); });
  auto b = std::async(std::launch::async, [&] { return runner.infer({rows(1, 0)}, kNoDeadline); });
  for (auto* f : {&a, &b}) {
    try {
      f->get();
      FAIL() << "a request of the failed batch was answered";
    } catch (const RequestError& e) {
      EXPECT_EQ(e.status(), 500);
      EXPECT_NE(std::string(e.what()).find("the test model failed"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace skiff::serve
