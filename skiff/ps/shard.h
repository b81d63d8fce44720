// Which server holds an id of a sparse table (and which holds a dense table): the same
// function on trainers and servers, so an id always meets its row.
#pragma once

#include <cstdint>
#include <string>

namespace skiff::ps {

// splitmix64's finaliser: a bijective mix of all 64 bits (the servers' sharding, the
// tables' lock stripes and the initializers' streams are all built on it).
inline uint64_t mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A well-mixed 64-bit hash of `id`: ids that differ in low bits spread over every shard.
inline uint64_t mix_id(int64_t id) {
  return mix64(static_cast<uint64_t>(id) + 0x9e3779b97f4a7c15ull);
}

// The server (of `shards`) holding sparse id `id`.
inline int shard_of(int64_t id, int shards) {
  return static_cast<int>(mix_id(id) % static_cast<uint64_t>(shards));
}

// The server holding the dense table `name` whole (FNV-1a of the name).
inline int dense_shard_of(const std::string& name, int shards) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  return static_cast<int>(h % static_cast<uint64_t>(shards));
}

}  // namespace skiff::ps
