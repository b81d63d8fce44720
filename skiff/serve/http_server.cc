#include "skiff/serve/http_server.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "skiff/core/error.h"
#include "skiff/serve/tensor_codec.h"

namespace skiff::serve {

namespace {

using Json = nlohmann::json;
constexpr char kJson[] = "application/json";

void send_error(HttpResponse& res, int status, const std::string& message) {
  res.status = status;
  res.content_type = kJson;
  res.body = encode_error(message);
}

void send_json(HttpResponse& res, const Json& body) {
  res.content_type = kJson;
  res.body = body.dump();
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

// Triton's statistics extension: the totals of every model (model ""), or of one.
Json model_stats(const Metrics& metrics, const std::string& model, const std::string& version) {
  Json list = Json::array();
  for (const ModelStats& m : metrics.stats(model)) {
    if (!version.empty() && m.version != version) continue;
    auto duration = [](uint64_t count, uint64_t ns) { return Json{{"count", count}, {"ns", ns}}; };
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
  return {{"model_stats", list}};
}

std::string iso_time_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// The Inference-Header-Content-Length header: the JSON's length in a body with binary
// tensors after it; nullopt without the header.
std::optional<size_t> header_length(const HttpRequest& req) {
  const std::string header(req.header("Inference-Header-Content-Length"));
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

// The path split at '/': "/v2/models/m/ready" -> {"v2", "models", "m", "ready"}. An empty
// segment ("//", a trailing '/') is kept, so such paths match no endpoint.
std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  if (path.empty() || path[0] != '/') return out;
  path.remove_prefix(1);
  while (true) {
    const size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) return out;
    path.remove_prefix(slash + 1);
  }
}

bool is_number(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

HttpServer::HttpServer(ModelManager* models, Metrics* metrics, HttpOptions options)
    : models_(models), metrics_(metrics), options_(std::move(options)) {
  ListenerOptions lo;
  lo.host = options_.host;
  lo.port = options_.port;
  lo.max_connections = options_.max_connections;
  lo.max_body_bytes = options_.max_body_bytes;
  lo.busy_poll = options_.busy_poll;
  listener_ = std::make_unique<HttpListener>(
      lo, [this](const HttpRequest& req, HttpResponse& res) { handle(req, res); });
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::start() { listener_->start(); }

void HttpServer::stop() { listener_->stop(); }

int HttpServer::port() const { return listener_->port(); }

void HttpServer::handle(const HttpRequest& req, HttpResponse& res) {
  if (!options_.token.empty() && req.path.rfind("/v2/health/", 0) != 0 &&
      req.header("Authorization") != "Bearer " + options_.token) {
    send_error(res, 401, "a valid token is needed: Authorization: Bearer TOKEN");
  } else {
    try {
      route(req, res);
    } catch (const RequestError& e) {
      send_error(res, e.status(), e.what());
    } catch (const std::exception& e) {
      send_error(res, 500, e.what());
    }
  }
  if (options_.access_log) log(req, res);
}

void HttpServer::route(const HttpRequest& req, HttpResponse& res) {
  bool get = req.method == "GET" || req.method == "HEAD", post = req.method == "POST";
  const std::vector<std::string_view> s = segments(req.path);
  const size_t n = s.size();
  auto is = [&](std::initializer_list<std::string_view> path) {
    return n == path.size() && std::equal(path.begin(), path.end(), s.begin());
  };
  // Health: the status is the answer (the protocol's); the body repeats it as KServe's
  // server and client have it ({"live": true}, {"ready": true}).
  if (get && is({"v2", "health", "live"})) {
    send_json(res, {{"live", true}});
    return;
  }
  if (get && is({"v2", "health", "ready"})) {
    const bool ready = models_->ready();
    res.status = ready ? 200 : 503;
    send_json(res, {{"ready", ready}});
    return;
  }
  if (get && is({"v2"})) {
    send_json(res,
              {{"name", kServerName},
               {"version", kServerVersion},
               {"extensions",
                {"binary_tensor_data", "model_repository", "model_configuration", "statistics"}}});
    return;
  }
  if (get && is({"metrics"})) {
    res.content_type = "text/plain; version=0.0.4";
    res.body = metrics_->render();
    return;
  }
  if (get && is({"v2", "models", "stats"})) {
    send_json(res, model_stats(*metrics_, "", ""));
    return;
  }
  // /v2/models/NAME[/versions/V][/ENDPOINT]
  if (n >= 3 && s[0] == "v2" && s[1] == "models" && !s[2].empty()) {
    const std::string model(s[2]);
    std::string version;
    size_t next = 3;
    if (n >= 5 && s[3] == "versions" && is_number(s[4])) {
      version = std::string(s[4]);
      next = 5;
    }
    const std::string_view endpoint = n == next + 1 ? s[next] : "";
    if (n > next + 1) get = post = false;  // more segments: no endpoint
    if (get && n == next) {
      send_json(res, model_metadata(models_->view(model, version)));
      return;
    }
    if (get && endpoint == "ready") {
      res.status = models_->view(model, version).ready ? 200 : 400;
      return;
    }
    if (get && endpoint == "config") {
      const ModelView view = models_->view(model, version);
      res.content_type = kJson;
      res.body = model_config_json(view.config, view.name, view.platform);
      return;
    }
    if (get && endpoint == "stats") {
      models_->check_known(model, version);
      send_json(res, model_stats(*metrics_, model, version));
      return;
    }
    if (post && endpoint == "infer") {
      infer(req, model, version, res);
      return;
    }
  }
  if (post && is({"v2", "repository", "index"})) {
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
    return;
  }
  if (post && n == 5 && s[0] == "v2" && s[1] == "repository" && s[2] == "models" && !s[3].empty() &&
      (s[4] == "load" || s[4] == "unload")) {
    if (s[4] == "load")
      models_->load(std::string(s[3]));
    else
      models_->unload(std::string(s[3]));
    send_json(res, Json::object());
    return;
  }
  send_error(res, 404, "no endpoint " + req.method + " " + req.path);
}

void HttpServer::infer(const HttpRequest& req, const std::string& model, const std::string& version,
                       HttpResponse& res) {
  InferRequest request;
  try {
    models_->check_known(model, version);
    DecodeLimits limits;
    limits.max_body_bytes = options_.max_body_bytes;
    request = decode_infer_request(req.body, header_length(req), limits);
  } catch (const RequestError& e) {
    // Refused before reaching the model (unknown, or a body that does not decode): counted
    // here, as the model counts the rest.
    models_->count_refused(model, version, e.status());
    throw;
  }
  InferResponse response = models_->infer(model, version, std::move(request));
  size_t response_json_size = 0;
  res.body = encode_infer_response(response, &response_json_size);
  if (response_json_size != res.body.size()) {
    res.headers.emplace_back("Inference-Header-Content-Length", std::to_string(response_json_size));
    res.content_type = "application/octet-stream";
  } else {
    res.content_type = kJson;
  }
}

void HttpServer::log(const HttpRequest& req, const HttpResponse& res) {
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - req.arrived)
          .count();
  const Json line = {{"time", iso_time_now()},       {"remote", req.remote},
                     {"method", req.method},         {"path", req.path},
                     {"status", res.status},         {"bytes_in", req.body.size()},
                     {"bytes_out", res.body.size()}, {"ms", ms}};
  const std::string text = line.dump() + "\n";
  std::lock_guard<std::mutex> lock(log_mu_);
  *options_.access_log << text << std::flush;
}

}  // namespace skiff::serve
