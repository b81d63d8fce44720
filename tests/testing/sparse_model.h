// A small recommendation model as a training program, for the parameter-server tests:
// ids [-1, 3] int64 -> embedding of the table "emb.w" [kSparseRows, 4] ->
// summed over the 3 ids -> fc "fc.w" [4, 1] + "fc.b" -> mean squared error to "label",
// with append_backward and append_optimizer's updates.
//
//   SparseModel m = sparse_model({"sgd", 0.1});
//   Program trainer = ps_split(m.main, options);
#pragma once

#include <string>

#include "skiff/api/builder.h"
#include "skiff/api/optimizer.h"
#include "skiff/autodiff/backward.h"

namespace skiff::testing {

constexpr int64_t kSparseRows = 50, kSparseDim = 4, kIdsPerSample = 3;

struct SparseModelOptions {
  bool is_sparse = true;       // the table's gradient as selected rows (else dense [V, D])
  bool shared_lookup = false;  // a second lookup of the same table, added to the first
  bool tied_weights = false;   // the table also read by a matmul (not splittable)
};

struct SparseModel {
  Program main, startup;
  std::string ids = "ids", label = "label", loss, table = "emb.w", w = "fc.w", b = "fc.b";
};

inline SparseModel sparse_model(const OptimizerConfig& optimizer,
                                const SparseModelOptions& o = {}) {
  SparseModel m;
  BlockBuilder b(&m.main);
  b.data(m.ids, DType::kI64, {-1, kIdsPerSample});
  b.data(m.label, DType::kF32, {-1, 1});
  b.parameter(m.table, DType::kF32, {kSparseRows, kSparseDim}, &m.startup,
              Initializer::uniform(-0.5, 0.5));
  b.parameter(m.w, DType::kF32, {kSparseDim, 1}, &m.startup);
  b.parameter(m.b, DType::kF32, {1}, &m.startup, Initializer::constant(0.1));
  auto lookup = [&](const std::string& ids) {
    return b.apply("embedding", {{"W", {m.table}}, {"Ids", {ids}}}, {{"is_sparse", o.is_sparse}});
  };
  std::string rows = lookup(m.ids);
  if (o.shared_lookup) {
    rows = b.apply("elementwise_add", {{"X", {rows}}, {"Y", {lookup(m.ids)}}});
  }
  const std::string pooled =
      b.apply("reduce_sum", {{"X", {rows}}}, {{"dim", std::vector<int64_t>{1}}});
  std::string pred = b.apply("matmul", {{"X", {pooled}}, {"Y", {m.w}}});
  pred = b.apply("elementwise_add", {{"X", {pred}}, {"Y", {m.b}}});
  if (o.tied_weights) {
    // pred += sum(table^T-scores of pooled): the table read as a matrix.
    const std::string scores =
        b.apply("matmul", {{"X", {pooled}}, {"Y", {m.table}}}, {{"trans_y", true}});
    const std::string total = b.apply("reduce_sum", {{"X", {scores}}},
                                      {{"dim", std::vector<int64_t>{1}}, {"keep_dim", true}});
    pred = b.apply("elementwise_add", {{"X", {pred}}, {"Y", {total}}});
  }
  const std::string error = b.apply("elementwise_sub", {{"X", {pred}}, {"Y", {m.label}}});
  m.loss = b.apply("reduce_mean", {{"X", {b.apply("square", {{"X", {error}}})}}},
                   {{"reduce_all", true}});
  append_optimizer(m.main, m.startup, append_backward(m.main, m.loss), optimizer);
  return m;
}

}  // namespace skiff::testing
