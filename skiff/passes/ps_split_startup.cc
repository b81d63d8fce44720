// ps_split_startup: the startup program of a trainer split by ps_split, without the
// initialisation of what the servers now hold.
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "skiff/passes/ps_split.h"

namespace skiff {

namespace {

// Every variable `op` reads, with those the ops of the blocks it runs read.
void collect_reads(const Program& program, const OpDesc& op, std::set<std::string>* out) {
  for (const std::string& n : op.input_names()) out->insert(n);
  for (int32_t idx : op.sub_blocks()) {
    if (idx < 0 || idx >= program.num_blocks()) continue;
    for (const OpDesc& inner : program.block(idx).ops) collect_reads(program, inner, out);
  }
}

}  // namespace

Program ps_split_startup(const Program& startup, const Program& main, const Program& split) {
  std::set<std::string> dropped;
  for (const auto& [name, v] : main.block(0).vars)
    if (v.persistable && !split.block(0).find_local_var(name)) dropped.insert(name);
  Program out = startup;
  Block& b = out.block(0);
  // Backwards: an op stays when it writes a persistable value the trainer keeps, or a
  // value a later op that stays reads; ops with no outputs or with blocks stay.
  std::set<std::string> needed;
  std::vector<bool> keep(b.ops.size(), false);
  for (size_t k = b.ops.size(); k-- > 0;) {
    const OpDesc& op = b.ops[k];
    bool kept = op.output_names().empty() || !op.sub_blocks().empty();
    for (const std::string& n : op.output_names()) {
      const VarDesc* v = out.find_var(0, n);
      kept = kept || needed.count(n) || !v || (v->persistable && !dropped.count(n));
    }
    if (!kept) continue;
    keep[k] = true;
    collect_reads(out, op, &needed);
  }
  std::vector<OpDesc> ops;
  std::set<std::string> used, removed_outputs;
  for (size_t k = 0; k < b.ops.size(); ++k) {
    for (const std::string& n : b.ops[k].output_names())
      (keep[k] ? used : removed_outputs).insert(n);
    if (!keep[k]) continue;
    for (const std::string& n : b.ops[k].input_names()) used.insert(n);
    ops.push_back(std::move(b.ops[k]));
  }
  b.ops = std::move(ops);
  // The dropped values, and the temporaries only removed ops wrote.
  for (auto it = b.vars.begin(); it != b.vars.end();) {
    const std::string& n = it->first;
    const bool gone =
        dropped.count(n) || (removed_outputs.count(n) && !used.count(n) && !it->second.persistable);
    it = gone ? b.vars.erase(it) : std::next(it);
  }
  return out;
}

}  // namespace skiff
