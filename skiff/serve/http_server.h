// The Open Inference Protocol (KServe v2 / Triton) over HTTP/1.1 (http_listener.h): health,
// server and model metadata, model config, readiness, inference (JSON tensors and the
// binary tensor extension), the repository API (index, load, unload) and /metrics. Each
// request is logged as one JSON line (the access log).
//
//   HttpServer http(&models, &metrics, {.host = "127.0.0.1", .port = 8000});
//   http.start();   // serves on its own threads until stop()
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>

#include "skiff/serve/http_listener.h"
#include "skiff/serve/metrics.h"
#include "skiff/serve/model_manager.h"

namespace skiff::serve {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8000;                    // 0: any free port (see port())
  size_t max_connections = 64;        // served at once (a thread each); more wait
  size_t max_body_bytes = 64u << 20;  // larger request bodies get 413
  // How long a connection polls for its client's next request before sleeping (see
  // ListenerOptions::busy_poll).
  std::chrono::microseconds busy_poll{50};
  std::string token;                   // when set, every endpoint but health needs it
  std::ostream* access_log = nullptr;  // one JSON line per request; null: none
};

class HttpServer {
 public:
  HttpServer(ModelManager* models, Metrics* metrics, HttpOptions options);
  ~HttpServer();
  // Binds (throwing an Error naming the address when it cannot) and serves on a thread.
  void start();
  void stop();
  int port() const;

 private:
  void handle(const HttpRequest& req, HttpResponse& res);
  void route(const HttpRequest& req, HttpResponse& res);
  void infer(const HttpRequest& req, const std::string& model, const std::string& version,
             HttpResponse& res);
  void log(const HttpRequest& req, const HttpResponse& res);

  ModelManager* models_;
  Metrics* metrics_;
  HttpOptions options_;
  std::unique_ptr<HttpListener> listener_;
  std::mutex log_mu_;
};

}  // namespace skiff::serve
