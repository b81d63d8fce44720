// The server's metrics in Prometheus' text format (GET /metrics): per model and version,
// requests by outcome, request latency, queue time, batch sizes and cold starts; the
// models loaded and the requests in flight.
//
//   Metrics m;
//   m.request("mlp", "1", 200, 0.0012);
//   std::string page = m.render();
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace skiff::serve {

// Counts of observations at or below each bound, with their sum and count.
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double value);
  // `name{labels,le="..."} count` lines, then _sum and _count.
  void render(const std::string& name, const std::string& labels, std::string* out) const;

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // per bound, then +Inf
  double sum_ = 0;
  uint64_t count_ = 0;
};

// A model version's totals in the form of Triton's statistics extension (GET .../stats).
struct ModelStats {
  std::string model, version;
  int64_t last_inference_ms = 0;  // since the epoch; 0: never
  uint64_t inference_count = 0;   // rows answered
  uint64_t execution_count = 0;   // runs of the model
  uint64_t success_count = 0, fail_count = 0;
  uint64_t success_ns = 0, fail_ns = 0, queue_ns = 0, compute_ns = 0;
};

class Metrics {
 public:
  // A request answered with `status` after `seconds` (from arrival to answer).
  void request(const std::string& model, const std::string& version, int status, double seconds);
  // A run of the model: `requests` requests of `rows` rows in all, the oldest waited
  // `queue_seconds`.
  void batch(const std::string& model, const std::string& version, int requests, int64_t rows,
             double queue_seconds, double compute_seconds);
  // A request that found the model unloaded, answered `seconds` after it arrived.
  void cold_start(const std::string& model, const std::string& version, double seconds);
  void set_models_loaded(int n);
  void add_in_flight(int delta);
  // The page, every series in a stable order.
  std::string render() const;
  // The totals of every version of `model` ("" for every model) that has had requests.
  std::vector<ModelStats> stats(const std::string& model) const;
  // The latest cold start of a model, in seconds (0 when it has had none).
  double last_cold_start(const std::string& model) const;

 private:
  using Key = std::tuple<std::string, std::string>;  // model, version
  struct ModelSeries {
    std::map<int, uint64_t> requests_by_status;
    Histogram latency{{0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5}};
    Histogram queue{{0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1}};
    Histogram compute{{0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1}};
    Histogram batch_rows{{1, 2, 4, 8, 16, 32, 64, 128, 256}};
    Histogram cold_start{{0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10}};
    uint64_t batches = 0, batched_requests = 0;
    double last_cold_start = 0;
    ModelStats totals;
  };
  ModelSeries& series(const std::string& model, const std::string& version);

  mutable std::mutex mu_;
  std::map<Key, ModelSeries> series_;
  int models_loaded_ = 0;
  int64_t in_flight_ = 0;
};

}  // namespace skiff::serve
