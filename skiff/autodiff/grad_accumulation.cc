// Gradient accumulation over the grad ops of a block. Grad ops come in groups, one
// per forward op, in reverse forward order. A gradient name may be written by several
// groups (a variable read by several ops): the writers get distinct names and a `sum`
// runs before the first reader. A reader consumes the current value; a later writer
// of the same name starts a new version (a variable overwritten in place).
#include <map>

#include "skiff/autodiff/block_grad.h"
#include "skiff/ops/registry.h"

namespace skiff::autodiff {

namespace {

bool is_grad(const std::string& n) { return n.find(kGradSuffix) != std::string::npos; }

// One contribution to a gradient: the output entry (op, slot, position) writing it.
struct Part {
  std::string name;
  int op_index;  // index in the output list of the op that wrote it; -1 when given
  size_t slot = 0, pos = 0;
};

class Accumulator {
 public:
  Accumulator(const Program& program, int block, const std::set<std::string>& given)
      : program_(program), block_(block) {
    for (const auto& n : given) {
      live_[n] = {Part{n, -1}};
      ever_.insert(n);
    }
  }

  void add_group(const std::vector<OpDesc>& group) {
    // Gradients the group reads from earlier groups.
    std::set<std::string> reads, written;
    for (const OpDesc& op : group) {
      for (const auto& n : op.input_names())
        if (is_grad(n) && !written.count(n)) reads.insert(n);
      for (const auto& n : op.output_names()) written.insert(n);
    }
    for (const auto& n : reads) make_readable(n);
    for (const OpDesc& op : group) {
      out_.push_back(op);
      int idx = static_cast<int>(out_.size()) - 1;
      for (size_t s = 0; s < op.outputs.size(); ++s) {
        for (size_t p = 0; p < op.outputs[s].second.size(); ++p) {
          const std::string& n = op.outputs[s].second[p];
          if (n.empty() || !is_grad(n)) continue;
          add_part(Part{n, idx, s, p}, reads.count(n) > 0);
        }
      }
    }
    for (const auto& n : reads)
      if (!written.count(n)) live_[n].clear();  // consumed
  }

  std::vector<OpDesc> finish() {
    for (auto& [name, parts] : live_)
      if (parts.size() > 1) append_sum(name);
    return std::move(out_);
  }

 private:
  void make_readable(const std::string& n) {
    auto& parts = live_[n];
    if (parts.size() > 1) {
      append_sum(n);
    } else if (parts.empty() && !ever_.count(n)) {
      std::string fwd = forward_name(n);
      if (fwd.empty() || !differentiable_var(program_, block_, fwd)) return;
      OpDesc fill("fill_zeros_like");
      fill.set_input("X", {fwd}).set_output("Out", {n});
      fill_default_attrs(fill);
      out_.push_back(std::move(fill));
      live_[n] = {Part{n, static_cast<int>(out_.size()) - 1}};
      ever_.insert(n);
    }
  }

  // Records the output entry `part` (named part.name) as a contribution.
  void add_part(Part part, bool consumed_here) {
    const std::string n = part.name;
    ever_.insert(n);
    auto& parts = live_[n];
    if (consumed_here || parts.empty()) {
      parts = {part};
      return;
    }
    // A second contribution: give the first writer (if it is an op) and this one
    // their own names; append_sum adds them up under `n`.
    if (parts.size() == 1 && parts[0].name == n && parts[0].op_index >= 0) rename(&parts[0]);
    rename(&part);
    parts.push_back(part);
  }

  // Gives one output entry a fresh name (only that entry: an op may write the same
  // gradient from two slots, as mul(h, h) does).
  void rename(Part* part) {
    part->name = fresh(part->name);
    out_[part->op_index].outputs[part->slot].second[part->pos] = part->name;
  }

  void append_sum(const std::string& n) {
    auto& parts = live_[n];
    std::vector<std::string> names;
    for (const Part& p : parts) names.push_back(p.name);
    OpDesc sum("sum");
    sum.set_input("X", names).set_output("Out", {n});
    fill_default_attrs(sum);
    out_.push_back(std::move(sum));
    parts = {Part{n, static_cast<int>(out_.size()) - 1}};
  }

  std::string fresh(const std::string& n) { return n + "@RENAME@" + std::to_string(counter_++); }

  const Program& program_;
  int block_;
  std::map<std::string, std::vector<Part>> live_;
  std::set<std::string> ever_;
  std::vector<OpDesc> out_;
  int counter_ = 0;
};

}  // namespace

std::string forward_name(const std::string& grad) {
  size_t at = grad.find(kGradSuffix);
  return at == std::string::npos ? "" : grad.substr(0, at);
}

std::vector<OpDesc> accumulate_gradients(const Program& program, int fwd_block,
                                         const std::vector<std::vector<OpDesc>>& groups,
                                         const std::set<std::string>& given) {
  Accumulator acc(program, fwd_block, given);
  for (const auto& group : groups) acc.add_group(group);
  return acc.finish();
}

}  // namespace skiff::autodiff
