// The Open Inference Protocol (KServe v2 / Triton) over HTTP/1.1, on cpp-httplib: health,
// server and model metadata, model config, readiness, inference (JSON tensors and the
// binary tensor extension), the repository API (index, load, unload) and /metrics. Each
// request is logged as one JSON line (the access log).
//
//   HttpServer http(&models, &metrics, {.host = "127.0.0.1", .port = 8000});
//   http.start();   // serves on its own threads until stop()
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <thread>

#include "skiff/serve/metrics.h"
#include "skiff/serve/model_manager.h"

namespace httplib {
class Server;
}

namespace skiff::serve {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8000;                     // 0: any free port (see port())
  size_t threads = 16;                 // connections served at once
  size_t max_body_bytes = 64u << 20;   // larger request bodies get 413
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
  int port() const { return port_; }

 private:
  void routes();

  ModelManager* models_;
  Metrics* metrics_;
  HttpOptions options_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace skiff::serve
