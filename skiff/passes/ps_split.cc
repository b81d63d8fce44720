#include "skiff/passes/ps_split.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace skiff {

namespace {

// " (at model.py:12)" for an op a frontend made, "" otherwise.
std::string at(const OpDesc& op) {
  const std::string s = op.source();
  return s.empty() ? "" : " (at " + s + ")";
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool reads(const OpDesc& op, const std::string& var) { return contains(op.input_names(), var); }
bool writes(const OpDesc& op, const std::string& var) { return contains(op.output_names(), var); }

// Update rules the servers apply (skiff/ps/row_optimizer.h).
bool server_optimizer(const std::string& type) {
  return type == "sgd" || type == "adam" || type == "adagrad";
}

// Ops that act beyond their outputs: never removed for having unread outputs.
bool has_effects(const OpDesc& op) {
  return !op.sub_blocks().empty() || op.type.rfind("c_", 0) == 0 || op.type.rfind("ps_", 0) == 0 ||
         op.type == "send_v2" || op.type == "recv_v2" || op.type == "alltoall" ||
         op.type == "print";
}

OpDesc made_from(const std::string& type, const OpDesc& from) {
  OpDesc op(type);
  if (const Attr* source = from.attrs.find(kSourceAttr)) op.set_attr(kSourceAttr, *source);
  return op;
}

class PsSplitter {
 public:
  PsSplitter(const Program& main, const PsSplitOptions& options) : p_(main), o_(options) {}

  Program run() {
    if (o_.sparse.empty() && o_.dense.empty()) return std::move(p_);
    SKIFF_CHECK(!geo() || o_.k_steps > 0, "ps_split: geo mode needs k_steps > 0, got ", o_.k_steps);
    for (const PsSparseParam& s : o_.sparse) check_param(s.param, s.table, "sparse");
    for (const PsDenseParam& d : o_.dense) check_param(d.param, d.table, "dense");
    for (const PsSparseParam& s : o_.sparse) plan_sparse(s);
    for (const PsDenseParam& d : o_.dense) plan_dense(d);
    rewrite();
    return std::move(p_);
  }

 private:
  Block& block0() { return p_.block(0); }
  bool geo() const { return o_.mode == PsSplitMode::kGeo; }

  void check_param(const std::string& param, const std::string& table, const char* kind) {
    SKIFF_CHECK(!param.empty() && !table.empty(), "ps_split: a ", kind,
                " parameter needs a name and a table, got '", param, "' -> '", table, "'");
    SKIFF_CHECK(params_.insert(param).second, "ps_split: parameter '", param, "' is listed twice");
    SKIFF_CHECK(tables_.insert(table).second, "ps_split: table '", table,
                "' is given to two parameters");
    const VarDesc* v = block0().find_local_var(param);
    SKIFF_CHECK(v && v->persistable && v->kind == VarKind::kDenseTensor, "ps_split: ", kind,
                " parameter '", param, "' is not a persistable tensor of block 0");
    SKIFF_CHECK(v->dtype == DType::kF32, "ps_split: parameter '", param, "' is ",
                dtype_name(v->dtype), v->shape, "; the parameter servers hold float32");
    SKIFF_CHECK(v->shape.known() && v->shape.numel() > 0, "ps_split: parameter '", param,
                "' has shape ", v->shape, "; a table needs known positive dims");
  }

  // The index of the one op of block 0 updating `param` in place with a rule the servers
  // have, at a learning rate no op computes.
  size_t find_update(const std::string& param) {
    const Block& b = block0();
    std::vector<size_t> found;
    for (size_t i = 0; i < b.ops.size(); ++i)
      if (b.ops[i].first_input("Param") == param) found.push_back(i);
    SKIFF_CHECK(!found.empty(), "ps_split: no optimizer op of block 0 updates parameter '", param,
                "' (is it trained?)");
    const OpDesc& op = b.ops[found[0]];
    SKIFF_CHECK(found.size() == 1, "ps_split: parameter '", param, "' is updated by ", found.size(),
                " ops (", op.type, at(op), ", ", b.ops[found[1]].type, ", ...)");
    if (geo()) {
      SKIFF_CHECK(op.type == "sgd", "ps_split: sparse table '", param, "' is updated by op '",
                  op.type, "'", at(op), "; geo mode trains the trainer's rows with sgd");
    } else {
      SKIFF_CHECK(server_optimizer(op.type), "ps_split: parameter '", param, "' is updated by op '",
                  op.type, "'", at(op), "; the parameter servers apply sgd, adam or adagrad");
    }
    SKIFF_CHECK(!(op.type == "adam" && op.attr_or<bool>("amsgrad", false)), "ps_split: op adam",
                at(op), " of parameter '", param,
                "' uses amsgrad, which the parameter servers do not apply");
    SKIFF_CHECK(op.first_output("ParamOut") == param, "ps_split: op '", op.type, "'", at(op),
                " writes parameter '", param, "' to '", op.first_output("ParamOut"),
                "' instead of in place");
    if (!geo()) check_learning_rate(op, param);
    for (int bi = 0; bi < p_.num_blocks(); ++bi) {
      const auto& ops = p_.block(bi).ops;
      for (size_t i = 0; i < ops.size(); ++i) {
        SKIFF_CHECK(!writes(ops[i], param) || (bi == 0 && i == found[0]), "ps_split: op '",
                    ops[i].type, "'", at(ops[i]), " writes parameter '", param,
                    "', which the parameter servers hold and update");
      }
    }
    return found[0];
  }

  // The servers apply a constant rate: the update's LearningRate may be a persistable
  // value scaled or cast (a parameter's rate factor), but not computed by a schedule.
  void check_learning_rate(const OpDesc& update, const std::string& param) {
    std::string lr = update.first_input("LearningRate");
    std::set<std::string> seen;
    while (!lr.empty() && seen.insert(lr).second) {
      const OpDesc* writer = nullptr;
      int count = 0, block = 0;
      for (int bi = 0; bi < p_.num_blocks(); ++bi) {
        for (const OpDesc& op : p_.block(bi).ops) {
          if (writes(op, lr) && &op != &update) {
            writer = &op;
            block = bi;
            ++count;
          }
        }
      }
      if (!writer) return;
      SKIFF_CHECK(count == 1 && block == 0 && (writer->type == "scale" || writer->type == "cast"),
                  "ps_split: the learning rate '", lr, "' of parameter '", param,
                  "' is computed by op '", writer->type, "'", at(*writer),
                  " (a learning-rate schedule); the parameter servers apply a constant rate");
      lr = writer->first_input("X");
    }
  }

  // The ops by which a sparse table's gradient reaches its update.
  struct GradientWay {
    std::set<size_t> ops;               // embedding_grad, sum, zero fills: the servers' part
    std::set<std::string> grads;        // the variables they write
    std::map<size_t, std::string> off;  // any other op on the way, and what it writes there
  };

  void plan_sparse(const PsSparseParam& s) {
    const VarDesc& w = *block0().find_local_var(s.param);
    SKIFF_CHECK(s.dim > 0 && w.shape.rank() == 2 && w.shape[1] == s.dim, "ps_split: sparse table '",
                s.table, "': parameter '", s.param, "' ", w.shape, " is not a [V, ", s.dim,
                "] embedding table");
    const size_t update = find_update(s.param);
    const Block& b = block0();
    const GradientWay way = gradient_way(s, update);
    check_sparse_readers(s, update, way);
    for (size_t i = 0; i < b.ops.size(); ++i) {
      const OpDesc& op = b.ops[i];
      if (op.type == "embedding" && op.first_input("W") == s.param) {
        replaced_[i] = pull_sparse(s, op);
      } else if (way.ops.count(i) && op.type == "embedding_grad") {
        replaced_[i] = push_sparse(s, op);
        if (geo())
          replaced_[i].set_input("LearningRate", {b.ops[update].first_input("LearningRate")});
      } else if (way.ops.count(i)) {
        remove(i);
      }
    }
    remove(update);
    drop_.insert(s.param);
    drop_.insert(way.grads.begin(), way.grads.end());
  }

  // Walks back from the update's Grad through the ops of block 0 before it. The servers
  // sum what the embedding_grad ops push, so only sums (gradient accumulation) and zero
  // fills (an optimizer making the gradient dense) may lie between.
  GradientWay gradient_way(const PsSparseParam& s, size_t update) {
    const Block& b = block0();
    GradientWay way;
    std::vector<std::string> todo{b.ops[update].first_input("Grad")};
    while (!todo.empty()) {
      const std::string v = todo.back();
      todo.pop_back();
      if (v.empty() || !way.grads.insert(v).second) continue;
      for (size_t i = 0; i < update; ++i) {
        const OpDesc& op = b.ops[i];
        if (!writes(op, v)) continue;
        if (op.type == "sum") {
          for (const std::string& x : op.input("X")) todo.push_back(x);
        } else if (!(op.type == "embedding_grad" && op.first_input("W") == s.param) &&
                   !(op.type == "fill_any_like" && op.first_input("X") == s.param &&
                     op.attr_or<double>("value", 0.0) == 0.0)) {
          way.off.emplace(i, v);
          continue;
        }
        way.ops.insert(i);
      }
    }
    for (size_t i = 0; i < b.ops.size(); ++i) {
      if (b.ops[i].type == "embedding_grad" && b.ops[i].first_input("W") == s.param) {
        way.ops.insert(i);
        for (const std::string& g : b.ops[i].output_names()) way.grads.insert(g);
      }
    }
    return way;
  }

  [[noreturn]] void fail_gradient_way(const PsSparseParam& s, size_t update, size_t i,
                                      const std::string& var) {
    const OpDesc& op = block0().ops[i];
    fail("ps_split: the gradient of sparse table '", s.param, "' reaches its update (op ",
         block0().ops[update].type, ") through op '", op.type, "'", at(op), ", which writes '", var,
         "'; the parameter servers apply no weight decay or gradient clipping to a sparse ",
         "table (give it none)");
  }

  // Only embedding lookups of block 0 (and the gradient's way to the update) may read the
  // table, and nothing but that way may read its gradient. The first offending op in
  // program order is named: the forward op of a table read as a matrix, the weight decay
  // or clipping op of a gradient changed on its way.
  void check_sparse_readers(const PsSparseParam& s, size_t update, const GradientWay& way) {
    for (int bi = 0; bi < p_.num_blocks(); ++bi) {
      const auto& ops = p_.block(bi).ops;
      for (size_t i = 0; i < ops.size(); ++i) {
        const OpDesc& op = ops[i];
        if (bi == 0 && (way.ops.count(i) || i == update)) continue;
        const bool lookup = bi == 0 && op.type == "embedding" &&
                            op.input("W") == std::vector<std::string>{s.param} &&
                            !contains(op.input("Ids"), s.param);
        const bool reads_grad = std::any_of(way.grads.begin(), way.grads.end(),
                                            [&](const std::string& g) { return reads(op, g); });
        if (bi == 0 && way.off.count(i) && (reads(op, s.param) || reads_grad))
          fail_gradient_way(s, update, i, way.off.at(i));
        SKIFF_CHECK(lookup || !reads(op, s.param), "ps_split: op '", op.type, "'", at(op),
                    bi == 0 ? "" : str_cat(" in block ", bi), " reads sparse table '", s.param,
                    "'; only embedding lookups in block 0 can read a table the parameter "
                    "servers hold");
        for (const std::string& g : way.grads) {
          SKIFF_CHECK(!reads(op, g), "ps_split: op '", op.type, "'", at(op), " reads '", g,
                      "', the gradient of sparse table '", s.param,
                      "', which the split trainer no longer computes");
        }
        if (!lookup) continue;
        const VarDesc* ids = p_.find_var(0, op.first_input("Ids"));
        SKIFF_CHECK(ids && ids->dtype == DType::kI64, "ps_split: op embedding", at(op),
                    " looks up sparse table '", s.param, "' with Ids '", op.first_input("Ids"),
                    "' of dtype ", ids ? dtype_name(ids->dtype) : "undeclared",
                    "; the parameter servers take int64 ids");
      }
    }
    if (!way.off.empty())
      fail_gradient_way(s, update, way.off.begin()->first, way.off.begin()->second);
  }

  OpDesc& sparse_attrs(const PsSparseParam& s, const OpDesc& from, OpDesc& op) const {
    op.set_attr("table", s.table)
        .set_attr("dim", s.dim)
        .set_attr("padding_idx", from.attr_or<int64_t>("padding_idx", -1));
    if (geo()) op.set_attr("geo", true);
    return op;
  }

  OpDesc pull_sparse(const PsSparseParam& s, const OpDesc& embedding) const {
    OpDesc op = made_from("ps_pull_sparse", embedding);
    op.set_input("Ids", embedding.input("Ids")).set_output("Out", embedding.output("Out"));
    return sparse_attrs(s, embedding, op);
  }

  OpDesc push_sparse(const PsSparseParam& s, const OpDesc& grad) const {
    OpDesc op = made_from("ps_push_sparse", grad);
    op.set_input("Ids", grad.input("Ids")).set_input("Grad", grad.input("Out@GRAD"));
    return sparse_attrs(s, grad, op);
  }

  void plan_dense(const PsDenseParam& d) {
    if (geo()) {  // trained here as the program says; ps_geo_step syncs it
      dense_.push_back(d);
      return;
    }
    const size_t update = find_update(d.param);
    const OpDesc& op = block0().ops[update];
    const VarDesc& param = *block0().find_local_var(d.param);
    const std::string grad = op.first_input("Grad");
    const VarDesc* g = p_.find_var(0, grad);
    SKIFF_CHECK(g && g->kind == VarKind::kDenseTensor && g->dtype == DType::kF32 &&
                    (!g->shape.known() || g->shape.numel() == param.shape.numel()),
                "ps_split: the gradient '", grad, "' of dense parameter '", d.param, "' ",
                param.shape, " must be a dense float32 tensor of its size, got ",
                g ? str_cat(dtype_name(g->dtype), g->shape, " ", var_kind_name(g->kind))
                  : std::string("an undeclared variable"),
                " (list an embedding table with sparse gradients as sparse)");
    remove(update);
    dense_.push_back(d);
    dense_grads_.push_back(grad);
  }

  void remove(size_t i) {
    removed_.insert(i);
    for (const std::string& n : block0().ops[i].input_names()) roots_.push_back(n);
  }

  void rewrite();
  void remove_dead_ops(std::vector<OpDesc>& ops, std::vector<OpDesc>& gone);
  void drop_declarations(const std::vector<OpDesc>& gone, const std::set<std::string>& written);
  std::string step_var();

  Program p_;
  const PsSplitOptions& o_;
  std::set<std::string> params_, tables_;
  std::set<size_t> removed_;              // ops of block 0 the servers' updates replace
  std::map<size_t, OpDesc> replaced_;     // ops of block 0 rewritten in place
  std::vector<PsDenseParam> dense_;       // pushed, pulled (sync, async) or synced (geo)
  std::vector<std::string> dense_grads_;  // sync, async: their gradients
  std::set<std::string> drop_;            // declarations the trainer no longer needs
  std::vector<std::string> roots_;        // inputs of removed ops: maybe dead now
};

void PsSplitter::rewrite() {
  std::set<std::string> written;  // by some op of the input program (fed values are not)
  for (const Block& b : p_.blocks())
    for (const OpDesc& op : b.ops)
      for (const std::string& n : op.output_names()) written.insert(n);
  Block& b = block0();
  std::vector<OpDesc> ops, gone;
  for (size_t i = 0; i < b.ops.size(); ++i) {
    if (removed_.count(i)) {
      gone.push_back(b.ops[i]);
    } else {
      auto it = replaced_.find(i);
      ops.push_back(it == replaced_.end() ? b.ops[i] : it->second);
      if (it != replaced_.end()) gone.push_back(b.ops[i]);
    }
  }
  std::vector<std::string> params, tables;
  for (const PsDenseParam& d : dense_) {
    params.push_back(d.param);
    tables.push_back(d.table);
  }
  if (geo()) {
    OpDesc step("ps_geo_step");
    step.set_output("Step", {step_var()});
    step.set_input("X", params).set_output("Out", params);
    ops.push_back(step.set_attr("tables", tables).set_attr("k_steps", o_.k_steps));
  } else {
    if (!dense_.empty()) {
      OpDesc push("ps_push_dense");
      ops.push_back(push.set_input("X", dense_grads_).set_attr("tables", tables));
    }
    OpDesc barrier("ps_barrier");
    barrier.set_output("Step", {step_var()});
    barrier.set_attr("mode", std::string(o_.mode == PsSplitMode::kSync ? "sync" : "async"));
    ops.push_back(barrier);
    if (!dense_.empty()) {
      OpDesc pull("ps_pull_dense");
      pull.set_input("X", params).set_output("Out", params);
      ops.push_back(pull.set_attr("tables", tables));
    }
  }
  remove_dead_ops(ops, gone);
  b.ops = std::move(ops);
  drop_declarations(gone, written);
}

// Removes the ops of `ops` that only fed removed ones: ops without effects whose outputs
// are temporaries nobody reads any more, found backwards from the removed ops' inputs.
void PsSplitter::remove_dead_ops(std::vector<OpDesc>& ops, std::vector<OpDesc>& gone) {
  std::map<std::string, int> readers;
  for (const OpDesc& op : ops)
    for (const std::string& n : op.input_names()) ++readers[n];
  for (int bi = 1; bi < p_.num_blocks(); ++bi)
    for (const OpDesc& op : p_.block(bi).ops)
      for (const std::string& n : op.input_names()) ++readers[n];
  auto temporary_unread = [&](const std::string& n) {
    const VarDesc* v = p_.find_var(0, n);
    return readers[n] == 0 && !params_.count(n) && !(v && v->persistable);
  };
  std::vector<bool> dead(ops.size(), false);
  std::vector<std::string> todo = roots_;
  while (!todo.empty()) {
    const std::string v = todo.back();
    todo.pop_back();
    if (!temporary_unread(v)) continue;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (dead[i] || !writes(ops[i], v) || has_effects(ops[i])) continue;
      const auto outs = ops[i].output_names();
      if (!std::all_of(outs.begin(), outs.end(), temporary_unread)) continue;
      dead[i] = true;
      for (const std::string& n : ops[i].input_names()) {
        --readers[n];
        todo.push_back(n);
      }
    }
  }
  std::vector<OpDesc> live;
  for (size_t i = 0; i < ops.size(); ++i) (dead[i] ? gone : live).push_back(std::move(ops[i]));
  ops = std::move(live);
}

// Drops the declarations of the tables, their gradients and whatever only removed ops used,
// keeping the dense parameters and values fed from outside (no op writes them).
void PsSplitter::drop_declarations(const std::vector<OpDesc>& gone,
                                   const std::set<std::string>& written) {
  std::set<std::string> used;
  for (const Block& b : p_.blocks()) {
    for (const OpDesc& op : b.ops) {
      for (const std::string& n : op.input_names()) used.insert(n);
      for (const std::string& n : op.output_names()) used.insert(n);
    }
  }
  std::set<std::string> candidates = drop_;
  for (const OpDesc& op : gone) {
    for (const std::string& n : op.input_names()) candidates.insert(n);
    for (const std::string& n : op.output_names()) candidates.insert(n);
  }
  Block& b = block0();
  for (const std::string& n : candidates) {
    const VarDesc* v = b.find_local_var(n);
    if (!v || used.count(n) || (params_.count(n) && !drop_.count(n))) continue;
    if (!v->persistable && !written.count(n) && !drop_.count(n)) continue;  // fed
    b.vars.erase(n);
  }
}

std::string PsSplitter::step_var() {
  std::string name = "ps_step";
  for (int k = 1; p_.find_var(0, name); ++k) name = str_cat("ps_step_", k);
  VarDesc v(name, DType::kI64, Shape{});
  v.stop_gradient = true;
  block0().add_var(v);
  return name;
}

}  // namespace

Program ps_split(const Program& main, const PsSplitOptions& options) {
  return PsSplitter(main, options).run();
}

}  // namespace skiff
