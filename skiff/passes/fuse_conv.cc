#include "skiff/passes/fuse_conv.h"

#include <map>
#include <set>
#include <string>

namespace skiff {

namespace {

// How many op slots of the whole program (every block) read / write each variable.
struct VarUses {
  std::map<std::string, int> reads, writes;

  explicit VarUses(const Program& program) {
    for (const Block& block : program.blocks()) {
      for (const OpDesc& op : block.ops) {
        for (const std::string& n : op.input_names()) ++reads[n];
        for (const std::string& n : op.output_names()) ++writes[n];
      }
    }
  }
  int count(const std::map<std::string, int>& m, const std::string& name) const {
    auto it = m.find(name);
    return it == m.end() ? 0 : it->second;
  }
};

// The variables `op` writes, with those written by the ops of the blocks it runs.
void collect_writes(const Program& program, const OpDesc& op, std::set<std::string>* out) {
  for (const std::string& n : op.output_names()) out->insert(n);
  for (int32_t idx : op.sub_blocks()) {
    if (idx < 0 || idx >= program.num_blocks()) continue;
    for (const OpDesc& inner : program.block(idx).ops) collect_writes(program, inner, out);
  }
}

class ConvFuser {
 public:
  explicit ConvFuser(Program* program) : program_(*program), uses_(*program) {}

  void run() {
    for (int b = 0; b < program_.num_blocks(); ++b) {
      size_t i = 0;
      while (i < program_.block(b).ops.size()) {
        if (!fuse_at(b, i)) ++i;  // after a fusion the op at i follows the removed conv2d
      }
    }
  }

 private:
  // True for a declared, non-persistable variable that one op slot reads and one writes.
  bool internal(int block, const std::string& name) const {
    const VarDesc* v = program_.find_var(block, name);
    return !name.empty() && v && !v->persistable && uses_.count(uses_.reads, name) == 1 &&
           uses_.count(uses_.writes, name) == 1;
  }

  // The first op after `from` in the block that reads `var`, or -1.
  int next_reader(const Block& block, size_t from, const std::string& var) const {
    for (size_t j = from + 1; j < block.ops.size(); ++j) {
      for (const std::string& n : block.ops[j].input_names())
        if (n == var) return static_cast<int>(j);
    }
    return -1;
  }

  // True when `add`'s Y is a per-channel bias of the conv2d output `conv_out`.
  bool is_channel_bias(int block, const OpDesc& add, const std::string& conv_out) const {
    if (add.input("X").size() != 1 || add.input("Y").size() != 1) return false;
    const VarDesc* out = program_.find_var(block, conv_out);
    const VarDesc* bias = program_.find_var(block, add.first_input("Y"));
    if (!out || !bias || bias->kind != VarKind::kDenseTensor || bias->dtype != out->dtype ||
        out->shape.rank() != 4) {
      return false;
    }
    const int64_t m = out->shape[1], axis = add.attr_or<int64_t>("axis", -1);
    if (m < 0) return false;
    if (bias->shape.rank() == 1) return axis == 1 && bias->shape[0] == m;
    return (axis == -1 || axis == 0) && bias->shape == Shape{1, m, 1, 1};
  }

  // True when no op strictly between `begin` and `end` writes one of `names`.
  bool unwritten_between(int block, size_t begin, size_t end,
                         const std::vector<std::string>& names) const {
    std::set<std::string> written;
    const Block& b = program_.block(block);
    for (size_t j = begin + 1; j < end; ++j) collect_writes(program_, b.ops[j], &written);
    for (const std::string& n : names)
      if (written.count(n)) return false;
    return true;
  }

  // Drops the declaration of `name` from the block that declares it for `block`.
  void remove_var(int block, const std::string& name) {
    for (int b = block; b >= 0; b = program_.block(b).parent_idx) {
      if (program_.block(b).vars.erase(name)) return;
    }
  }

  bool fuse_at(int block, size_t i) {
    Block& b = program_.block(block);
    const OpDesc& conv = b.ops[i];
    if (conv.type != "conv2d" || !conv.first_input("Bias").empty() ||
        conv.attr_or<bool>("fuse_relu", false)) {
      return false;
    }
    const std::string conv_out = conv.first_output("Output");
    if (!internal(block, conv_out)) return false;
    const int add_at = next_reader(b, i, conv_out);
    if (add_at < 0) return false;
    const OpDesc& add = b.ops[add_at];
    if (add.type != "elementwise_add" || add.first_input("X") != conv_out ||
        !is_channel_bias(block, add, conv_out)) {
      return false;
    }
    const std::string bias = add.first_input("Y"), sum = add.first_output("Out");
    if (sum.empty() || bias == conv_out) return false;

    int last = add_at;
    std::string result = sum;
    if (internal(block, sum)) {
      const int relu_at = next_reader(b, add_at, sum);
      const OpDesc* relu = relu_at < 0 ? nullptr : &b.ops[relu_at];
      if (relu && relu->type == "relu" && relu->input("X") == std::vector<std::string>{sum} &&
          !relu->first_output("Out").empty() && unwritten_between(block, add_at, relu_at, {bias})) {
        last = relu_at;
        result = relu->first_output("Out");
      }
    }
    if (!unwritten_between(block, i, last,
                           {conv.first_input("Input"), conv.first_input("Filter")})) {
      return false;
    }

    OpDesc fused = conv;
    fused.set_input("Bias", {bias}).set_output("Output", {result});
    fused.set_attr("fuse_relu", last != add_at);
    b.ops[last] = fused;
    if (last != add_at) b.ops.erase(b.ops.begin() + add_at);
    b.ops.erase(b.ops.begin() + static_cast<std::ptrdiff_t>(i));
    remove_var(block, conv_out);
    if (result != sum) remove_var(block, sum);
    return true;
  }

  Program& program_;
  VarUses uses_;
};

}  // namespace

Program fuse_conv_bias_relu(const Program& program) {
  Program out = program;
  ConvFuser(&out).run();
  return out;
}

}  // namespace skiff
