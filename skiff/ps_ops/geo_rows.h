// A geo trainer's copy of the rows of one sparse table (Paddle's GeoSGD): the rows it used
// since its last sync, each with the value pulled then (its base) and the value trained
// here, and the carries of rows of earlier syncs (the part of a delta the trainer kept).
//
//   GeoRows rows(/*dim=*/8);
//   rows.get(ids, n, out, pull);         // distinct ids; missing ones pulled, plus carry
//   rows.add(ids, n, grads, -lr);        // local SGD on held rows
//   rows.take_deltas(0.5f, false, &sent_ids, &sent);   // a sync with 2 trainers
//
// A sync pushes `share` (1 / trainers) of each moved row's delta, forgets the rows, and
// keeps the rest of each delta as the row's carry, added to its value when next pulled; a
// carry whose row is not used again within `carry_syncs` syncs is dropped, so a trainer
// holds only recent rows. Not thread-safe: the caller serialises.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace skiff {

class GeoRows {
 public:
  // Fetches the servers' rows of ids[0, n) into out (n x dim).
  using Pull = std::function<void(const int64_t* ids, size_t n, float* out)>;

  explicit GeoRows(int64_t dim, int carry_syncs = 4);

  int64_t dim() const { return dim_; }
  // Rows held (used since the last sync) and carries kept.
  size_t held() const { return slot_.size(); }
  size_t carried() const { return carry_.size(); }

  // The local rows of distinct ids[0, n) into out (n x dim); ids not held are fetched with
  // `pull` first (one call), plus their carry.
  void get(const int64_t* ids, size_t n, float* out, const Pull& pull);
  // Row of ids[i] += scale * rows[i] for held distinct ids[0, n); throws naming the id
  // for one not held (a push without its pull).
  void add(const int64_t* ids, size_t n, const float* rows, float scale);
  // What a sync pushes: the ids of the rows that moved and `share` of each one's delta
  // (local value minus base); forgets the rows. The rest of each delta becomes the row's
  // carry, unless `final` (or share >= 1), which drops every carry.
  void take_deltas(float share, bool final, std::vector<int64_t>* ids, std::vector<float>* deltas);
  // Forgets the rows and the carries.
  void clear();

 private:
  struct Carry {
    std::vector<float> value;
    int syncs = 0;  // syncs since it was made
  };

  int64_t dim_;
  int carry_syncs_;
  std::unordered_map<int64_t, size_t> slot_;  // id -> row of values_ / base_
  std::vector<int64_t> order_;                // ids by slot
  std::vector<float> values_, base_;
  std::unordered_map<int64_t, Carry> carry_;
};

}  // namespace skiff
