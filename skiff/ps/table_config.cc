#include "skiff/ps/table_config.h"

#include <google/protobuf/util/message_differencer.h>

#include "skiff/core/error.h"

namespace skiff::ps {
namespace {

InitializerConfig initializer_of(const proto::Initializer& p) {
  InitializerConfig c;
  c.kind = p.kind();
  c.low = p.low();
  c.high = p.high();
  c.mean = p.mean();
  c.std = p.std();
  c.value = p.value();
  c.seed = p.seed();
  return c;
}

OptimizerConfig optimizer_of(const proto::Optimizer& p) {
  OptimizerConfig c;
  c.kind = p.kind();
  c.lr = p.lr();
  c.beta1 = p.beta1();
  c.beta2 = p.beta2();
  c.epsilon = p.epsilon();
  c.initial_g2sum = p.initial_g2sum();
  return c;
}

}  // namespace

void to_proto(const TableSpec& spec, proto::TableConfig* out) {
  out->set_name(spec.name);
  out->set_dense(spec.dense);
  out->set_dim(spec.dim);
  out->set_size(spec.size);
  proto::Initializer* init = out->mutable_init();
  init->set_kind(spec.init.kind);
  init->set_low(spec.init.low);
  init->set_high(spec.init.high);
  init->set_mean(spec.init.mean);
  init->set_std(spec.init.std);
  init->set_value(spec.init.value);
  init->set_seed(spec.init.seed);
  proto::Optimizer* opt = out->mutable_optimizer();
  opt->set_kind(spec.optimizer.kind);
  opt->set_lr(spec.optimizer.lr);
  opt->set_beta1(spec.optimizer.beta1);
  opt->set_beta2(spec.optimizer.beta2);
  opt->set_epsilon(spec.optimizer.epsilon);
  opt->set_initial_g2sum(spec.optimizer.initial_g2sum);
  out->set_admit_count(spec.admit_count);
  out->set_ttl_secs(spec.ttl_secs);
  out->set_admit_probability(spec.admit_probability);
}

proto::Mode to_proto(Mode mode) {
  switch (mode) {
    case Mode::kSync:
      return proto::SYNC;
    case Mode::kGeo:
      return proto::GEO;
    case Mode::kAsync:
      break;
  }
  return proto::ASYNC;
}

std::unique_ptr<SparseTable> make_sparse_table(const proto::TableConfig& config) {
  SparseTableConfig c;
  c.name = config.name();
  c.dim = config.dim();
  c.init = initializer_of(config.init());
  c.optimizer = optimizer_of(config.optimizer());
  c.admit_count = config.admit_count();
  c.ttl_secs = config.ttl_secs();
  c.admit_probability = config.admit_probability();
  return std::make_unique<SparseTable>(c);
}

std::unique_ptr<DenseTable> make_dense_table(const proto::TableConfig& config) {
  return std::make_unique<DenseTable>(config.name(), config.size(), initializer_of(config.init()),
                                      optimizer_of(config.optimizer()));
}

bool same_config(const proto::TableConfig& a, const proto::TableConfig& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

std::string describe(const proto::TableConfig& c) {
  std::string admission;
  if (c.admit_count() > 1) admission += str_cat(", admitted after ", c.admit_count(), " touches");
  if (c.admit_probability() > 0) {
    admission += str_cat(", admitted with probability ", c.admit_probability());
  }
  if (c.ttl_secs() > 0) admission += str_cat(", ttl ", c.ttl_secs(), " s");
  return str_cat(c.dense() ? str_cat("dense size ", c.size()) : str_cat("sparse dim ", c.dim()),
                 ", ", c.optimizer().kind(), " lr ", c.optimizer().lr(), ", ", c.init().kind(),
                 " seed ", c.init().seed(), admission);
}

void fill_stats(const SparseTable& table, proto::TableStats* out) {
  const auto s = table.stats();
  out->set_rows(static_cast<int64_t>(s.rows));
  out->set_pulls(static_cast<int64_t>(s.pulls));
  out->set_pushes(static_cast<int64_t>(s.pushes));
  out->set_dropped_unadmitted(static_cast<int64_t>(s.dropped_unadmitted));
  out->set_evicted(static_cast<int64_t>(s.evicted));
}

}  // namespace skiff::ps
