#include "skiff/ps/shard_tables.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "skiff/core/error.h"
#include "skiff/ps/table_config.h"

namespace skiff::ps {

void check_table_name(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 200 && name[0] != '.';
  for (char c : name) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-');
  }
  SKIFF_CHECK(ok, "parameter server: table name '", name,
              "' (letters, digits, '_', '.', '-'; not starting with '.')");
}

void ShardTable::save(const std::string& path) const {
  if (sparse) sparse->save(path);
  if (dense) dense->save(path);
}

void ShardTable::load(const std::string& path) {
  if (sparse) sparse->load(path);
  if (dense) dense->load(path);
}

ShardTables::ShardTables(const ServerOptions& options) : options_(options) {
  if (!options.load_dir.empty()) check_load_dir();
}

ShardTable& ShardTables::add(const proto::TableConfig& config) {
  auto table = std::make_unique<ShardTable>();
  table->config = config;
  if (config.dense()) {
    table->dense = make_dense_table(config);
  } else {
    table->sparse = make_sparse_table(config);
  }
  return *(tables_[config.name()] = std::move(table));
}

ShardTable* ShardTables::find(const std::string& name) {
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : it->second.get();
}

ShardTable& ShardTables::get(const std::string& name) {
  ShardTable* t = find(name);
  SKIFF_CHECK(t, "parameter server ", options_.shard, " has no table '", name,
              "' (create it first)");
  return *t;
}

ShardTable& ShardTables::sparse(const std::string& name) {
  ShardTable& t = get(name);
  SKIFF_CHECK(t.sparse, "parameter server table '", name, "' is dense, not sparse");
  return t;
}

ShardTable& ShardTables::dense(const std::string& name) {
  ShardTable& t = get(name);
  SKIFF_CHECK(t.dense, "parameter server table '", name, "' is sparse, not dense");
  return t;
}

std::vector<std::pair<std::string, ShardTable*>> ShardTables::list() {
  std::vector<std::pair<std::string, ShardTable*>> out;
  for (auto& [name, table] : tables_) out.emplace_back(name, table.get());
  return out;
}

std::string ShardTables::shard_file(const std::string& folder, const std::string& table) const {
  return str_cat(folder, "/", table, ".shard", options_.shard, "-of-", options_.shards);
}

void ShardTables::save_checkpoint(const std::string& dir) const {
  for (const auto& [name, table] : tables_) table->save(dir + "/table." + name);
}

void ShardTables::load_checkpoint(const std::string& dir, const std::string& name) {
  get(name).load(dir + "/table." + name);
}

void ShardTables::load_saved(ShardTable& table) {
  const std::string& name = table.config.name();
  const auto& only = options_.load_tables;
  if (options_.load_dir.empty() ||
      (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()))
    return;
  const std::string path = shard_file(options_.load_dir, name);
  if (!std::filesystem::exists(path)) {
    std::fprintf(stderr, "skiff ps server %d/%d: table '%s' is not in %s: it starts fresh\n",
                 options_.shard, options_.shards, name.c_str(), options_.load_dir.c_str());
    return;
  }
  table.load(path);
  table.loaded = true;
}

// The load folder must hold table files of this shard of a job of as many servers.
void ShardTables::check_load_dir() const {
  namespace fs = std::filesystem;
  const std::string& dir = options_.load_dir;
  std::error_code error;
  SKIFF_CHECK(fs::is_directory(dir, error), "parameter server ", options_.shard,
              ": the load folder '", dir, "' is not a folder");
  const std::string mine = str_cat(".shard", options_.shard, "-of-", options_.shards);
  std::string other;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > mine.size() &&
        name.compare(name.size() - mine.size(), mine.size(), mine) == 0)
      return;
    const size_t at = name.rfind(".shard");
    if (at != std::string::npos && other.empty()) other = name.substr(at + 1);
  }
  fail("parameter server ", options_.shard, ": the load folder '", dir,
       "' holds no table saved by shard ", options_.shard, " of ", options_.shards,
       other.empty() ? std::string(" (no table files at all)")
                     : str_cat(" (it holds files such as '", other,
                               "': saved by a job of another number of servers)"));
}

void ShardTables::apply_step(int64_t step, int trainers) {
  const float scale = 1.f / static_cast<float>(trainers);
  for (auto& [name, table] : tables_) {
    std::lock_guard<std::mutex> lock(table->pending_mutex);
    // Pushes for earlier steps never applied came from trainers that died before their
    // barrier; steps go forward, so they never will be.
    table->pending.erase(table->pending.begin(), table->pending.lower_bound(step));
    auto it = table->pending.find(step);
    if (it == table->pending.end()) continue;
    ShardTable::Pending& p = it->second;
    for (float& v : p.values) v *= scale;
    if (table->sparse) {
      table->sparse->push(p.ids.data(), p.ids.size(), p.values.data());
    } else if (!p.values.empty()) {
      table->dense->push(p.values.data());
    }
    table->pending.erase(it);
  }
}

}  // namespace skiff::ps
