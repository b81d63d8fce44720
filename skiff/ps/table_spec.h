// What a trainer asks the servers to create: a sparse table (rows of `dim` floats by
// int64 id, sharded over the servers) or a dense one (`size` floats on one server), with
// its initializer and server-side optimizer; and how pushes are applied.
#pragma once

#include <cstdint>
#include <string>

#include "skiff/ps/initializer.h"
#include "skiff/ps/row_optimizer.h"

namespace skiff::ps {

struct TableSpec {
  std::string name;
  bool dense = false;
  int dim = 0;       // sparse: floats per row
  int64_t size = 0;  // dense: floats
  InitializerConfig init;
  OptimizerConfig optimizer;
  int admit_count = 0;           // sparse: touches before an id gets a row (0, 1: the first)
  double admit_probability = 0;  // sparse: each later touch admits with this chance (0: off)
  double ttl_secs = 0;           // sparse: shrink() evicts rows untouched this long (0: never)
};

// async: each push is applied when it arrives; sync: the trainers' pushes of a step are
// averaged and applied at its barrier; geo: pushes are deltas added to the values.
enum class Mode { kAsync, kSync, kGeo };

}  // namespace skiff::ps
