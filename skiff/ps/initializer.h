// Initial values of parameter-server rows, computed from (seed, id) alone: the same id
// and seed give the same row on any server and in any process, so a table sharded over
// many servers starts exactly as a single-process table does.
//
//   InitializerConfig init;  // uniform in [-0.01, 0.01]
//   init.seed = 7;
//   init_row(init, /*id=*/42, row, dim);
#pragma once

#include <cstdint>
#include <string>

namespace skiff::ps {

// How rows start. `kind` is "uniform" (in [low, high]), "normal" (mean, std),
// "truncated_normal" (normal redrawn until within 2 std of the mean) or "constant" (value).
struct InitializerConfig {
  std::string kind = "uniform";
  float low = -0.01f, high = 0.01f, mean = 0, std = 0.01f, value = 0;
  uint64_t seed = 0;
};

// Throws skiff::Error naming `table` if the kind is unknown or its parameters are
// invalid (low > high, negative or non-finite std).
void check_initializer(const InitializerConfig& config, const std::string& table);

// Fills row[0, dim) with the initial values of row `id`; a pure function of
// (config, id), independent of the thread, process and machine's order of calls.
void init_row(const InitializerConfig& config, int64_t id, float* row, int64_t dim);

// Fills out[0, n) with elements [first, first + n) of row `id`'s stream, so a vector
// split in slices over several servers gets the values the whole vector would have.
// init_row(config, id, row, dim) is init_span(config, id, 0, row, dim).
void init_span(const InitializerConfig& config, int64_t id, int64_t first, float* out, int64_t n);

}  // namespace skiff::ps
