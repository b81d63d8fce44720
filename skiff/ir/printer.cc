#include "skiff/ir/printer.h"

#include <set>

namespace skiff {

namespace {

std::string var_list(const std::vector<std::string>& vars) {
  std::string out = "{";
  for (size_t i = 0; i < vars.size(); ++i) {
    if (i) out += ", ";
    out += vars[i].empty() ? "_" : vars[i];
  }
  return out + "}";
}

std::string slot_list(const std::vector<Slot>& slots) {
  std::string out;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (i) out += ", ";
    out += slots[i].first + "=" + var_list(slots[i].second);
  }
  return out;
}

std::string var_to_text(const VarDesc& v) {
  std::string out = "var " + v.name + ": ";
  if (v.kind == VarKind::kDenseTensor || v.kind == VarKind::kSelectedRows ||
      v.kind == VarKind::kTensorArray) {
    out += str_cat(dtype_name(v.dtype), v.shape, " ");
  }
  out += var_kind_name(v.kind);
  if (v.persistable) out += " persistable";
  if (v.stop_gradient) out += " stop_gradient";
  return out;
}

// Deeper sub-blocks are printed after the program, so that a corrupt file with a
// long chain of nested blocks cannot exhaust the stack.
constexpr int kMaxIndent = 64;

class ProgramPrinter {
 public:
  explicit ProgramPrinter(const Program& program) : program_(program) {}

  std::string run() {
    if (!program_.feed_names.empty() || !program_.fetch_names.empty())
      line(0, "feeds " + var_list(program_.feed_names) + ", fetches " +
                  var_list(program_.fetch_names));
    print_block(0, 0);
    // Blocks no op runs (unusual, but a program may hold them) come last.
    for (int i = 1; i < program_.num_blocks(); ++i)
      if (!printed_.count(i)) print_block(i, 0);
    return out_;
  }

 private:
  void line(int indent, const std::string& text) {
    out_.append(static_cast<size_t>(indent) * 2, ' ');
    out_ += text;
    out_ += '\n';
  }

  void print_block(int idx, int indent) {
    printed_.insert(idx);
    const Block& block = program_.blocks()[idx];
    line(indent, str_cat("block ", idx, " (parent ", block.parent_idx, "):"));
    for (const auto& [name, var] : block.vars) line(indent + 1, var_to_text(var));
    for (const OpDesc& op : block.ops) {
      line(indent + 1, op_to_text(op));
      for (int32_t sub : op.sub_blocks()) {
        if (sub < 0 || sub >= program_.num_blocks()) {
          line(indent + 2, str_cat("(block ", sub, " does not exist)"));
        } else if (printed_.count(sub)) {
          line(indent + 2, str_cat("(block ", sub, " is shown above)"));
        } else if (indent >= kMaxIndent) {
          line(indent + 2, str_cat("(block ", sub, " is nested too deep: shown at the end)"));
        } else {
          print_block(sub, indent + 2);
        }
      }
    }
  }

  const Program& program_;
  std::set<int> printed_;
  std::string out_;
};

}  // namespace

std::string op_to_text(const OpDesc& op) {
  std::string out;
  if (op.outputs.size() == 1 && op.outputs[0].first == "Out") {
    out = var_list(op.outputs[0].second) + " = ";
  } else if (!op.outputs.empty()) {
    out = "{" + slot_list(op.outputs) + "} = ";
  }
  out += op.type + "(" + slot_list(op.inputs) + ")";
  std::string attrs;
  for (const auto& [name, value] : op.attrs.items()) {
    if (name == kSourceAttr && std::holds_alternative<std::string>(value)) continue;
    attrs += (attrs.empty() ? "" : ", ") + name + "=" + attr_str(value);
  }
  if (!attrs.empty()) out += " {" + attrs + "}";
  std::string source = op.source();
  if (!source.empty()) out += "  # " + source;
  return out;
}

std::string program_to_text(const Program& program) {
  if (program.num_blocks() == 0) return "(a program without blocks)\n";
  return ProgramPrinter(program).run();
}

}  // namespace skiff
