#include "skiff/serve/http_server.h"

#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "skiff/core/error.h"
#include "skiff/serve/tensor_codec.h"

namespace skiff::serve {

namespace {

using Json = nlohmann::json;
constexpr char kJson[] = "application/json";
constexpr char kModelPath[] = R"(/v2/models/([^/]+)(?:/versions/([0-9]+))?)";

void send_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(encode_error(message), kJson);
}

void send_json(httplib::Response& res, const Json& body) { res.set_content(body.dump(), kJson); }

// Runs `handle`, answering a RequestError with its status and any other failure with 500.
template <typename F>
void guarded(httplib::Response& res, F&& handle) {
  try {
    handle();
  } catch (const RequestError& e) {
    send_error(res, e.status(), e.what());
  } catch (const std::exception& e) {
    send_error(res, 500, e.what());
  }
}

std::string group(const httplib::Request& req, size_t i) {
  return req.matches.size() > i ? req.matches[i].str() : "";
}

Json tensor_metadata(const TensorConfig& t, int max_batch_size) {
  Json shape = Json::array();
  if (max_batch_size > 0) shape.push_back(-1);
  for (int64_t d : t.dims) shape.push_back(d);
  return {{"name", t.name}, {"datatype", datatype_name(t.dtype)}, {"shape", shape}};
}

Json model_metadata(const ModelView& view) {
  Json inputs = Json::array(), outputs = Json::array();
  for (const TensorConfig& t : view.config.inputs)
    inputs.push_back(tensor_metadata(t, view.config.max_batch_size));
  for (const TensorConfig& t : view.config.outputs)
    outputs.push_back(tensor_metadata(t, view.config.max_batch_size));
  return {{"name", view.name},
          {"versions", view.versions},
          {"platform", view.platform},
          {"inputs", inputs},
          {"outputs", outputs}};
}

std::string iso_time_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

thread_local std::chrono::steady_clock::time_point request_start;

// The Inference-Header-Content-Length header: the JSON's length in a body with binary
// tensors after it; nullopt without the header.
std::optional<size_t> header_length(const httplib::Request& req) {
  const std::string header = req.get_header_value("Inference-Header-Content-Length");
  if (header.empty()) return std::nullopt;
  size_t used = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(header, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != header.size())
    throw RequestError(
        400, "Inference-Header-Content-Length must be a byte count, got '" + header + "'");
  return static_cast<size_t>(n);
}

}  // namespace

HttpServer::HttpServer(ModelManager* models, Metrics* metrics, HttpOptions options)
    : models_(models),
      metrics_(metrics),
      options_(std::move(options)),
      server_(std::make_unique<httplib::Server>()) {
  routes();
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::routes() {
  httplib::Server& s = *server_;
  const size_t threads = options_.threads;
  s.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.set_payload_max_length(options_.max_body_bytes);
  s.set_tcp_nodelay(true);
  s.set_keep_alive_max_count(1000);

  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    request_start = std::chrono::steady_clock::now();
    if (options_.token.empty() || req.path.rfind("/v2/health/", 0) == 0)
      return httplib::Server::HandlerResponse::Unhandled;
    if (req.get_header_value("Authorization") != "Bearer " + options_.token) {
      send_error(res, 401, "a valid token is needed: Authorization: Bearer TOKEN");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404) send_error(res, 404, "no endpoint " + req.method + " " + req.path);
    if (res.status == 413) send_error(res, 413, "the request body is larger than the limit");
  });
  if (options_.access_log) {
    std::ostream* log = options_.access_log;
    auto mu = std::make_shared<std::mutex>();
    s.set_logger([log, mu](const httplib::Request& req, const httplib::Response& res) {
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                                  request_start)
                            .count();
      Json line = {{"time", iso_time_now()},       {"remote", req.remote_addr},
                   {"method", req.method},         {"path", req.path},
                   {"status", res.status},         {"bytes_in", req.body.size()},
                   {"bytes_out", res.body.size()}, {"ms", ms}};
      std::lock_guard<std::mutex> lock(*mu);
      *log << line.dump() << "\n" << std::flush;
    });
  }

  s.Get("/v2/health/live",
        [](const httplib::Request&, httplib::Response& res) { res.status = 200; });
  s.Get("/v2/health/ready", [this](const httplib::Request&, httplib::Response& res) {
    res.status = models_->ready() ? 200 : 503;
  });
  s.Get("/v2", [](const httplib::Request&, httplib::Response& res) {
    send_json(res,
              {{"name", kServerName},
               {"version", kServerVersion},
               {"extensions",
                {"binary_tensor_data", "model_repository", "model_configuration", "statistics"}}});
  });
  // Triton's statistics extension: the totals of every model, or of one.
  const auto stats = [this](const httplib::Request& req, httplib::Response& res) {
    guarded(res, [&] {
      const std::string model = group(req, 1), version = group(req, 2);
      if (!model.empty()) models_->check_known(model, version);
      Json list = Json::array();
      for (const ModelStats& m : metrics_->stats(model)) {
        if (!version.empty() && m.version != version) continue;
        auto duration = [](uint64_t count, uint64_t ns) {
          return Json{{"count", count}, {"ns", ns}};
        };
        list.push_back({{"name", m.model},
                        {"version", m.version},
                        {"last_inference", m.last_inference_ms},
                        {"inference_count", m.inference_count},
                        {"execution_count", m.execution_count},
                        {"inference_stats",
                         {{"success", duration(m.success_count, m.success_ns)},
                          {"fail", duration(m.fail_count, m.fail_ns)},
                          {"queue", duration(m.execution_count, m.queue_ns)},
                          {"compute_infer", duration(m.execution_count, m.compute_ns)}}}});
      }
      send_json(res, {{"model_stats", list}});
    });
  };
  s.Get("/v2/models/stats", stats);  // before kModelPath, which "stats" would match
  s.Get(std::string(kModelPath) + "/stats", stats);
  s.Get(kModelPath, [this](const httplib::Request& req, httplib::Response& res) {
    guarded(res,
            [&] { send_json(res, model_metadata(models_->view(group(req, 1), group(req, 2)))); });
  });
  s.Get(std::string(kModelPath) + "/ready",
        [this](const httplib::Request& req, httplib::Response& res) {
          guarded(res, [&] {
            res.status = models_->view(group(req, 1), group(req, 2)).ready ? 200 : 400;
          });
        });
  s.Get(std::string(kModelPath) + "/config",
        [this](const httplib::Request& req, httplib::Response& res) {
          guarded(res, [&] {
            const ModelView view = models_->view(group(req, 1), group(req, 2));
            res.set_content(model_config_json(view.config, view.name, view.platform), kJson);
          });
        });
  s.Post(std::string(kModelPath) + "/infer", [this](const httplib::Request& req,
                                                    httplib::Response& res) {
    guarded(res, [&] {
      const std::string model = group(req, 1), version = group(req, 2);
      InferRequest request;
      try {
        models_->check_known(model, version);
        DecodeLimits limits;
        limits.max_body_bytes = options_.max_body_bytes;
        request = decode_infer_request(req.body, header_length(req), limits);
      } catch (const RequestError& e) {
        // Refused before reaching the model (unknown, or a body that does not decode):
        // counted here, as the model counts the rest.
        models_->count_refused(model, version, e.status());
        throw;
      }
      InferResponse response = models_->infer(model, version, std::move(request));
      size_t response_json_size = 0;
      std::string body = encode_infer_response(response, &response_json_size);
      if (response_json_size != body.size()) {
        res.set_header("Inference-Header-Content-Length", std::to_string(response_json_size));
        res.set_content(std::move(body), "application/octet-stream");
      } else {
        res.set_content(std::move(body), kJson);
      }
    });
  });
  s.Post("/v2/repository/index", [this](const httplib::Request& req, httplib::Response& res) {
    guarded(res, [&] {
      bool ready_only = false;
      if (!req.body.empty()) {
        Json body = Json::parse(req.body, nullptr, false);
        if (body.is_discarded() || !body.is_object())
          throw RequestError(400, "the index request body must be a JSON object");
        ready_only = body.value("ready", false);
      }
      Json out = Json::array();
      for (const IndexEntry& e : models_->index()) {
        if (ready_only && e.state != "READY") continue;
        Json line = {{"name", e.name}, {"state", e.state}};
        if (!e.version.empty()) line["version"] = e.version;
        if (!e.reason.empty()) line["reason"] = e.reason;
        out.push_back(line);
      }
      send_json(res, out);
    });
  });
  s.Post(R"(/v2/repository/models/([^/]+)/load)",
         [this](const httplib::Request& req, httplib::Response& res) {
           guarded(res, [&] {
             models_->load(group(req, 1));
             send_json(res, Json::object());
           });
         });
  s.Post(R"(/v2/repository/models/([^/]+)/unload)",
         [this](const httplib::Request& req, httplib::Response& res) {
           guarded(res, [&] {
             models_->unload(group(req, 1));
             send_json(res, Json::object());
           });
         });
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics_->render(), "text/plain; version=0.0.4");
  });
}

void HttpServer::start() {
  if (options_.port == 0) {
    port_ = server_->bind_to_any_port(options_.host);
    SKIFF_CHECK(port_ > 0, "skiff serve: cannot bind HTTP to ", options_.host);
  } else {
    SKIFF_CHECK(server_->bind_to_port(options_.host, options_.port), "skiff serve: cannot bind ",
                "HTTP to ", options_.host, ":", options_.port,
                " (in use, or not an address of "
                "this machine)");
    port_ = options_.port;
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // httplib's stop() stops only a server whose loop runs: a stop() before it started would
  // be missed and the loop never end. The loop starts at once; 5 s bound a failed start.
  for (int i = 0; i < 5000 && !server_->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void HttpServer::stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace skiff::serve
