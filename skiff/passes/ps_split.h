// Splits a training program for parameter-server training (PaddlePaddle's distribute
// transpiler, as a pass). The trainer keeps forward and backward; the servers keep the
// distributed parameters and apply their optimizer:
//
//   embedding(W, Ids)              ->  ps_pull_sparse(Ids) {table, dim, padding_idx}
//   embedding_grad(W, Ids, dOut)   ->  ps_push_sparse(Ids, dOut)
//   sgd / adam / adagrad of a distributed parameter, and what only they read -> removed
//   (end of block 0)               +=  ps_push_dense(dense grads), ps_barrier,
//                                      ps_pull_dense(dense params): a server's dense
//                                      tables travel in one call
//
// In geo mode (Paddle's GeoSGD) the trainer trains local copies with SGD and every k steps
// sends the servers its share of how far they moved (skiff/ps_ops/ps_geo.h):
//
//   embedding(W, Ids)              ->  ps_pull_sparse(Ids) {geo}: the trainer's rows
//   embedding_grad(W, Ids, dOut)   ->  ps_push_sparse(Ids, dOut, LearningRate) {geo}: local SGD
//   sgd of a sparse table          ->  removed (the push applied it); dense updates stay
//   (end of block 0)               +=  ps_geo_step(dense params) {tables, k_steps}
//
//   PsSplitOptions options;
//   options.sparse = {{"emb.w_0", "emb.w_0", 8}};
//   options.dense = {{"fc.w_0", "fc.w_0"}, {"fc.b_0", "fc.b_0"}};
//   Program trainer = ps_split(main, options);
//   Program trainer_startup = ps_split_startup(startup, main, trainer);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "skiff/ir/program.h"

namespace skiff {

// A [V, dim] float32 embedding table whose rows live in sparse table `table`.
struct PsSparseParam {
  std::string param, table;
  int64_t dim = 0;
};

// A float32 parameter kept whole in dense table `table`.
struct PsDenseParam {
  std::string param, table;
};

enum class PsSplitMode { kSync, kAsync, kGeo };

struct PsSplitOptions {
  std::vector<PsSparseParam> sparse;
  std::vector<PsDenseParam> dense;
  // Sync: ps_barrier waits for the step's update on every server; async: it does not.
  PsSplitMode mode = PsSplitMode::kSync;
  // Geo mode: steps between syncs (positive).
  int64_t k_steps = 0;
};

// The trainer's part of `main` (forward, backward and update ops in block 0, as
// append_backward and an optimizer's minimize make them). Every distributed parameter must
// be updated by exactly one sgd, adam (not amsgrad) or adagrad op with a learning rate no
// op of the program computes. A sparse table may be read only by embedding ops of block 0,
// and its gradient may reach its update only as embedding_grad outputs (summed, or made
// dense with fill_any_like): the servers apply no weight decay or clipping to it. The
// tables' variables, their gradients, the removed updates' optimizer state and the ops only
// those updates read are dropped (a value fetched only from them is gone). In geo mode a
// sparse table's update must be sgd (at any rate, a schedule's too) and the dense updates
// are kept as they are. Throws skiff::Error naming the op and the variable it cannot split.
Program ps_split(const Program& main, const PsSplitOptions& options);

// The startup program of a split trainer: without the ops that initialise what
// ps_split dropped from `main` (persistable variables of `main` that `split` no longer
// declares, such as the sparse tables and the servers' optimizer state), or the
// temporaries only those ops read.
Program ps_split_startup(const Program& startup, const Program& main, const Program& split);

}  // namespace skiff
