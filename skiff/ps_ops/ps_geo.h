// Geo mode's trainer side (Paddle's GeoSGD) for one parameter-server connection: the
// trainer trains local copies (the sparse rows it uses, in a GeoRows per table; the dense
// parameters, in its scope) and every k steps sends the servers `1 / trainers` of how far
// each moved since it was pulled, keeping the rest (its carry) on top of the servers' new
// values: while the trainers' moves agree the servers move about as far as their sum, and
// where each trainer's steps nearly reach an optimum the carry is trained back instead of
// overshooting (pushing whole deltas would move the servers T times too far there).
//
// The ps ops reach it through their connection (ps_connection.h): ps_pull_sparse and
// ps_push_sparse with `geo` read and train the rows, ps_geo_step counts steps and syncs.
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "skiff/ps_ops/geo_rows.h"

namespace skiff {

namespace ps {
class Client;
}

class PsGeo {
 public:
  // A job of `trainers`; `dense_bases`: each dense table's values as the trainer pulled
  // them into its parameters.
  PsGeo(int trainers, std::map<std::string, std::vector<float>> dense_bases);

  int trainers() const { return trainers_; }

  // The local rows of distinct ids[0, n) of sparse table `table` (rows of `dim`) into out;
  // ids not held are pulled from the servers through `client`.
  void get_rows(ps::Client& client, const std::string& table, int64_t dim, const int64_t* ids,
                size_t n, float* out);
  // Rows of distinct ids[0, n) += scale * rows (local SGD: scale = -lr).
  void add_rows(const std::string& table, int64_t dim, const int64_t* ids, size_t n,
                const float* rows, float scale);
  // Counts a step; true when it completes `k_steps` steps since the last sync.
  bool count_step(int64_t k_steps);
  // A sync: pushes the share of every sparse table's moved rows and of each dense table's
  // delta (`dense`: table -> the trainer's values of its `size` floats) for `step`, then
  // pulls each dense table into those values and adds its carry. `final` (after the last
  // step) pushes the share and drops every carry, pulling nothing.
  struct Dense {
    std::string table;
    float* values;
    int64_t size;
  };
  void sync(ps::Client& client, const std::vector<Dense>& dense, int64_t step, bool final);

 private:
  GeoRows& rows(const std::string& table, int64_t dim);

  std::mutex mutex_;
  const int trainers_;
  std::map<std::string, std::vector<float>> dense_base_;
  std::map<std::string, GeoRows> rows_;
  int64_t steps_since_sync_ = 0;
};

}  // namespace skiff
