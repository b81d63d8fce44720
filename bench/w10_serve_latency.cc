// W10's latency part for skiff alone (bench/README.md, "Serving"): W6's MLP (784-512-512-10,
// batch 1) served by skiff serve's HTTP frontend in this process, called by a keep-alive
// C++ client on 127.0.0.1 with binary tensors, against the same model called in-process
// (the interpreted program and the compiled library, through the server's own model
// loaders). Prints p50/p99 per call, the ratio HTTP / in-process, and the cold start (an
// unloaded model: request arrival to answer, as the client sees it and as the server
// reports it).
//
//   w10_serve_latency [--calls 2000] [--threads 2]
#include <httplib.h>
#include <omp.h>

#include <algorithm>
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
  int calls = 2000, threads = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--calls")) calls = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
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
    serve::HttpServer http(&models, &metrics, ho);
    http.start();
    httplib::Client client("127.0.0.1", http.port());
    client.set_keep_alive(true);
    client.set_tcp_nodelay(true);  // headers and body go out in two writes
    const std::string header = nlohmann::json{{"inputs",
                                               {{{"name", "x"},
                                                 {"shape", {1, 784}},
                                                 {"datatype", "FP32"},
                                                 {"parameters", {{"binary_data_size", 784 * 4}}}}}},
                                              {"parameters", {{"binary_data_output", true}}}}
                                   .dump();
    const std::string body =
        header + std::string(static_cast<const char*>(x.raw_data()), x.nbytes());
    const httplib::Headers headers = {
        {"Inference-Header-Content-Length", std::to_string(header.size())}};
    auto post = [&](const std::string& model) {
      auto res =
          client.Post("/v2/models/" + model + "/infer", headers, body, "application/octet-stream");
      SKIFF_CHECK(res && res->status == 200, "request to ", model,
                  " failed: ", res ? res->body : httplib::to_string(res.error()));
    };

    // The transport's floor: a round trip that runs no model.
    const Percentiles transport = percentiles(timed_calls(calls, [&] {
      auto res = client.Get("/v2/health/live");
      SKIFF_CHECK(res && res->status == 200, "GET /v2/health/live failed");
    }));
    std::printf(
        "W10 latency: W6's MLP 784-512-512-10, batch 1, binary tensors, %d threads, %d "
        "calls\n",
        threads, calls);
    std::printf(
        "  HTTP round trip without a model (GET /v2/health/live): p50 %.4f ms, p99 %.4f "
        "ms\n",
        transport.p50, transport.p99);
    std::printf("RESULT http_round_trip_p50_ms %.5f\n", transport.p50);
    std::printf("  %-28s %9s %9s %9s %11s\n", "model", "in-proc", "HTTP p50", "HTTP p99",
                "HTTP/in-proc");
    for (const char* name : {"w6", "w6_compiled"}) {
      const bool compiled = std::strcmp(name, "w6_compiled") == 0;
      auto backend =
          compiled ? serve::load_compiled_model((root / name / "1" / "libmodel.so").string(), "", 1)
                   : serve::load_program_model((root / name / "1" / "model.skmodel").string(),
                                               (root / name / "1" / "model.skparams").string(), 1);
      const Percentiles local = percentiles(timed_calls(calls, [&] { backend->run(0, {x}); }));
      const Percentiles remote = percentiles(timed_calls(calls, [&] { post(name); }));
      std::printf("  %-28s %9.4f %9.4f %9.4f %10.2fx\n",
                  compiled ? "compiled library" : "program (interpreter)", local.p50, remote.p50,
                  remote.p99, remote.p50 / local.p50);
      std::printf(
          "RESULT %s_in_process_p50_ms %.5f\nRESULT %s_http_p50_ms %.5f\n"
          "RESULT %s_http_p99_ms %.5f\n",
          name, local.p50, name, remote.p50, name, remote.p99);
      std::vector<double> cold_client;
      for (int r = 0; r < kColdStarts; ++r) {
        models.unload(name);
        const auto t0 = std::chrono::steady_clock::now();
        post(name);
        cold_client.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
      }
      const double server_ms = metrics.last_cold_start(name) * 1e3;
      std::printf(
          "  %-28s cold start %.3f ms at the client (median of %d), %.3f ms by the "
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
