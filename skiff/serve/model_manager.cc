#include "skiff/serve/model_manager.h"

#include <algorithm>
#include <iostream>
#include <optional>

#include "skiff/serve/model_backend.h"
#include "skiff/serve/request_check.h"

namespace skiff::serve {

namespace {

constexpr size_t kDefaultQueueSize = 1024;
constexpr auto kHousekeepingTick = std::chrono::milliseconds(100);

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

const char* platform_of(const RepositoryModel& model) {
  for (const ModelVersion& v : model.versions)
    if (v.artifact)
      return v.artifact->kind == ModelArtifact::Kind::kLibrary ? "skiff_compiled" : "skiff_program";
  return "";
}

std::string joined(const std::vector<int64_t>& versions) {
  std::string out;
  for (int64_t v : versions) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out.empty() ? "none" : out;
}

// A name that can only be a model folder of the repository: not empty, not hidden (".",
// ".." and the folders a scan skips), no path separator. Names come from request paths and
// gRPC messages: anything else would read outside the repository.
void check_folder_name(const std::string& model) {
  const bool plain = !model.empty() && model[0] != '.' &&
                     model.find_first_of(std::string("/\\\0", 3)) == std::string::npos;
  if (!plain) throw RequestError(404, "no model '" + model + "' in the repository");
}

// The version a request names ("" for the latest available), or a 404.
int64_t resolve_version(const RepositoryModel& model, const std::string& version) {
  if (model.available.empty())
    throw RequestError(503, "model '" + model.name + "' is unavailable: " +
                                (model.error.empty() ? "it has no version to serve" : model.error));
  if (version.empty()) return model.available.back();
  int64_t v = -1;
  try {
    v = std::stoll(version);
  } catch (const std::exception&) {
  }
  if (std::find(model.available.begin(), model.available.end(), v) == model.available.end())
    throw RequestError(404, "model '" + model.name + "' has no version " + version +
                                " to serve (available: " + joined(model.available) + ")");
  return v;
}

}  // namespace

struct ModelManager::Loaded {
  int64_t version = 0;
  std::string version_name;
  std::string platform;
  ModelConfig config;  // completed from the model's signature
  std::unique_ptr<ModelRunner> runner;
};

struct ModelManager::Entry {
  RepositoryModel repo;
  std::map<int64_t, std::shared_ptr<Loaded>> loaded;
  bool loading = false;
  std::string load_error;  // why the last load failed; "" after a good one
  // The config of the latest version as last loaded (kept after an unload, so metadata
  // needs no load to name the tensors); cleared when the model's files change.
  std::optional<ModelConfig> known_config;
  Clock::time_point last_used = Clock::now();
};

ModelManager::ModelManager(ManagerOptions options, Metrics* metrics)
    : options_(std::move(options)), metrics_(metrics) {
  rescan();
  SKIFF_CHECK(repository_ok_, "skiff serve: cannot read the model repository '",
              options_.repository, "'");
  if (options_.preload) {
    std::vector<std::string> names;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [name, entry] : entries_)
        if (entry->repo.error.empty()) names.push_back(name);
    }
    for (const std::string& name : names) {
      try {
        load_entry(name, /*reload=*/false);
      } catch (const std::exception& e) {
        std::cerr << "skiff serve: model '" << name << "' did not load: " << e.what() << "\n";
      }
    }
  }
  housekeeper_ = std::thread([this] { housekeeping(); });
}

ModelManager::~ModelManager() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (housekeeper_.joinable()) housekeeper_.join();
}

bool ModelManager::ready() const {
  std::lock_guard<std::mutex> lock(mu_);
  return repository_ok_;
}

std::shared_ptr<ModelManager::Loaded> ModelManager::load_version(const RepositoryModel& model,
                                                                 const ModelVersion& version) {
  if (!version.artifact) fail(version.error);
  const ModelArtifact& a = *version.artifact;
  const int instances = model.config ? std::max(1, model.config->instance_count) : 1;
  std::shared_ptr<ModelBackend> backend =
      a.kind == ModelArtifact::Kind::kLibrary
          ? load_compiled_model(a.model_path, a.params_path, instances)
          : load_program_model(a.model_path, a.params_path, instances);
  auto loaded = std::make_shared<Loaded>();
  loaded->version = version.version;
  loaded->version_name = std::to_string(version.version);
  loaded->platform = backend->platform();
  loaded->config = model.config ? complete_from_signature(*model.config, backend->signature())
                                : config_from_signature(model.name, backend->signature());
  const ModelConfig& c = loaded->config;
  RunnerOptions ro;
  ro.max_batch_size = c.max_batch_size;
  ro.dynamic_batching = c.dynamic_batching.enabled;
  ro.preferred_batch_sizes = c.dynamic_batching.preferred_batch_sizes;
  ro.max_queue_delay = std::chrono::microseconds(c.dynamic_batching.max_queue_delay_us);
  ro.max_queue_size = c.dynamic_batching.max_queue_size > 0
                          ? static_cast<size_t>(c.dynamic_batching.max_queue_size)
                          : kDefaultQueueSize;
  Metrics* metrics = metrics_;
  const std::string name = model.name, version_name = loaded->version_name;
  loaded->runner = std::make_unique<ModelRunner>(
      std::move(backend), ro, [metrics, name, version_name](const BatchStats& s) {
        metrics->batch(name, version_name, s.requests, s.rows, s.queue_seconds, s.compute_seconds);
      });
  return loaded;
}

std::shared_ptr<ModelManager::Loaded> ModelManager::acquire(const std::string& model,
                                                            const std::string& version,
                                                            bool* cold) {
  std::shared_ptr<Entry> entry = entry_for(model);
  std::unique_lock<std::mutex> lock(mu_);
  const int64_t v = resolve_version(entry->repo, version);
  entry->last_used = Clock::now();
  cv_.wait(lock, [&] { return !entry->loading; });
  auto found = entry->loaded.find(v);
  if (found != entry->loaded.end()) return found->second;
  *cold = true;
  entry->loading = true;
  const RepositoryModel repo = entry->repo;
  lock.unlock();
  std::shared_ptr<Loaded> loaded;
  std::string error;
  try {
    const ModelVersion* mv = repo.find_version(v);
    SKIFF_CHECK(mv, "version ", v, " is not in the repository any more");
    loaded = load_version(repo, *mv);
  } catch (const std::exception& e) {
    error = e.what();
  }
  lock.lock();
  entry->loading = false;
  entry->load_error = error;
  if (loaded) {
    entry->loaded[v] = loaded;
    if (v == entry->repo.available.back()) entry->known_config = loaded->config;
  }
  cv_.notify_all();
  lock.unlock();
  publish_loaded_count();
  if (!loaded)
    throw RequestError(
        500, "model '" + model + "' version " + std::to_string(v) + " failed to load: " + error);
  return loaded;
}

InferResponse ModelManager::infer(const std::string& model, const std::string& version,
                                  InferRequest request) {
  const Clock::time_point arrival = Clock::now();
  {
    std::lock_guard<std::mutex> lock(in_flight_mu_);
    if (options_.max_concurrency > 0 && in_flight_ >= options_.max_concurrency) {
      count_refused(model, version, 503);
      throw RequestError(503, "the server is answering " + std::to_string(in_flight_) +
                                  " requests, its --max-concurrency: try again later");
    }
    ++in_flight_;
  }
  metrics_->add_in_flight(1);
  struct Release {
    ModelManager* self;
    ~Release() {
      std::lock_guard<std::mutex> lock(self->in_flight_mu_);
      --self->in_flight_;
      self->metrics_->add_in_flight(-1);
    }
  } release{this};

  std::string version_name = version;
  try {
    bool cold = false;
    std::shared_ptr<Loaded> loaded = acquire(model, version, &cold);
    version_name = loaded->version_name;
    const ModelConfig& config = loaded->config;
    std::vector<Tensor> inputs = checked_inputs(config, request);
    std::vector<AnsweredOutput> answered = answered_outputs(config, request);
    int64_t timeout_us = request.timeout_us;
    if (timeout_us <= 0) timeout_us = config.dynamic_batching.default_timeout_us;
    if (timeout_us <= 0) timeout_us = options_.default_timeout.count();
    const Clock::time_point deadline =
        std::min(request.deadline, timeout_us > 0 ? arrival + std::chrono::microseconds(timeout_us)
                                                  : Clock::time_point::max());
    std::vector<Tensor> outputs = loaded->runner->infer(std::move(inputs), deadline);
    InferResponse response;
    response.model_name = model;
    response.model_version = loaded->version_name;
    response.id = request.id;
    for (const AnsweredOutput& a : answered)
      response.outputs.push_back({config.outputs[a.index].name, outputs.at(a.index), a.binary});
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = entries_.find(model);
      if (it != entries_.end()) it->second->last_used = Clock::now();
    }
    const double seconds = seconds_since(arrival);
    metrics_->request(model, version_name, 200, seconds);
    if (cold) metrics_->cold_start(model, version_name, seconds);
    return response;
  } catch (const RequestError& e) {
    count_refused(model, version_name, e.status(), seconds_since(arrival));
    throw;
  }
}

void ModelManager::count_refused(const std::string& model, const std::string& version, int status,
                                 double seconds) {
  // Counted under the model and version the repository has, else under "": names a
  // request makes up would each make a series of their own.
  std::string model_label, version_label;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(model);
    if (it != entries_.end()) {
      model_label = model;
      const auto& available = it->second->repo.available;
      for (int64_t v : available)
        if (std::to_string(v) == version) version_label = version;
    }
  }
  metrics_->request(model_label, version_label, status, seconds);
}

std::shared_ptr<ModelManager::Entry> ModelManager::entry_for(const std::string& model) {
  check_folder_name(model);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(model);
    if (it != entries_.end()) return it->second;
  }
  // A folder added since the last scan is served at once (read off the lock).
  RepositoryModel scanned = scan_model(options_.repository, model);
  if (!scanned.fingerprint) throw RequestError(404, "no model '" + model + "' in the repository");
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, added] = entries_.emplace(model, nullptr);
  if (added) {
    it->second = std::make_shared<Entry>();
    it->second->repo = std::move(scanned);
  }
  return it->second;
}

void ModelManager::check_known(const std::string& model, const std::string& version) {
  std::shared_ptr<Entry> entry = entry_for(model);
  std::lock_guard<std::mutex> lock(mu_);
  resolve_version(entry->repo, version);
}

ModelView ModelManager::view(const std::string& model, const std::string& version) {
  std::shared_ptr<Entry> entry = entry_for(model);
  ModelView view;
  view.name = model;
  std::unique_lock<std::mutex> lock(mu_);
  const RepositoryModel& repo = entry->repo;
  for (int64_t v : repo.available) view.versions.push_back(std::to_string(v));
  view.platform = platform_of(repo);
  const int64_t v = resolve_version(repo, version);
  view.ready = entry->load_error.empty();
  auto found = entry->loaded.find(v);
  if (found != entry->loaded.end()) {
    view.config = found->second->config;
    return view;
  }
  if (v == repo.available.back() && entry->known_config) {
    view.config = *entry->known_config;
    return view;
  }
  if (repo.config && !repo.config->inputs.empty() && !repo.config->outputs.empty()) {
    view.config = *repo.config;
    return view;
  }
  // The tensors come from the model itself: load it (as its first request would).
  lock.unlock();
  bool cold = false;
  view.config = acquire(model, version, &cold)->config;
  return view;
}

std::vector<IndexEntry> ModelManager::index() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<IndexEntry> out;
  for (const auto& [name, entry] : entries_) {
    IndexEntry e;
    e.name = name;
    if (entry->loading) {
      e.state = "LOADING";
    } else if (!entry->loaded.empty()) {
      e.state = "READY";
      e.version = entry->loaded.rbegin()->second->version_name;
    } else {
      e.state = "UNAVAILABLE";
      e.reason = !entry->repo.error.empty()   ? entry->repo.error
                 : !entry->load_error.empty() ? "failed to load: " + entry->load_error
                                              : "unloaded (loads on its next request)";
    }
    out.push_back(e);
  }
  return out;
}

void ModelManager::load_entry(const std::string& name, bool reload) {
  check_folder_name(name);
  RepositoryModel repo = scan_model(options_.repository, name);
  if (!repo.fingerprint) throw RequestError(404, "no model '" + name + "' in the repository");
  if (!repo.error.empty())
    throw RequestError(400, "model '" + name + "' cannot be loaded: " + repo.error);
  std::shared_ptr<Entry> entry;
  {
    std::unique_lock<std::mutex> lock(mu_);
    auto it = entries_.find(name);
    if (it == entries_.end()) it = entries_.emplace(name, std::make_shared<Entry>()).first;
    entry = it->second;
    cv_.wait(lock, [&] { return !entry->loading; });
    if (!reload && !entry->loaded.empty()) return;
    entry->loading = true;
  }
  std::map<int64_t, std::shared_ptr<Loaded>> fresh;
  std::string error;
  try {
    for (int64_t v : repo.available) fresh[v] = load_version(repo, *repo.find_version(v));
  } catch (const std::exception& e) {
    error = e.what();
  }
  std::map<int64_t, std::shared_ptr<Loaded>> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    entry->loading = false;
    entry->load_error = error;
    if (error.empty()) {
      // The swap: new requests take the new versions; queued ones finish on the old.
      entry->repo = repo;
      old.swap(entry->loaded);
      entry->loaded = std::move(fresh);
      entry->known_config.reset();
      if (!entry->loaded.empty()) entry->known_config = entry->loaded.rbegin()->second->config;
      entry->last_used = Clock::now();
    }
    cv_.notify_all();
  }
  old.clear();  // the old runners answer their queues, then stop
  publish_loaded_count();
  if (!error.empty()) throw RequestError(400, "model '" + name + "' failed to load: " + error);
}

void ModelManager::load(const std::string& model) { load_entry(model, /*reload=*/true); }

void ModelManager::unload(const std::string& model) {
  std::map<int64_t, std::shared_ptr<Loaded>> old;
  {
    std::unique_lock<std::mutex> lock(mu_);
    auto it = entries_.find(model);
    if (it == entries_.end()) throw RequestError(404, "no model '" + model + "' in the repository");
    cv_.wait(lock, [&] { return !it->second->loading; });
    old.swap(it->second->loaded);
  }
  old.clear();
  publish_loaded_count();
}

void ModelManager::rescan() {
  Repository repo;
  try {
    repo = scan_repository(options_.repository);
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(mu_);
    repository_ok_ = false;
    return;
  }
  std::vector<std::string> reload;
  std::vector<std::map<int64_t, std::shared_ptr<Loaded>>> removed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    repository_ok_ = true;
    std::map<std::string, std::shared_ptr<Entry>> next;
    for (RepositoryModel& m : repo.models) {
      auto it = entries_.find(m.name);
      if (it == entries_.end()) {
        auto entry = std::make_shared<Entry>();
        entry->repo = std::move(m);
        next.emplace(entry->repo.name, std::move(entry));
        continue;
      }
      std::shared_ptr<Entry> entry = it->second;
      if (entry->repo.fingerprint != m.fingerprint) {
        if (!entry->loaded.empty()) {
          reload.push_back(m.name);  // swapped in below; the loaded versions serve meanwhile
        } else {
          entry->repo = std::move(m);
          entry->load_error.clear();
          entry->known_config.reset();
        }
      }
      next.emplace(it->first, std::move(entry));
    }
    // A removed folder's model unloads (one being loaded stays until its load ends).
    for (auto& [name, entry] : entries_) {
      if (next.count(name)) continue;
      if (entry->loading) {
        next.emplace(name, entry);
      } else {
        removed.emplace_back().swap(entry->loaded);
      }
    }
    entries_.swap(next);
  }
  removed.clear();  // their runners answer their queues, then stop
  publish_loaded_count();
  for (const std::string& name : reload) {
    try {
      load_entry(name, /*reload=*/true);
    } catch (const std::exception& e) {
      std::cerr << "skiff serve: model '" << name << "' changed but did not reload (the loaded "
                << "version keeps serving): " << e.what() << "\n";
    }
  }
}

void ModelManager::housekeeping() {
  Clock::time_point next_poll = Clock::now() + options_.poll_interval;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, kHousekeepingTick);
    if (stopping_) break;
    if (options_.idle_unload.count() > 0) {
      std::vector<std::shared_ptr<Loaded>> idle;
      const Clock::time_point now = Clock::now();
      for (auto& [name, entry] : entries_) {
        if (entry->loading || entry->loaded.empty() ||
            now - entry->last_used < options_.idle_unload)
          continue;
        bool busy = false;
        for (auto& [v, loaded] : entry->loaded) busy = busy || loaded->runner->pending() > 0;
        if (busy) continue;
        for (auto& [v, loaded] : entry->loaded) idle.push_back(loaded);
        entry->loaded.clear();
      }
      if (!idle.empty()) {
        lock.unlock();
        idle.clear();  // scale to zero: the runners stop here, off the lock
        publish_loaded_count();
        lock.lock();
      }
    }
    if (options_.poll_interval.count() > 0 && Clock::now() >= next_poll) {
      lock.unlock();
      rescan();
      lock.lock();
      next_poll = Clock::now() + options_.poll_interval;
    }
  }
}

void ModelManager::publish_loaded_count() {
  int n = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, entry] : entries_) n += static_cast<int>(entry->loaded.size());
  }
  metrics_->set_models_loaded(n);
}

}  // namespace skiff::serve
