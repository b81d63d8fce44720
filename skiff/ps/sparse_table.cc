// Sparse table: rows live in per-shard slabs (one float array per shard, a slot per row,
// freed slots reused), found through a hash map from id to slot.
//
// File layout (little-endian): magic "SKPSSPAR", version (u32), dim (u32), optimizer kind
// (u32 length + bytes), state width (u32), block count (u32); per block: row count (u64)
// and per row its id (i64), dim values and the state (f32), touch count (u64) and seconds
// since its last touch (f64); then the pending count (u64) and per pending id its id
// (i64), touch count (u64) and idle seconds (f64); last, the CRC-32 of all before it.
#include "skiff/ps/sparse_table.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "skiff/core/error.h"
#include "skiff/ps/id_index.h"
#include "skiff/ps/shard.h"
#include "skiff/ps/table_file.h"

namespace skiff::ps {
namespace {

constexpr char kMagic[8] = {'S', 'K', 'P', 'S', 'S', 'P', 'A', 'R'};
constexpr uint32_t kVersion = 1;
constexpr int kMaxShards = 1 << 16;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct RowMeta {
  int64_t id = 0;
  uint64_t count = 0;  // touches, including those before admission
  double last_touch = 0;
};

struct Pending {
  uint64_t count = 0;
  double last_touch = 0;
};

}  // namespace

struct SparseTable::Shard {
  mutable std::mutex mu;
  IdIndex slot_of;
  std::vector<float> data;  // slot * width: values, then optimizer state
  std::vector<RowMeta> meta;
  std::vector<size_t> free_slots;
  std::unordered_map<int64_t, Pending> pending;  // touched ids not admitted yet
  uint64_t pulls = 0, pushes = 0, dropped = 0, evicted = 0;

  // Registers a row for m.id and returns its slot (the floats are left to the caller).
  size_t add_row(const RowMeta& m, int64_t width) {
    size_t slot;
    if (!free_slots.empty()) {
      slot = free_slots.back();
      free_slots.pop_back();
      meta[slot] = m;
    } else {
      slot = meta.size();
      meta.push_back(m);
      data.resize(data.size() + static_cast<size_t>(width));
    }
    slot_of.insert(m.id, slot);
    return slot;
  }

  // Moves the live rows to the front when at least half the slots are free.
  void compact(int64_t width) {
    if (free_slots.size() * 2 < meta.size() || free_slots.empty()) return;
    std::vector<float> new_data(slot_of.size() * static_cast<size_t>(width));
    std::vector<RowMeta> new_meta;
    new_meta.reserve(slot_of.size());
    slot_of.for_each([&](int64_t, uint32_t& slot) {
      std::copy_n(data.begin() + static_cast<ptrdiff_t>(slot * width), width,
                  new_data.begin() + static_cast<ptrdiff_t>(new_meta.size() * width));
      new_meta.push_back(meta[slot]);
      slot = static_cast<uint32_t>(new_meta.size() - 1);
    });
    data.swap(new_data);
    meta.swap(new_meta);
    free_slots.clear();
  }
};

SparseTable::SparseTable(SparseTableConfig config) : config_(std::move(config)) {
  const std::string& name = config_.name;
  SKIFF_CHECK(config_.dim > 0, "sparse table '", name, "': dim must be positive, got ",
              config_.dim);
  SKIFF_CHECK(config_.shards > 0 && config_.shards <= kMaxShards, "sparse table '", name,
              "': shards must be in [1, ", kMaxShards, "], got ", config_.shards);
  SKIFF_CHECK(config_.admit_count >= 0, "sparse table '", name, "': admit_count must be >= 0, got ",
              config_.admit_count);
  SKIFF_CHECK(config_.admit_probability >= 0 && config_.admit_probability <= 1, "sparse table '",
              name, "': admit_probability must be in [0, 1], got ", config_.admit_probability);
  SKIFF_CHECK(config_.ttl_secs >= 0, "sparse table '", name, "': ttl_secs must be >= 0, got ",
              config_.ttl_secs);
  check_initializer(config_.init, name);
  check_optimizer(config_.optimizer, name);
  width_ = config_.dim + state_width(config_.optimizer, config_.dim);
  for (int i = 0; i < config_.shards; ++i) shards_.push_back(std::make_unique<Shard>());
}

SparseTable::~SparseTable() = default;

// The lock stripe of an id. Servers pick a server by a hash of the id too; this one
// differs from it (no added constant), so the ids of one server still spread over all
// stripes.
size_t SparseTable::shard_of(int64_t id) const {
  return static_cast<size_t>(mix64(static_cast<uint64_t>(id)) % shards_.size());
}

double SparseTable::now() const { return config_.clock ? config_.clock() : steady_seconds(); }

float* SparseTable::touch(Shard& shard, int64_t id, double now) {
  const uint32_t found = shard.slot_of.find(id);
  if (found != IdIndex::kNone) {
    RowMeta& m = shard.meta[found];
    ++m.count;
    m.last_touch = now;
    return shard.data.data() + found * width_;
  }
  uint64_t count = 1;
  if (config_.admit_count > 1 || config_.admit_probability > 0) {
    auto [it, inserted] = shard.pending.try_emplace(id);
    count = ++it->second.count;
    it->second.last_touch = now;
    if (!admits(id, count)) return nullptr;
    shard.pending.erase(it);
  }
  size_t slot = shard.add_row({id, count, now}, width_);
  float* row = shard.data.data() + slot * width_;
  init_row(config_.init, id, row, config_.dim);
  init_state(config_.optimizer, row + config_.dim, config_.dim);
  return row;
}

bool SparseTable::admits(int64_t id, uint64_t count) const {
  if (count < static_cast<uint64_t>(config_.admit_count)) return false;
  if (config_.admit_probability <= 0 || config_.admit_probability >= 1) return true;
  // 53 bits of a hash of (seed, id, count) as a uniform draw in [0, 1).
  const uint64_t h = mix64(mix_id(id) ^ mix64(count + (config_.init.seed << 20)));
  return static_cast<double>(h >> 11) * 0x1.0p-53 < config_.admit_probability;
}

void SparseTable::apply(Op op, const int64_t* ids, size_t n, const float* in, float* out) {
  if (n == 0) return;
  const double time = now();
  const int64_t dim = config_.dim;
  // (id, position) grouped by stripe (a counting sort, positions ascending), then sorted
  // within each stripe: equal ids are adjacent and summed in the order the caller sent
  // them, so a push gives the same result on every run.
  const size_t stripes = shards_.size();
  std::vector<uint32_t> stripe(n);
  std::vector<size_t> bounds(stripes + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    stripe[i] = static_cast<uint32_t>(shard_of(ids[i]));
    ++bounds[stripe[i] + 1];
  }
  for (size_t s = 0; s < stripes; ++s) bounds[s + 1] += bounds[s];
  std::vector<std::pair<int64_t, size_t>> keyed(n);
  {
    std::vector<size_t> next(bounds.begin(), bounds.end() - 1);
    for (size_t i = 0; i < n; ++i) keyed[next[stripe[i]]++] = {ids[i], i};
  }
  std::vector<float> merged(op == Op::kPull ? 0 : static_cast<size_t>(dim));
  for (size_t st = 0; st < stripes; ++st) {
    const size_t begin = bounds[st], end = bounds[st + 1];
    if (begin == end) continue;
    std::sort(keyed.begin() + static_cast<ptrdiff_t>(begin),
              keyed.begin() + static_cast<ptrdiff_t>(end));
    Shard& s = *shards_[st];
    std::lock_guard<std::mutex> lock(s.mu);
    (op == Op::kPull ? s.pulls : s.pushes) += end - begin;
    auto pos = [&](size_t k) { return keyed[k].second; };
    for (size_t first = begin; first < end;) {
      const int64_t id = keyed[first].first;
      size_t last = first;
      while (last < end && keyed[last].first == id) ++last;
      float* row = touch(s, id, time);
      if (op == Op::kPull) {
        for (size_t k = first; k < last; ++k) {
          float* dst = out + pos(k) * dim;
          if (row) {
            std::copy_n(row, dim, dst);
          } else {
            std::fill_n(dst, dim, 0.0f);
          }
        }
      } else if (!row) {
        ++s.dropped;
      } else {
        const float* g = in + pos(first) * dim;
        if (last - first > 1) {
          std::copy_n(g, dim, merged.data());
          for (size_t k = first + 1; k < last; ++k) {
            const float* more = in + pos(k) * dim;
            for (int64_t j = 0; j < dim; ++j) merged[j] += more[j];
          }
          g = merged.data();
        }
        if (op == Op::kPush) {
          update_row(config_.optimizer, row, row + dim, g, dim);
        } else {
          for (int64_t j = 0; j < dim; ++j) row[j] += g[j];
        }
      }
      first = last;
    }
  }
}

void SparseTable::pull(const int64_t* ids, size_t n, float* out) {
  apply(Op::kPull, ids, n, nullptr, out);
}

void SparseTable::push(const int64_t* ids, size_t n, const float* grads) {
  apply(Op::kPush, ids, n, grads, nullptr);
}

void SparseTable::push_delta(const int64_t* ids, size_t n, const float* deltas) {
  apply(Op::kPushDelta, ids, n, deltas, nullptr);
}

size_t SparseTable::size() const {
  size_t rows = 0;
  for (const auto& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    rows += s->slot_of.size();
  }
  return rows;
}

size_t SparseTable::shrink(double now_secs, double untouched_secs) {
  const double ttl = untouched_secs > 0 ? untouched_secs : config_.ttl_secs;
  if (ttl <= 0) return 0;
  const double cutoff = now_secs - ttl;
  size_t evicted = 0;
  for (const auto& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    s->slot_of.erase_if([&](int64_t, uint32_t slot) {
      if (s->meta[slot].last_touch > cutoff) return false;
      s->free_slots.push_back(slot);
      ++s->evicted;
      ++evicted;
      return true;
    });
    for (auto it = s->pending.begin(); it != s->pending.end();) {
      it = it->second.last_touch <= cutoff ? s->pending.erase(it) : std::next(it);
    }
    s->compact(width_);
  }
  return evicted;
}

SparseTable::Stats SparseTable::stats() const {
  Stats stats;
  for (const auto& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    stats.rows += s->slot_of.size();
    stats.pulls += s->pulls;
    stats.pushes += s->pushes;
    stats.dropped_unadmitted += s->dropped;
    stats.evicted += s->evicted;
  }
  return stats;
}

void SparseTable::save(const std::string& path) const {
  TableFileWriter file(path);
  file.put_header(kMagic, kVersion);
  file.put_u32(static_cast<uint32_t>(config_.dim));
  file.put_string(config_.optimizer.kind);
  file.put_u32(static_cast<uint32_t>(width_ - config_.dim));
  file.put_u32(static_cast<uint32_t>(shards_.size()));
  const double time = now();
  std::vector<float> rows;
  std::vector<RowMeta> meta;
  std::vector<std::pair<int64_t, Pending>> pending;
  for (const auto& s : shards_) {
    {  // Copy under the lock, write without it.
      std::lock_guard<std::mutex> lock(s->mu);
      rows.resize(s->slot_of.size() * width_);
      meta.clear();
      s->slot_of.for_each([&](int64_t, uint32_t slot) {
        std::copy_n(s->data.begin() + static_cast<ptrdiff_t>(slot * width_), width_,
                    rows.begin() + static_cast<ptrdiff_t>(meta.size() * width_));
        meta.push_back(s->meta[slot]);
      });
      pending.assign(s->pending.begin(), s->pending.end());
    }
    file.put_u64(meta.size());
    for (size_t r = 0; r < meta.size(); ++r) {
      file.put_i64(meta[r].id);
      file.put_floats(rows.data() + r * width_, static_cast<size_t>(width_));
      file.put_u64(meta[r].count);
      file.put_f64(time - meta[r].last_touch);
    }
    file.put_u64(pending.size());
    for (const auto& [id, p] : pending) {
      file.put_i64(id);
      file.put_u64(p.count);
      file.put_f64(time - p.last_touch);
    }
  }
  file.commit();
}

void SparseTable::load(const std::string& path) {
  TableFileReader file(path);
  const std::string& name = config_.name;
  file.expect_header(kMagic, kVersion, "sparse table");
  uint32_t dim = file.get_u32();
  if (dim != static_cast<uint32_t>(config_.dim)) {
    file.corrupt(str_cat("rows have dim ", dim, " but table '", name, "' has dim ", config_.dim));
  }
  std::string kind = file.get_string(64);
  if (kind != config_.optimizer.kind) {
    file.corrupt(str_cat("saved with optimizer '", kind, "' but table '", name, "' uses '",
                         config_.optimizer.kind, "'"));
  }
  uint32_t state = file.get_u32();
  if (state != static_cast<uint32_t>(width_ - config_.dim)) {
    file.corrupt(str_cat("optimizer state has ", state, " floats per row but table '", name,
                         "' needs ", width_ - config_.dim));
  }
  std::vector<std::unique_ptr<Shard>> loaded;
  for (size_t i = 0; i < shards_.size(); ++i) loaded.push_back(std::make_unique<Shard>());
  const double time = now();
  std::vector<float> row(static_cast<size_t>(width_));
  uint32_t blocks = file.get_u32();
  for (uint32_t b = 0; b < blocks; ++b) {
    uint64_t rows = file.get_u64();
    for (uint64_t r = 0; r < rows; ++r) {
      RowMeta m;
      m.id = file.get_i64();
      file.get_floats(row.data(), row.size());
      m.count = file.get_u64();
      m.last_touch = time - file.get_f64();
      Shard& s = *loaded[shard_of(m.id)];
      if (s.slot_of.find(m.id) != IdIndex::kNone)
        file.corrupt(str_cat("id ", m.id, " appears twice"));
      size_t slot = s.add_row(m, width_);
      std::copy(row.begin(), row.end(), s.data.begin() + static_cast<ptrdiff_t>(slot * width_));
    }
    uint64_t pending = file.get_u64();
    for (uint64_t p = 0; p < pending; ++p) {
      int64_t id = file.get_i64();
      Pending entry;
      entry.count = file.get_u64();
      entry.last_touch = time - file.get_f64();
      loaded[shard_of(id)]->pending[id] = entry;
    }
  }
  file.finish();
  for (size_t i = 0; i < shards_.size(); ++i) {
    Shard& s = *shards_[i];
    Shard& from = *loaded[i];
    std::lock_guard<std::mutex> lock(s.mu);
    s.slot_of.swap(from.slot_of);
    s.data.swap(from.data);
    s.meta.swap(from.meta);
    s.free_slots.swap(from.free_slots);
    s.pending.swap(from.pending);
  }
}

}  // namespace skiff::ps
