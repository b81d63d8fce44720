// Before a block is differentiated, variables it overwrites get one name per value
// (versions), so that every grad op can read the forward value its op saw: grad ops
// run after the whole forward, when a reused name holds only its last value.
//
// Two regimes. In a loop or branch body that keeps its step scope, an outer variable
// keeps its step-entry value under its own name (runtime/control_flow.cc swaps the new
// value out), so every write followed by more accesses goes to a fresh name and the
// last such version is assigned back at the end of the body. Elsewhere (block 0, and
// variables local to a body) the last write keeps the name, earlier writes get fresh
// names, and a value read before being overwritten is first copied aside.
#include <map>

#include "skiff/autodiff/block_grad.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff::autodiff {

namespace {

bool touches(const Program& p, const OpDesc& op, const std::string& v, bool writes_only) {
  for (const auto& n : op.output_names())
    if (n == v) return true;
  if (!writes_only)
    for (const auto& n : op.input_names())
      if (n == v) return true;
  for (int32_t b : op.sub_blocks())
    for (const OpDesc& inner : p.block(b).ops)
      if (touches(p, inner, v, writes_only)) return true;
  return false;
}

bool reads(const OpDesc& op, const std::string& v) {
  for (const auto& n : op.input_names())
    if (n == v) return true;
  return false;
}

void rename_everywhere(Program& p, OpDesc& op, const std::string& from, const std::string& to) {
  op.rename_input(from, to);
  op.rename_output(from, to);
  for (int32_t b : op.sub_blocks())
    for (OpDesc& inner : p.block(b).ops) rename_everywhere(p, inner, from, to);
}

OpDesc assign_op(const std::string& from, const std::string& to) {
  OpDesc op("assign");
  op.set_input("X", {from}).set_output("Out", {to});
  fill_default_attrs(op);
  return op;
}

class Renamer {
 public:
  Renamer(Program& p, int block, bool kept_scope) : p_(p), block_(block), kept_(kept_scope) {}

  void run() {
    // Differentiable dense variables written by this block's ops. Tensor arrays are
    // updated in place entry by entry (each entry written once), so they keep one name.
    std::set<std::string> written;
    for (const OpDesc& op : p_.block(block_).ops) {
      for (const auto& n : op.output_names()) {
        const VarDesc* d = n.empty() ? nullptr : p_.find_var(block_, n);
        if (d && d->kind == VarKind::kDenseTensor && differentiable_var(p_, block_, n))
          written.insert(n);
      }
    }
    for (const auto& v : written) version(v);
  }

 private:
  // Gives the values of `v` their own names, rewriting the block's op list.
  void version(const std::string& v) {
    std::vector<OpDesc>& ops = p_.block(block_).ops;
    std::vector<size_t> writes;
    size_t last_access = 0;
    for (size_t j = 0; j < ops.size(); ++j) {
      if (touches(p_, ops[j], v, false)) last_access = j;
      for (const auto& n : ops[j].output_names())
        if (n == v) {
          writes.push_back(j);
          break;
        }
    }
    const bool outer = kept_ && !p_.block(block_).find_local_var(v);
    auto renamed = [&](size_t k) {
      return outer ? writes[k] < last_access : k + 1 < writes.size();
    };
    bool any = false;
    for (size_t k = 0; k < writes.size(); ++k) any = any || renamed(k);
    bool read_first = false;
    for (size_t j = 0; j < writes[0]; ++j) read_first = read_first || touches(p_, ops[j], v, false);
    // Outside kept scopes the last write takes the name, so an entry value that is
    // read (before the first write, or by it) needs a copy of its own.
    // (A local that is not persistable has no value before the block's first write of
    // it, even when that write is a loop that lists it as an input.)
    const bool value_before =
        p_.find_var(block_, v)->persistable || !p_.block(block_).find_local_var(v);
    bool snapshot = !outer && (read_first || (reads(ops[writes[0]], v) && value_before));
    if (!any && !snapshot) return;

    std::vector<OpDesc> out;
    std::string cur = v;
    if (snapshot) {
      cur = fresh(v);
      out.push_back(assign_op(v, cur));
    }
    size_t k = 0;
    for (size_t j = 0; j < ops.size(); ++j) {
      OpDesc op = ops[j];
      const bool is_write = k < writes.size() && writes[k] == j;
      const bool cf = !op.sub_blocks().empty();
      if (is_write && cf) {
        // A loop or branch writing v updates it in place even when its body does not
        // read v: a loop that runs no step (a branch not taken) leaves the value v had.
        // It gets its own copy of that value to update (none when v has none yet: a
        // local first written by this op).
        std::string target = renamed(k) ? fresh(v) : v;
        const bool has_value = k > 0 || cur != v || outer || value_before;
        if (target != cur && has_value) out.push_back(assign_op(cur, target));
        if (target != v) rename_everywhere(p_, op, v, target);
        cur = target;
      } else {
        if (cur != v) {
          op.rename_input(v, cur);
          if (cf) rename_everywhere_inputs(op, v, cur);
        }
        if (is_write) {
          std::string target = renamed(k) ? fresh(v) : v;
          if (target != v) {
            if (cf) {
              rename_everywhere(p_, op, v, target);
            } else {
              op.rename_output(v, target);
            }
          }
          cur = target;
        }
      }
      if (is_write) ++k;
      out.push_back(std::move(op));
    }
    if (outer && cur != v) out.push_back(assign_op(cur, v));
    ops = std::move(out);
  }

  // Renames reads of `from` inside the sub-blocks of a control-flow op that does not
  // write it.
  void rename_everywhere_inputs(OpDesc& op, const std::string& from, const std::string& to) {
    for (int32_t b : op.sub_blocks())
      for (OpDesc& inner : p_.block(b).ops) rename_everywhere(p_, inner, from, to);
  }

  // A new variable declared in this block like `v`.
  std::string fresh(const std::string& v) {
    std::string name;
    do {
      name = v + "@V" + std::to_string(counter_++);
    } while (p_.find_var(block_, name));
    VarDesc d = *p_.find_var(block_, v);
    d.name = name;
    d.persistable = false;
    p_.block(block_).add_var(d);
    return name;
  }

  Program& p_;
  int block_;
  bool kept_;
  int counter_ = 0;
};

}  // namespace

void rename_overwritten(Program& program, int block, bool kept_scope) {
  Renamer(program, block, kept_scope).run();
}

}  // namespace skiff::autodiff
