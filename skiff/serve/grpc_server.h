// The Open Inference Protocol (KServe v2 / Triton) over gRPC: the service
// inference.GRPCInferenceService (proto/grpc_inference.proto) that Triton's gRPC client
// calls: health, server and model metadata, model config, readiness, inference (raw or
// typed tensor contents) and the repository API (index, load, unload). Each call maps onto
// ModelManager as the HTTP frontend's endpoint does (http_server.h).
//
//   GrpcServer grpc(&models, &metrics, {.host = "127.0.0.1", .port = 8001});
//   grpc.start();   // serves on gRPC's own threads until stop()
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "skiff/serve/metrics.h"
#include "skiff/serve/model_manager.h"

namespace grpc {
class Server;
}

namespace skiff::serve {

struct GrpcOptions {
  std::string host = "127.0.0.1";
  int port = 8001;                       // 0: any free port (see port())
  size_t max_message_bytes = 64u << 20;  // larger requests get RESOURCE_EXHAUSTED
  std::string token;                     // when set, every call but ServerLive/Ready needs it
};

// The gRPC status code (grpc::StatusCode's value) for a RequestError's HTTP status: 400
// INVALID_ARGUMENT, 401 UNAUTHENTICATED, 404 NOT_FOUND, 413 and 429 RESOURCE_EXHAUSTED,
// 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED; 500 and any other INTERNAL.
int http_to_grpc_code(int status);

class GrpcServer {
 public:
  GrpcServer(ModelManager* models, Metrics* metrics, GrpcOptions options);
  ~GrpcServer();
  GrpcServer(const GrpcServer&) = delete;
  GrpcServer& operator=(const GrpcServer&) = delete;

  // Binds (throwing an Error naming the address when it cannot) and serves on gRPC's
  // threads. A token is checked against the `authorization: Bearer TOKEN` metadata.
  void start();
  // Stops serving; calls in progress get a moment to finish.
  void stop();
  // The port it listens on (the chosen one when options.port was 0); 0 before start().
  int port() const { return port_; }

 private:
  class Service;

  GrpcOptions options_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace skiff::serve
