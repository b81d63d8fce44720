#include "skiff/serve/grpc_server.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "grpc_inference.grpc.pb.h"
#include "skiff/core/error.h"
#include "skiff/serve/grpc_tensor_codec.h"

namespace skiff::serve {

namespace {

using inference::ModelMetadataResponse;

// The model and version a call names, checked: a version is "" (the latest) or a number.
void check_model_name(const std::string& model, const std::string& version) {
  if (model.empty()) throw RequestError(400, "the request names no model (model name is empty)");
  for (char c : version)
    if (c < '0' || c > '9')
      throw RequestError(
          400,
          "model '" + model + "': version must be a whole number or empty, got '" + version + "'");
}

void add_tensor_metadata(const TensorConfig& t, int max_batch_size,
                         ModelMetadataResponse::TensorMetadata* out) {
  out->set_name(t.name);
  out->set_datatype(datatype_name(t.dtype));
  if (max_batch_size > 0) out->add_shape(-1);
  for (int64_t d : t.dims) out->add_shape(d);
}

// The client's gRPC deadline on the steady clock (max() when it set none).
std::chrono::steady_clock::time_point client_deadline(const grpc::ServerContext& context) {
  const auto deadline = context.deadline();
  const auto now = std::chrono::system_clock::now();
  if (deadline == std::chrono::system_clock::time_point::max() ||
      deadline - now > std::chrono::hours(24 * 365))
    return std::chrono::steady_clock::time_point::max();
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(deadline - now);
}

void reject_repository_name(const std::string& name) {
  if (!name.empty())
    throw RequestError(
        400, "repository_name must be empty (skiff serve has one repository), got '" + name + "'");
}

// Refuses a load or unload parameter other than `accepted` (a config or files to load
// with are not supported; unload_dependents has nothing to act on: skiff has no ensembles).
template <typename Parameters>
void reject_load_parameters(const Parameters& params, const std::string& model, const char* verb,
                            const std::string& accepted = "") {
  for (const auto& [key, value] : params)
    if (key != accepted)
      throw RequestError(
          400, "model '" + model + "': the " + verb + " parameter '" + key + "' is not supported");
}

}  // namespace

int http_to_grpc_code(int status) {
  switch (status) {
    case 400:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case 401:
      return grpc::StatusCode::UNAUTHENTICATED;
    case 404:
      return grpc::StatusCode::NOT_FOUND;
    case 413:
    case 429:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case 503:
      return grpc::StatusCode::UNAVAILABLE;
    case 504:
      return grpc::StatusCode::DEADLINE_EXCEEDED;
    default:
      return grpc::StatusCode::INTERNAL;
  }
}

// Each call: the token checked (but for ServerLive and ServerReady), then the ModelManager
// call of the HTTP endpoint it matches; a RequestError becomes its gRPC code.
class GrpcServer::Service final : public inference::GRPCInferenceService::Service {
 public:
  Service(ModelManager* models, Metrics* metrics, const GrpcOptions& options)
      : models_(models), metrics_(metrics), options_(options) {}

  grpc::Status ServerLive(grpc::ServerContext*, const inference::ServerLiveRequest*,
                          inference::ServerLiveResponse* reply) override {
    reply->set_live(true);
    return grpc::Status::OK;
  }

  grpc::Status ServerReady(grpc::ServerContext*, const inference::ServerReadyRequest*,
                           inference::ServerReadyResponse* reply) override {
    reply->set_ready(models_->ready());
    return grpc::Status::OK;
  }

  grpc::Status ModelReady(grpc::ServerContext* context, const inference::ModelReadyRequest* request,
                          inference::ModelReadyResponse* reply) override {
    return call(*context, [&] {
      check_model_name(request->name(), request->version());
      // An unknown model or version is not ready (as HTTP's 404 reads to a client).
      try {
        reply->set_ready(models_->view(request->name(), request->version()).ready);
      } catch (const RequestError& e) {
        if (e.status() != 404) throw;
        reply->set_ready(false);
      }
    });
  }

  grpc::Status ServerMetadata(grpc::ServerContext* context, const inference::ServerMetadataRequest*,
                              inference::ServerMetadataResponse* reply) override {
    return call(*context, [&] {
      reply->set_name(kServerName);
      reply->set_version(kServerVersion);
      reply->add_extensions("model_repository");
      reply->add_extensions("model_configuration");
    });
  }

  grpc::Status ModelMetadata(grpc::ServerContext* context,
                             const inference::ModelMetadataRequest* request,
                             ModelMetadataResponse* reply) override {
    return call(*context, [&] {
      check_model_name(request->name(), request->version());
      const ModelView view = models_->view(request->name(), request->version());
      reply->set_name(view.name);
      for (const std::string& v : view.versions) reply->add_versions(v);
      reply->set_platform(view.platform);
      for (const TensorConfig& t : view.config.inputs)
        add_tensor_metadata(t, view.config.max_batch_size, reply->add_inputs());
      for (const TensorConfig& t : view.config.outputs)
        add_tensor_metadata(t, view.config.max_batch_size, reply->add_outputs());
    });
  }

  grpc::Status ModelConfig(grpc::ServerContext* context,
                           const inference::ModelConfigRequest* request,
                           inference::ModelConfigResponse* reply) override {
    return call(*context, [&] {
      check_model_name(request->name(), request->version());
      const ModelView view = models_->view(request->name(), request->version());
      to_message(view.config, view.name, view.platform, reply->mutable_config());
    });
  }

  grpc::Status ModelInfer(grpc::ServerContext* context, const inference::ModelInferRequest* request,
                          inference::ModelInferResponse* reply) override {
    return call(*context, [&] {
      const std::string& model = request->model_name();
      const std::string& version = request->model_version();
      check_model_name(model, version);
      InferRequest decoded;
      try {
        models_->check_known(model, version);
        decoded = decode_grpc_infer_request(*request, DecodeLimits{});
      } catch (const RequestError& e) {
        // Refused before reaching the model: counted here, as the model counts the rest.
        models_->count_refused(model, version, e.status());
        throw;
      }
      decoded.deadline = client_deadline(*context);
      encode_grpc_infer_response(models_->infer(model, version, std::move(decoded)), reply);
    });
  }

  grpc::Status RepositoryIndex(grpc::ServerContext* context,
                               const inference::RepositoryIndexRequest* request,
                               inference::RepositoryIndexResponse* reply) override {
    return call(*context, [&] {
      reject_repository_name(request->repository_name());
      for (const IndexEntry& e : models_->index()) {
        if (request->ready() && e.state != "READY") continue;
        inference::RepositoryIndexResponse::ModelIndex* line = reply->add_models();
        line->set_name(e.name);
        line->set_version(e.version);
        line->set_state(e.state);
        line->set_reason(e.reason);
      }
    });
  }

  grpc::Status RepositoryModelLoad(grpc::ServerContext* context,
                                   const inference::RepositoryModelLoadRequest* request,
                                   inference::RepositoryModelLoadResponse*) override {
    return call(*context, [&] {
      reject_repository_name(request->repository_name());
      check_model_name(request->model_name(), "");
      reject_load_parameters(request->parameters(), request->model_name(), "load");
      models_->load(request->model_name());
    });
  }

  grpc::Status RepositoryModelUnload(grpc::ServerContext* context,
                                     const inference::RepositoryModelUnloadRequest* request,
                                     inference::RepositoryModelUnloadResponse*) override {
    return call(*context, [&] {
      reject_repository_name(request->repository_name());
      check_model_name(request->model_name(), "");
      reject_load_parameters(request->parameters(), request->model_name(), "unload",
                             "unload_dependents");
      models_->unload(request->model_name());
    });
  }

  grpc::Status ModelStatistics(grpc::ServerContext* context,
                               const inference::ModelStatisticsRequest* request,
                               inference::ModelStatisticsResponse* reply) override {
    return call(*context, [&] {
      if (!request->name().empty()) models_->check_known(request->name(), request->version());
      for (const ModelStats& m : metrics_->stats(request->name())) {
        if (!request->version().empty() && m.version != request->version()) continue;
        inference::ModelStatistics* out = reply->add_model_stats();
        out->set_name(m.model);
        out->set_version(m.version);
        out->set_last_inference(static_cast<uint64_t>(m.last_inference_ms));
        out->set_inference_count(m.inference_count);
        out->set_execution_count(m.execution_count);
        auto set = [](inference::StatisticDuration* d, uint64_t count, uint64_t ns) {
          d->set_count(count);
          d->set_ns(ns);
        };
        inference::InferStatistics* s = out->mutable_inference_stats();
        set(s->mutable_success(), m.success_count, m.success_ns);
        set(s->mutable_fail(), m.fail_count, m.fail_ns);
        set(s->mutable_queue(), m.execution_count, m.queue_ns);
        set(s->mutable_compute_infer(), m.execution_count, m.compute_ns);
      }
    });
  }

 private:
  // Checks the token, then runs `handle`, answering a RequestError with its code and any
  // other failure with INTERNAL.
  template <typename F>
  grpc::Status call(const grpc::ServerContext& context, F&& handle) {
    try {
      check_token(context);
      handle();
      return grpc::Status::OK;
    } catch (const RequestError& e) {
      return grpc::Status(static_cast<grpc::StatusCode>(http_to_grpc_code(e.status())), e.what());
    } catch (const std::exception& e) {
      return grpc::Status(grpc::StatusCode::INTERNAL, e.what());
    }
  }

  void check_token(const grpc::ServerContext& context) const {
    if (options_.token.empty()) return;
    const auto& metadata = context.client_metadata();
    const auto it = metadata.find("authorization");
    if (it == metadata.end() ||
        std::string(it->second.data(), it->second.size()) != "Bearer " + options_.token)
      throw RequestError(401, "a valid token is needed: metadata authorization: Bearer TOKEN");
  }

  ModelManager* models_;
  Metrics* metrics_;
  const GrpcOptions& options_;
};

GrpcServer::GrpcServer(ModelManager* models, Metrics* metrics, GrpcOptions options)
    : options_(std::move(options)),
      service_(std::make_unique<Service>(models, metrics, options_)) {}

GrpcServer::~GrpcServer() { stop(); }

void GrpcServer::start() {
  const bool ipv6 = options_.host.find(':') != std::string::npos;
  const std::string address =
      (ipv6 ? "[" + options_.host + "]" : options_.host) + ":" + std::to_string(options_.port);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port_);
  builder.RegisterService(service_.get());
  builder.SetMaxReceiveMessageSize(static_cast<int>(
      std::min<size_t>(options_.max_message_bytes, std::numeric_limits<int>::max())));
  builder.SetMaxSendMessageSize(-1);
  server_ = builder.BuildAndStart();
  SKIFF_CHECK(server_ && port_ > 0, "skiff serve: cannot bind gRPC to ", address,
              " (in use, or not an address of this machine)");
}

void GrpcServer::stop() {
  if (!server_) return;
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  server_->Wait();
  server_.reset();
}

}  // namespace skiff::serve
