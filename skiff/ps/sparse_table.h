// A parameter server's sparse embedding table: rows of `dim` floats keyed by any int64
// id, created on first touch with a deterministic initializer, updated by a server-side
// optimizer, safe to pull and push from many threads at once (one lock per shard).
//
//   SparseTableConfig config;
//   config.name = "emb";
//   config.dim = 8;
//   config.optimizer.kind = "adagrad";
//   SparseTable table(config);
//   table.pull(ids, n, values);  // values: n x 8, new rows initialized
//   table.push(ids, n, grads);   // grads: n x 8, duplicates summed, one update per id
//   table.save("emb.skps");      // atomic; load() restores values and optimizer state
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "skiff/ps/initializer.h"
#include "skiff/ps/row_optimizer.h"

namespace skiff::ps {

// What a sparse table holds and how its rows live and die.
struct SparseTableConfig {
  std::string name;
  int dim = 0;
  InitializerConfig init;
  OptimizerConfig optimizer;
  // An id gets a row once it has been touched (pulled or pushed; several occurrences in
  // one call count once) this many times; 0 or 1: at first touch. Before that, pull gives
  // zeros and push drops the gradient (counted in Stats::dropped_unadmitted).
  int admit_count = 0;
  // With a probability p in (0, 1], each touch of an id not admitted yet admits it with
  // probability p (Paddle's ProbabilityEntry), drawn from a hash of the table's seed, the
  // id and the touch's number: the same ids are admitted on every run. 0: no draw. With
  // admit_count too, the draws start at the admit_count-th touch.
  double admit_probability = 0;
  // shrink() evicts rows untouched for at least this long, in seconds; 0: never.
  double ttl_secs = 0;
  // Lock stripes: rows are spread over this many independently locked shards.
  int shards = 16;
  // Seconds on any fixed scale, read once per pull or push call (must be thread-safe);
  // empty: std::chrono::steady_clock.
  std::function<double()> clock;
};

class SparseTable {
 public:
  // Counters since construction (rows: the current count).
  struct Stats {
    size_t rows = 0;
    uint64_t pulls = 0;               // ids requested by pull(), duplicates included
    uint64_t pushes = 0;              // ids sent to push() and push_delta(), duplicates included
    uint64_t dropped_unadmitted = 0;  // pushes of a not-yet-admitted id (one per id per call)
    uint64_t evicted = 0;             // rows removed by shrink()
  };

  // Checks the configuration (dim > 0, shards > 0, known initializer and optimizer);
  // errors name the table.
  explicit SparseTable(SparseTableConfig config);
  ~SparseTable();
  SparseTable(const SparseTable&) = delete;
  SparseTable& operator=(const SparseTable&) = delete;

  const SparseTableConfig& config() const { return config_; }
  const std::string& name() const { return config_.name; }
  int dim() const { return config_.dim; }

  // out[i * dim, (i + 1) * dim) = the row of ids[i] (zeros while not admitted); creates
  // admitted rows on first touch.
  void pull(const int64_t* ids, size_t n, float* out);
  // Sums the gradients (n x dim) of equal ids, then applies one optimizer update per
  // distinct id, creating admitted rows first.
  void push(const int64_t* ids, size_t n, const float* grads);
  // Adds deltas (n x dim, equal ids summed) to the rows' values without the optimizer
  // (geo mode: trainers send how far their local copy moved).
  void push_delta(const int64_t* ids, size_t n, const float* deltas);

  // Rows currently held.
  size_t size() const;
  // Evicts rows (and pending admission counts) untouched since now_secs - ttl or earlier,
  // on the config's clock, where ttl is `untouched_secs` when positive, else the config's
  // ttl_secs; returns the rows evicted (0 when both are 0).
  size_t shrink(double now_secs, double untouched_secs = 0);

  // Writes every row (id, values, optimizer state, touch count, seconds since its last
  // touch) and the pending admission counts to `path` atomically (path + ".tmp", fsync,
  // rename). Each shard is copied under its lock: rows pushed meanwhile may or may not be in.
  void save(const std::string& path) const;
  // Replaces all rows with those of a file written by save(), which must have this
  // table's dim and optimizer; the shard count may differ. Errors name the file. Ages
  // are kept: a row idle for 5 s when saved is idle for 5 s right after load.
  void load(const std::string& path);

  Stats stats() const;

 private:
  struct Shard;
  enum class Op { kPull, kPush, kPushDelta };

  // Groups ids by shard and by value, takes each shard's lock once, and applies `op`.
  void apply(Op op, const int64_t* ids, size_t n, const float* in, float* out);
  // The values (then state) of `id`'s row after counting one touch at `now`; nullptr
  // while the id is not admitted. Called with the shard locked.
  float* touch(Shard& shard, int64_t id, double now);
  // Whether the `count`-th touch of `id`, not admitted yet, admits it.
  bool admits(int64_t id, uint64_t count) const;
  size_t shard_of(int64_t id) const;
  double now() const;

  SparseTableConfig config_;
  int64_t width_ = 0;  // floats per row: dim values, then the optimizer state
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace skiff::ps
