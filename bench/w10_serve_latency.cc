// W10's latency part for skiff alone (bench/README.md, "Serving"): W6's MLP (784-512-512-10,
// batch 1) served by skiff serve's HTTP frontend in this process, called by a keep-alive
// C++ client on 127.0.0.1 with binary tensors, against the same model called in-process
// (the interpreted program and the compiled library, through the server's own model
// loaders). The client sends each request with one write and reads the answer either
// sleeping until it comes (as most clients do) or polling the socket for it (as a
// latency-bound caller may: no thread wake-up on its side). Prints p50/p99 per call, the
// ratio HTTP / in-process, and the cold start (an unloaded model: request arrival to
// answer, as the client sees it and as the server reports it).
//
//   w10_serve_latency [--calls 2000] [--threads 2] [--busy-poll-us 50]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <omp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bench/workloads.h"
#include "skiff/codegen/codegen.h"
#include "skiff/formats/params_file.h"
#include "skiff/ir/serialize.h"
#include "skiff/serve/http_server.h"
#include "skiff/serve/model_backend.h"

using namespace skiff;
namespace fs = std::filesystem;

namespace {

constexpr int kColdStarts = 15;

struct Percentiles {
  double p50, p99;
};

Percentiles percentiles(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)]};
}

template <typename F>
std::vector<double> timed_calls(int n, F&& call) {
  for (int i = 0; i < n / 10 + 10; ++i) call();  // warm-up
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return ms;
}

// A keep-alive HTTP/1.1 client for fixed requests: one send per request, the answer read
// until its Content-Length is in. `poll`: reads without sleeping.
class Client {
 public:
  Client(int port, bool poll) : port_(port), poll_(poll) { connect(); }
  ~Client() { ::close(fd_); }

  // Sends `request` and returns the answer's status.
  int call(const std::string& request) {
    for (int attempt = 0;; ++attempt) {
      SKIFF_CHECK(::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) ==
                      static_cast<ssize_t>(request.size()),
                  "send failed");
      const int status = read_answer();
      if (status > 0 || attempt > 0) return status;
      connect();  // the server closed the connection: once more on a new one
    }
  }

 private:
  void connect() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    SKIFF_CHECK(::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0,
                "cannot connect to 127.0.0.1:", port_);
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }

  // The answer's status, or 0 when the connection closed before it.
  int read_answer() {
    size_t have = 0;
    while (true) {
      ssize_t n;
      do n = ::recv(fd_, buf_.data() + have, buf_.size() - have, poll_ ? MSG_DONTWAIT : 0);
      while (n < 0 && (errno == EAGAIN || errno == EINTR));
      if (n <= 0) return 0;
      have += static_cast<size_t>(n);
      const std::string_view got(buf_.data(), have);
      const size_t head_end = got.find("\r\n\r\n");
      if (head_end == std::string_view::npos) continue;
      const size_t length_at = got.substr(0, head_end).find("Content-Length: ");
      const size_t length = length_at == std::string_view::npos
                                ? 0
                                : std::strtoul(buf_.data() + length_at + 16, nullptr, 10);
      SKIFF_CHECK(head_end + 4 + length <= buf_.size(), "answer larger than the client's buffer");
      if (have >= head_end + 4 + length) return std::atoi(buf_.data() + 9);
    }
  }

  int port_;
  bool poll_;
  int fd_ = -1;
  std::vector<char> buf_ = std::vector<char>(1 << 16);
};

// The repository: w6 (the program) and w6_compiled (its library).
fs::path write_repository(const Program& program) {
  const fs::path root = fs::temp_directory_path() / "skiff_w10_models";
  fs::remove_all(root);
  fs::create_directories(root / "w6" / "1");
  fs::create_directories(root / "w6_compiled" / "1");
  save_program(program, (root / "w6" / "1" / "model.skmodel").string());
  NamedTensors params;
  for (const bench::ParamValue& p : bench::mlp_params()) params.push_back({p.name, p.value});
  save_params((root / "w6" / "1" / "model.skparams").string(), params);
  codegen::CompileOptions o;
  o.out_dir = (root / "build").string();
  o.shared_library = true;
  const codegen::CompiledModel compiled =
      codegen::compile_model_file((root / "w6" / "1" / "model.skmodel").string(), o);
  fs::rename(compiled.library, root / "w6_compiled" / "1" / "libmodel.so");
  fs::remove_all(root / "build");
  return root;
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 2000, threads = 2, busy_poll_us = 50;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--calls")) calls = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--busy-poll-us")) busy_poll_us = std::atoi(argv[i + 1]);
  }
  omp_set_num_threads(threads);
  try {
    Program program;
    bench::mlp_inference_program(&program);
    const fs::path root = write_repository(program);
    const Tensor x = bench::image_batch({1, 784});

    serve::Metrics metrics;
    serve::ManagerOptions mo;
    mo.repository = root.string();
    serve::ModelManager models(mo, &metrics);
    serve::HttpOptions ho;
    ho.port = 0;
    ho.busy_poll = std::chrono::microseconds(busy_poll_us);
    serve::HttpServer http(&models, &metrics, ho);
    http.start();
    const std::string header = nlohmann::json{{"inputs",
                                               {{{"name", "x"},
                                                 {"shape", {1, 784}},
                                                 {"datatype", "FP32"},
                                                 {"parameters", {{"binary_data_size", 784 * 4}}}}}},
                                              {"parameters", {{"binary_data_output", true}}}}
                                   .dump();
    const std::string body =
        header + std::string(static_cast<const char*>(x.raw_data()), x.nbytes());
    auto infer_request = [&](const std::string& model) {
      return "POST /v2/models/" + model +
             "/infer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
             "Inference-Header-Content-Length: " +
             std::to_string(header.size()) + "\r\nContent-Length: " + std::to_string(body.size()) +
             "\r\n\r\n" + body;
    };
    const std::string health = "GET /v2/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    Client sleeping(http.port(), /*poll=*/false), polling(http.port(), /*poll=*/true);
    auto timed_http = [&](Client& client, const std::string& request) {
      return percentiles(timed_calls(calls, [&] {
        SKIFF_CHECK(client.call(request) == 200, "request failed: ", request.substr(0, 40));
      }));
    };

    // The transport's floor: a round trip that runs no model.
    const Percentiles transport = timed_http(sleeping, health);
    const Percentiles transport_polling = timed_http(polling, health);
    std::printf(
        "W10 latency: W6's MLP 784-512-512-10, batch 1, binary tensors, %d threads, %d "
        "calls, server polls %d us\n",
        threads, calls, busy_poll_us);
    std::printf(
        "  HTTP round trip without a model (GET /v2/health/live): p50 %.4f ms, p99 %.4f ms; "
        "polling client p50 %.4f ms\n",
        transport.p50, transport.p99, transport_polling.p50);
    std::printf("RESULT http_round_trip_p50_ms %.5f\nRESULT http_round_trip_polling_p50_ms %.5f\n",
                transport.p50, transport_polling.p50);
    std::printf("  %-22s %8s %9s %9s %7s %14s %7s\n", "model", "in-proc", "HTTP p50", "HTTP p99",
                "ratio", "polling p50", "ratio");
    for (const char* name : {"w6", "w6_compiled"}) {
      const bool compiled = std::strcmp(name, "w6_compiled") == 0;
      auto backend =
          compiled ? serve::load_compiled_model((root / name / "1" / "libmodel.so").string(), "", 1)
                   : serve::load_program_model((root / name / "1" / "model.skmodel").string(),
                                               (root / name / "1" / "model.skparams").string(), 1);
      const std::string request = infer_request(name);
      const Percentiles local = percentiles(timed_calls(calls, [&] { backend->run(0, {x}); }));
      const Percentiles remote = timed_http(sleeping, request);
      const Percentiles remote_polling = timed_http(polling, request);
      std::printf("  %-22s %8.4f %9.4f %9.4f %6.2fx %14.4f %6.2fx\n",
                  compiled ? "compiled library" : "program (interpreter)", local.p50, remote.p50,
                  remote.p99, remote.p50 / local.p50, remote_polling.p50,
                  remote_polling.p50 / local.p50);
      std::printf(
          "RESULT %s_in_process_p50_ms %.5f\nRESULT %s_http_p50_ms %.5f\n"
          "RESULT %s_http_p99_ms %.5f\nRESULT %s_http_polling_p50_ms %.5f\n",
          name, local.p50, name, remote.p50, name, remote.p99, name, remote_polling.p50);
      std::vector<double> cold_client;
      for (int r = 0; r < kColdStarts; ++r) {
        models.unload(name);
        const auto t0 = std::chrono::steady_clock::now();
        SKIFF_CHECK(sleeping.call(request) == 200, "request to ", name, " failed");
        cold_client.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
      }
      const double server_ms = metrics.last_cold_start(name) * 1e3;
      std::printf(
          "  %-22s cold start %.3f ms at the client (median of %d), %.3f ms by the "
          "server's metric (the last)\n",
          "", percentiles(cold_client).p50, kColdStarts, server_ms);
      std::printf("RESULT %s_cold_start_ms %.4f\n", name, percentiles(cold_client).p50);
    }
    http.stop();
    fs::remove_all(root);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "w10_serve_latency: %s\n", e.what());
    return 1;
  }
}
