// The models of a repository as functions: a model is loaded when a request for it
// arrives (a cold start, timed from that request's arrival to its answer), stays loaded
// while it is called, and is unloaded after `idle_unload` without calls (scale to zero).
// A changed model folder (found by polling, or by a load through the repository API) is
// loaded beside the running version and swapped in: requests already queued finish on
// the old one, so none fails. Requests past --max-concurrency are refused at once (503).
//
//   ModelManager models({.repository = "models", .idle_unload = 30s}, &metrics);
//   InferResponse r = models.infer("mlp", "", std::move(request));
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "skiff/serve/infer_types.h"
#include "skiff/serve/metrics.h"
#include "skiff/serve/model_config.h"
#include "skiff/serve/model_runner.h"
#include "skiff/serve/repository.h"

namespace skiff::serve {

struct ManagerOptions {
  std::string repository;
  std::chrono::milliseconds idle_unload{0};      // 0: never unload for idleness
  std::chrono::milliseconds poll_interval{0};    // 0: read the folder only on demand
  size_t max_concurrency = 0;                    // requests answered at once; 0: no limit
  std::chrono::microseconds default_timeout{0};  // a request's deadline; 0: none
  bool preload = false;                          // load every model at start
};

// One model version as the metadata endpoints describe it.
struct ModelView {
  std::string name;
  std::vector<std::string> versions;  // the versions the policy makes available
  std::string platform;               // "" until loaded once
  ModelConfig config;
  bool ready = false;  // loaded now (a request would not cold start)
};

// A model's line in the repository index.
struct IndexEntry {
  std::string name;
  std::string version;  // the loaded version, or ""
  std::string state;    // "READY", "UNAVAILABLE", "LOADING"
  std::string reason;   // why it is unavailable
};

class ModelManager {
 public:
  ModelManager(ManagerOptions options, Metrics* metrics);
  ~ModelManager();
  ModelManager(const ModelManager&) = delete;
  ModelManager& operator=(const ModelManager&) = delete;

  // Answers a request for `model` (`version` "" for the latest), loading it first when
  // it is not loaded. Throws RequestError (404 unknown model or version, 400 a request
  // that does not fit the model, 429/503 overload, 504 past its deadline, 500 a model
  // that failed to load or run).
  InferResponse infer(const std::string& model, const std::string& version, InferRequest request);

  // Counts a request refused with `status` after `seconds` (one refused before reaching
  // infer, e.g. a body that does not decode), under its model and version where the
  // repository has them.
  void count_refused(const std::string& model, const std::string& version, int status,
                     double seconds = 0);
  // Throws RequestError 404 unless the repository has `model` (and `version`, "" for the
  // latest): checked before a request body is decoded.
  void check_known(const std::string& model, const std::string& version);
  // The model's description (404 RequestError for an unknown model or version); reading
  // it loads nothing.
  ModelView view(const std::string& model, const std::string& version);
  std::vector<IndexEntry> index();
  // Loads (or reloads, swapping in the new version) / unloads a model now.
  void load(const std::string& model);
  void unload(const std::string& model);
  // True when the repository folder could be read at the last scan.
  bool ready() const;

 private:
  struct Loaded;
  struct Entry;

  // The entry of `model`, read from its folder when the last scan did not see it; 404 for a
  // name that is no model folder of the repository.
  std::shared_ptr<Entry> entry_for(const std::string& model);
  std::shared_ptr<Loaded> acquire(const std::string& model, const std::string& version, bool* cold);
  std::shared_ptr<Loaded> load_version(const RepositoryModel& model, const ModelVersion& version);
  void load_entry(const std::string& name, bool reload);
  void rescan();
  void housekeeping();
  void publish_loaded_count();

  ManagerOptions options_;
  Metrics* metrics_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
  bool repository_ok_ = false;
  std::mutex in_flight_mu_;
  size_t in_flight_ = 0;
  bool stopping_ = false;
  std::thread housekeeper_;
};

}  // namespace skiff::serve
