#include "skiff/serve/metrics.h"

#include <chrono>
#include <sstream>

namespace skiff::serve {

namespace {

std::string number(double v) {
  std::ostringstream s;
  s.precision(12);
  s << v;
  return s.str();
}

// A label value with Prometheus' escapes (backslash, quote, newline).
std::string escaped(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string model_labels(const std::string& model, const std::string& version) {
  return "model=\"" + escaped(model) + "\",version=\"" + escaped(version) + "\"";
}

void header(const std::string& name, const char* type, const char* help, std::string* out) {
  *out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += value;
  ++count_;
}

void Histogram::render(const std::string& name, const std::string& labels, std::string* out) const {
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    const std::string le = i < bounds_.size() ? number(bounds_[i]) : "+Inf";
    *out += name + "_bucket{" + labels + ",le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
  }
  *out += name + "_sum{" + labels + "} " + number(sum_) + "\n";
  *out += name + "_count{" + labels + "} " + std::to_string(count_) + "\n";
}

Metrics::ModelSeries& Metrics::series(const std::string& model, const std::string& version) {
  return series_[Key{model, version}];
}

void Metrics::request(const std::string& model, const std::string& version, int status,
                      double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ModelSeries& s = series(model, version);
  ++s.requests_by_status[status];
  s.latency.observe(seconds);
  const auto ns = static_cast<uint64_t>(seconds * 1e9);
  if (status == 200) {
    ++s.totals.success_count;
    s.totals.success_ns += ns;
  } else {
    ++s.totals.fail_count;
    s.totals.fail_ns += ns;
  }
  s.totals.last_inference_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count();
}

void Metrics::batch(const std::string& model, const std::string& version, int requests,
                    int64_t rows, double queue_seconds, double compute_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ModelSeries& s = series(model, version);
  ++s.batches;
  s.batched_requests += static_cast<uint64_t>(requests);
  s.batch_rows.observe(static_cast<double>(rows));
  s.queue.observe(queue_seconds);
  s.compute.observe(compute_seconds);
  ++s.totals.execution_count;
  s.totals.inference_count += static_cast<uint64_t>(rows);
  s.totals.queue_ns += static_cast<uint64_t>(queue_seconds * 1e9);
  s.totals.compute_ns += static_cast<uint64_t>(compute_seconds * 1e9);
}

std::vector<ModelStats> Metrics::stats(const std::string& model) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ModelStats> out;
  for (const auto& [key, s] : series_) {
    const auto& [name, version] = key;
    if ((!model.empty() && name != model) || version.empty()) continue;
    ModelStats m = s.totals;
    m.model = name;
    m.version = version;
    out.push_back(m);
  }
  return out;
}

void Metrics::cold_start(const std::string& model, const std::string& version, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ModelSeries& s = series(model, version);
  s.cold_start.observe(seconds);
  s.last_cold_start = seconds;
}

void Metrics::set_models_loaded(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  models_loaded_ = n;
}

void Metrics::add_in_flight(int delta) {
  std::lock_guard<std::mutex> lock(mu_);
  in_flight_ += delta;
}

double Metrics::last_cold_start(const std::string& model) const {
  std::lock_guard<std::mutex> lock(mu_);
  double latest = 0;
  for (const auto& [key, s] : series_)
    if (std::get<0>(key) == model && s.last_cold_start > 0) latest = s.last_cold_start;
  return latest;
}

std::string Metrics::render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  header("skiff_serve_requests_total", "counter", "Inference requests answered, by HTTP status.",
         &out);
  for (const auto& [key, s] : series_)
    for (const auto& [status, n] : s.requests_by_status)
      out += "skiff_serve_requests_total{" + model_labels(std::get<0>(key), std::get<1>(key)) +
             ",code=\"" + std::to_string(status) + "\"} " + std::to_string(n) + "\n";
  struct Family {
    const char* name;
    const char* help;
    const Histogram ModelSeries::*histogram;
  };
  const Family families[] = {
      {"skiff_serve_request_duration_seconds", "From a request's arrival to its answer.",
       &ModelSeries::latency},
      {"skiff_serve_queue_duration_seconds", "How long a run's oldest request waited.",
       &ModelSeries::queue},
      {"skiff_serve_compute_duration_seconds", "How long a run of the model took.",
       &ModelSeries::compute},
      {"skiff_serve_batch_size", "Rows in a run of the model.", &ModelSeries::batch_rows},
      {"skiff_serve_cold_start_seconds",
       "From the arrival of a request that found the model unloaded to its answer.",
       &ModelSeries::cold_start},
  };
  for (const Family& f : families) {
    header(f.name, "histogram", f.help, &out);
    for (const auto& [key, s] : series_)
      (s.*f.histogram).render(f.name, model_labels(std::get<0>(key), std::get<1>(key)), &out);
  }
  header("skiff_serve_batched_requests_total", "counter",
         "Requests answered by runs of the model (over skiff_serve_batches_total: the mean "
         "requests per run).",
         &out);
  for (const auto& [key, s] : series_)
    out += "skiff_serve_batched_requests_total{" +
           model_labels(std::get<0>(key), std::get<1>(key)) + "} " +
           std::to_string(s.batched_requests) + "\n";
  header("skiff_serve_batches_total", "counter", "Runs of the model.", &out);
  for (const auto& [key, s] : series_)
    out += "skiff_serve_batches_total{" + model_labels(std::get<0>(key), std::get<1>(key)) + "} " +
           std::to_string(s.batches) + "\n";
  header("skiff_serve_models_loaded", "gauge", "Model versions loaded now.", &out);
  out += "skiff_serve_models_loaded " + std::to_string(models_loaded_) + "\n";
  header("skiff_serve_requests_in_flight", "gauge", "Inference requests being answered now.", &out);
  out += "skiff_serve_requests_in_flight " + std::to_string(in_flight_) + "\n";
  return out;
}

}  // namespace skiff::serve
