// The server's request paths under AddressSanitizer: the HTTP frontend, the codec, the
// request checks, the model manager and the runner are compiled into this test with the
// sanitizer (tests/CMakeLists.txt) and serve a small program on 127.0.0.1. Good requests,
// every kind of bad one, and a bounded run of seeded mutations of a good body must each be
// answered (200 or 4xx with a JSON error), with no sanitizer report and the server alive.
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "skiff/api/builder.h"
#include "skiff/ir/serialize.h"
#include "skiff/runtime/executor.h"
#include "skiff/runtime/persistables.h"
#include "skiff/serve/http_server.h"

namespace skiff::serve {
namespace {

namespace fs = std::filesystem;

// A repository with one model "affine": y = x @ w + b, x [batch, 4] float32.
fs::path write_repository() {
  fs::path root = fs::temp_directory_path() / ("serve_asan_" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "affine" / "1");
  Program program;
  BlockBuilder b(&program);
  std::string x = b.data("x", DType::kF32, Shape{-1, 4});
  std::string w = b.persistable("w", DType::kF32, Shape{4, 3});
  std::string bias = b.persistable("b", DType::kF32, Shape{3});
  std::string xw = b.apply("matmul", {{"X", {x}}, {"Y", {w}}});
  std::string y = b.apply("elementwise_add", {{"X", {xw}}, {"Y", {bias}}});
  program.feed_names = {x};
  program.fetch_names = {y};
  Scope scope;
  Tensor wt = Tensor::empty(Shape{4, 3}, DType::kF32), bt = Tensor::empty(Shape{3}, DType::kF32);
  for (int i = 0; i < 12; ++i) wt.data<float>()[i] = 0.5f * static_cast<float>(i % 5) - 1.0f;
  for (int i = 0; i < 3; ++i) bt.data<float>()[i] = static_cast<float>(i);
  scope.var(w)->mutable_tensor()->copy_from(wt);
  scope.var(bias)->mutable_tensor()->copy_from(bt);
  save_program(program, (root / "affine" / "1" / "model.skmodel").string());
  save_persistables((root / "affine" / "1" / "model.skparams").string(), program, scope);
  std::ofstream(root / "affine" / "config.pbtxt")
      << "max_batch_size: 8\ndynamic_batching { max_queue_delay_microseconds: 1000 }\n";
  return root;
}

class ServerUnderAsan : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = write_repository();
    ManagerOptions mo;
    mo.repository = root_.string();
    mo.idle_unload = std::chrono::milliseconds(300);
    models_ = std::make_unique<ModelManager>(mo, &metrics_);
    HttpOptions ho;
    ho.port = 0;
    ho.max_connections = 4;
    ho.max_body_bytes = 1 << 20;
    http_ = std::make_unique<HttpServer>(models_.get(), &metrics_, ho);
    http_->start();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", http_->port());
    client_->set_read_timeout(30, 0);
  }
  void TearDown() override {
    client_.reset();
    http_->stop();
    http_.reset();
    models_.reset();
    fs::remove_all(root_);
  }
  // The status of POSTing `body` to the model's infer endpoint (with the binary header when
  // `json_size` is set); a 4xx must carry a JSON error.
  int infer(const std::string& body, std::optional<size_t> json_size = std::nullopt) {
    httplib::Headers headers;
    if (json_size) headers.emplace("Inference-Header-Content-Length", std::to_string(*json_size));
    auto res = client_->Post("/v2/models/affine/infer", headers, body, "application/json");
    if (!res) return -1;
    if (res->status >= 400) {
      auto reply = nlohmann::json::parse(res->body, nullptr, false);
      EXPECT_TRUE(reply.is_object() && reply.contains("error")) << res->body;
    }
    return res->status;
  }

  fs::path root_;
  Metrics metrics_;
  std::unique_ptr<ModelManager> models_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<httplib::Client> client_;
};

const char kGood[] = R"({"id":"a","inputs":[{"name":"x","shape":[2,4],"datatype":"FP32",)"
                     R"("data":[1,2,3,4,5,6,7,8]}],"parameters":{"binary_data_output":false}})";

TEST_F(ServerUnderAsan, GoodAndBadRequestsAreAnswered) {
  EXPECT_EQ(infer(R"({"inputs":[{"name":"x","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}]})"),
            200);
  const std::string bad[] = {
      "",
      "{",
      "[]",
      R"({"inputs":[]})",
      R"({"inputs":[{"name":"x","shape":[1,4],"datatype":"FP32","data":[1,2,3]}]})",
      R"({"inputs":[{"name":"x","shape":[1,5],"datatype":"FP32","data":[1,2,3,4,5]}]})",
      R"({"inputs":[{"name":"x","shape":[9,4],"datatype":"FP32","data":[]}]})",
      R"({"inputs":[{"name":"x","shape":[1,4],"datatype":"INT8","data":[1,2,3,4]}]})",
      R"({"inputs":[{"name":"x","shape":[-1,4],"datatype":"FP32","data":[]}]})",
      R"({"inputs":[{"name":"x","shape":[4611686018427387904,4],"datatype":"FP32","data":[]}]})",
      R"({"inputs":[{"name":"q","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}]})",
  };
  for (const std::string& body : bad) {
    const int status = infer(body);
    EXPECT_TRUE(status >= 400 && status < 500) << status << " for " << body;
  }
  const std::string header =
      R"({"inputs":[{"name":"x","shape":[1,4],"datatype":"FP32","parameters":{"binary_data_size":16}}]})";
  std::string binary(16, '\0');
  EXPECT_EQ(infer(header + binary, header.size()), 200);
  EXPECT_EQ(infer(header + binary.substr(0, 9), header.size()), 400);
  EXPECT_EQ(infer(header, header.size() + 64), 400);
  EXPECT_EQ(infer(std::string(2 << 20, ' ')), 413);
}

TEST_F(ServerUnderAsan, SeededMutationsOfAGoodBodyNeverBreakTheServer) {
  std::mt19937 rng(1234);
  const std::string good = kGood;
  const char alphabet[] = "{}[]\",:0123456789-.eE xyzFPINTUBOLnamedtshpe\\";
  int answered = 0;
  for (int round = 0; round < 400; ++round) {
    std::string body = good;
    const int edits = 1 + static_cast<int>(rng() % 6);
    for (int e = 0; e < edits && !body.empty(); ++e) {
      const size_t at = rng() % body.size();
      switch (rng() % 3) {
        case 0:
          body[at] = alphabet[rng() % (sizeof alphabet - 1)];
          break;
        case 1:
          body.erase(at, 1 + rng() % 8);
          break;
        default:
          body.insert(at, 1 + rng() % 4, alphabet[rng() % (sizeof alphabet - 1)]);
      }
    }
    const int status = infer(body);
    ASSERT_TRUE(status == 200 || (status >= 400 && status < 500)) << status << " for " << body;
    ++answered;
  }
  EXPECT_EQ(answered, 400);
  EXPECT_EQ(infer(kGood), 200);  // and still serving
}

TEST_F(ServerUnderAsan, UnloadsWhileRequestsComeAndGo) {
  const std::string body =
      R"({"inputs":[{"name":"x","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}]})";
  for (int round = 0; round < 4; ++round) {
    std::vector<std::thread> callers;
    std::atomic<int> ok{0};
    for (int t = 0; t < 4; ++t) {
      callers.emplace_back([&] {
        httplib::Client c("127.0.0.1", http_->port());
        for (int i = 0; i < 10; ++i) {
          auto res = c.Post("/v2/models/affine/infer", body, "application/json");
          if (res && res->status == 200) ++ok;
        }
      });
    }
    for (auto& t : callers) t.join();
    EXPECT_EQ(ok.load(), 40);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));  // past --idle-unload
  }
  EXPECT_EQ(metrics_.render().find("skiff_serve_models_loaded 1"), std::string::npos);
}

}  // namespace
}  // namespace skiff::serve
