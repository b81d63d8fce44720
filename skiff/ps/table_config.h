// Table specs between C++ and the service's messages, and the server's tables made from
// them. Internal to the parameter server library: it includes the generated protos.
#pragma once

#include <memory>
#include <string>

#include "ps.pb.h"
#include "skiff/ps/dense_table.h"
#include "skiff/ps/sparse_table.h"
#include "skiff/ps/table_spec.h"

namespace skiff::ps {

void to_proto(const TableSpec& spec, proto::TableConfig* out);
proto::Mode to_proto(Mode mode);

std::unique_ptr<SparseTable> make_sparse_table(const proto::TableConfig& config);
std::unique_ptr<DenseTable> make_dense_table(const proto::TableConfig& config);

// Whether two configurations describe the same table (a trainer re-creating it).
bool same_config(const proto::TableConfig& a, const proto::TableConfig& b);
// One line: "sparse dim 16, sgd lr 0.01, uniform [-0.01, 0.01] seed 0".
std::string describe(const proto::TableConfig& config);

void fill_stats(const SparseTable& table, proto::TableStats* out);

}  // namespace skiff::ps
