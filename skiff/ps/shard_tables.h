// One parameter server's shard of every table (ps/server.cc): the tables by name, their
// files (the load folder a job starts from, saved folders, checkpoints) and, in sync
// mode, the pushes of each step waiting for its barrier. Not locked itself: the server
// guards the map with its state mutex; each table's pending pushes have their own.
//
//   ShardTables tables(options);                 // checks the load folder
//   ShardTable& emb = tables.add(config);        // then tables.load_saved(emb)
//   tables.apply_step(step, /*trainers=*/2);     // sync: the step's average, applied
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ps.pb.h"
#include "skiff/ps/dense_table.h"
#include "skiff/ps/server.h"
#include "skiff/ps/sparse_table.h"

namespace skiff::ps {

// One table's shard, and (sync mode) the pushes of each step waiting for the barrier.
struct ShardTable {
  proto::TableConfig config;
  std::unique_ptr<SparseTable> sparse;
  std::unique_ptr<DenseTable> dense;
  struct Pending {
    std::vector<int64_t> ids;
    std::vector<float> values;  // sparse: rows in ids' order; dense: the summed gradient
  };
  std::map<int64_t, Pending> pending;  // by step
  std::mutex pending_mutex;
  bool loaded = false;  // started from the load folder

  void save(const std::string& path) const;
  void load(const std::string& path);
};

// Table names become file names in checkpoints and saved folders: letters, digits, '_',
// '.', '-', not starting with '.'; throws skiff::Error otherwise.
void check_table_name(const std::string& name);

class ShardTables {
 public:
  // Throws skiff::Error when options.load_dir holds no table of this shard of a job of
  // as many servers.
  explicit ShardTables(const ServerOptions& options);

  // A new, empty table.
  ShardTable& add(const proto::TableConfig& config);
  void erase(const std::string& name) { tables_.erase(name); }
  // The table, or nullptr.
  ShardTable* find(const std::string& name);
  // The table; throws skiff::Error naming a missing one, or one of the other kind.
  ShardTable& get(const std::string& name);
  ShardTable& sparse(const std::string& name);
  ShardTable& dense(const std::string& name);
  // Every table with its name, in name order.
  std::vector<std::pair<std::string, ShardTable*>> list();

  // A new table starts from its file in the load folder, if there is one (and it is one
  // of load_tables, when given).
  void load_saved(ShardTable& table);
  // This shard's file of `table` in a saved folder.
  std::string shard_file(const std::string& folder, const std::string& table) const;
  // Every table to and from the files "<dir>/table.<name>" of a checkpoint.
  void save_checkpoint(const std::string& dir) const;
  void load_checkpoint(const std::string& dir, const std::string& name);

  // Sync mode: the average of the `trainers` trainers' pushes of `step`, applied.
  void apply_step(int64_t step, int trainers);

 private:
  void check_load_dir() const;

  const ServerOptions& options_;
  std::map<std::string, std::unique_ptr<ShardTable>> tables_;
};

}  // namespace skiff::ps
