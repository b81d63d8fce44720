#include "skiff/codegen/program_emitter.h"

#include <cctype>

#include "skiff/codegen/op_emitter.h"
#include "skiff/core/error.h"
#include "skiff/ops/registry.h"

namespace skiff::codegen {

namespace {

const std::set<std::string>& cpp_keywords() {
  static const std::set<std::string> words = {
      "alignas", "alignof",   "and",    "asm",      "auto",      "bool",     "break",    "case",
      "catch",   "char",      "class",  "const",    "constexpr", "continue", "default",  "delete",
      "do",      "double",    "else",   "enum",     "explicit",  "export",   "extern",   "false",
      "float",   "for",       "friend", "goto",     "if",        "inline",   "int",      "long",
      "mutable", "namespace", "new",    "noexcept", "not",       "nullptr",  "operator", "or",
      "private", "protected", "public", "register", "return",    "short",    "signed",   "sizeof",
      "static",  "struct",    "switch", "template", "this",      "throw",    "true",     "try",
      "typedef", "typename",  "union",  "unsigned", "using",     "virtual",  "void",     "volatile",
      "while",   "xor",       "k",      "v"};
  return words;
}

// "X=a, b; Y=c" for the slots of an op (empty positions shown as "-").
std::string slots_str(const std::vector<Slot>& slots) {
  std::string out;
  for (const Slot& s : slots) {
    if (!out.empty()) out += "; ";
    out += s.first + "=";
    for (size_t i = 0; i < s.second.size(); ++i)
      out += (i ? ", " : "") + (s.second[i].empty() ? std::string("-") : s.second[i]);
  }
  return out;
}

}  // namespace

const char* cpp_type(VarKind kind) {
  switch (kind) {
    case VarKind::kDenseTensor:
      return "Tensor";
    case VarKind::kTensorArray:
      return "TensorArray";
    case VarKind::kSelectedRows:
      return "SelectedRows";
    case VarKind::kStepScopes:
      break;
  }
  fail("a variable of kind ", var_kind_name(kind), " has no C++ value type");
}

std::string cpp_identifier(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "var_" + out;
  // Names the C++ implementation reserves: a leading underscore, or double underscores.
  if (out[0] == '_' || out.find("__") != std::string::npos) out = "var" + out;
  while (out.find("__") != std::string::npos) out.replace(out.find("__"), 2, "_");
  if (cpp_keywords().count(out)) out += "_var";
  return out;
}

ProgramEmitter::ProgramEmitter(const Program& program) : program_(program) {
  ops_.resize(program.num_blocks());
  for (int b = 0; b < program.num_blocks(); ++b) {
    for (size_t i = 0; i < program.block(b).ops.size(); ++i) {
      OpDesc op = program.block(b).ops[i];
      if (!find_emit_rule(op.type)) {
        std::string known;
        for (const std::string& t : emitted_op_types()) known += (known.empty() ? "" : ", ") + t;
        const std::string source = op.source();
        fail("op '", op.type, "' (block ", b, ", op ", i,
             source.empty() ? std::string() : ", created at " + source,
             ") has no C++ emitter rule; the compiler knows: ", known);
      }
      if (OpRegistry::global().find(op.type)) fill_default_attrs(op);
      ops_[b].push_back(std::move(op));
    }
  }
  collect(0, false);
  find_kept_loops();
}

void ProgramEmitter::find_kept_loops() {
  for (int b = 0; b < program_.num_blocks(); ++b) {
    for (const OpDesc& op : ops_[b]) {
      const OpInfo* info = OpRegistry::global().find(op.type);
      if (!info || !info->runs_forward_block() || !op.attr_or<bool>("keep_step_scopes", false)) {
        continue;
      }
      const bool branch = info->block_role == BlockRole::kBranch;
      KeptLoop loop;
      loop.block = b;
      loop.body = op.sub_blocks().at(0);
      loop.branch = branch;
      loop.scopes_var = op.first_output(info->block_slots.scopes);
      SKIFF_CHECK(!loop.scopes_var.empty(), "the ", op.type, " op of block ", loop.body,
                  " keeps its scopes but names no variable for them");
      loop.scopes_block = owner_block(b, loop.scopes_var);
      for (const std::string& n : op.output(info->block_slots.writes))
        if (!n.empty()) loop.carried.push_back(n);
      loop.frame_type = "Frame_b" + std::to_string(loop.body);
      loop.frame_var = "f_b" + std::to_string(loop.body);
      kept_loops_.push_back(loop);
    }
    for (const OpDesc& op : ops_[b]) {
      const OpInfo* info = OpRegistry::global().find(op.type);
      if (info && info->runs_blocks() && !info->runs_forward_block()) {
        grad_blocks_.insert(op.sub_blocks().at(0));
      }
    }
  }
  for (const KeptLoop& loop : kept_loops_) {
    for (const KeptLoop& other : kept_loops_)
      SKIFF_CHECK(&other == &loop || other.body != loop.body, "block ", loop.body,
                  " is the body of two kept loops or branches");
    SKIFF_CHECK(!grad_blocks_.count(loop.body), "block ", loop.body,
                " is both a kept body and a grad block");
  }
}

bool ProgramEmitter::frame_block(int block) const {
  if (grad_blocks_.count(block)) return true;
  for (const KeptLoop& loop : kept_loops_)
    if (loop.body == block) return true;
  return false;
}

bool ProgramEmitter::in_vars(const ProgramVar& v) const {
  if (v.desc && v.desc->kind == VarKind::kStepScopes) return false;
  return !frame_block(v.block);
}

const KeptLoop* ProgramEmitter::loop_of_scopes(const ProgramVar& v) const {
  for (const KeptLoop& loop : kept_loops_)
    if (loop.scopes_var == v.name && loop.scopes_block == v.block) return &loop;
  return nullptr;
}

const KeptLoop* ProgramEmitter::loop_of_scopes(int block, const std::string& name) const {
  for (const KeptLoop& loop : kept_loops_)
    if (loop.scopes_var == name && loop.scopes_block == owner_block(block, name)) return &loop;
  return nullptr;
}

int ProgramEmitter::owner_block(int block, const std::string& name) const {
  for (int b = block; b >= 0; b = program_.block(b).parent_idx) {
    if (program_.block(b).find_local_var(name)) return b;
  }
  return 0;  // undeclared: one variable of the whole program
}

void ProgramEmitter::note_var(int block, const std::string& name, bool written, bool in_branch) {
  if (name.empty()) return;
  const int owner = owner_block(block, name);
  auto key = std::make_pair(owner, name);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ProgramVar v;
    v.name = name;
    v.block = owner;
    v.desc = program_.block(owner).find_local_var(name);
    if (v.desc) v.kind = v.desc->kind;
    std::string field = cpp_identifier(name);
    if (fields_.count(field)) field += "_b" + std::to_string(owner);
    for (int n = 2; fields_.count(field); ++n)
      field = cpp_identifier(name) + "_" + std::to_string(n);
    fields_.insert(field);
    v.field = field;
    it = index_.emplace(key, vars_.size()).first;
    vars_.push_back(std::move(v));
  }
  ProgramVar& v = vars_[it->second];
  v.written = v.written || written;
  v.written_in_branch = v.written_in_branch || (written && in_branch);
}

void ProgramEmitter::collect(int block, bool in_branch) {
  for (const OpDesc& op : ops_[block]) {
    for (const std::string& n : op.input_names()) note_var(block, n, false, in_branch);
    for (const std::string& n : op.output_names()) note_var(block, n, true, in_branch);
    for (int32_t sub : op.sub_blocks()) {
      SKIFF_CHECK(sub > 0 && sub < program_.num_blocks(), "op '", op.type, "' in block ", block,
                  " names block ", sub, ", which does not exist");
      const OpInfo* info = OpRegistry::global().find(op.type);
      collect(sub, in_branch || (info && info->block_role == BlockRole::kBranch));
    }
  }
}

const ProgramVar& ProgramEmitter::var_of(int block, const std::string& name) const {
  auto it = index_.find({owner_block(block, name), name});
  SKIFF_CHECK(it != index_.end(), "variable '", name, "' of block ", block, " was not seen");
  return vars_[it->second];
}

std::string ProgramEmitter::expr_of(int block, const std::string& name) const {
  auto it = overrides_.find({owner_block(block, name), name});
  if (it != overrides_.end()) return it->second;
  const ProgramVar& v = var_of(block, name);
  // Variables of a kept body or grad block exist only inside its frames or backward steps.
  SKIFF_CHECK(!frame_block(v.block), "variable '", name, "' of block ", v.block,
              " lives in the frames of a kept loop (or the steps of a loop gradient), but an op "
              "of block ",
              block, " reads it outside them");
  return "v." + v.field;
}

VarKind ProgramEmitter::kind_of(int block, const std::string& name) const {
  return var_of(block, name).kind;
}

const ProgramVar* ProgramEmitter::block0_var(const std::string& name) const {
  auto it = index_.find({0, name});
  return it == index_.end() ? nullptr : &vars_[it->second];
}

std::vector<std::string> ProgramEmitter::data_vars() const {
  std::set<std::string> written, seen;
  std::vector<std::string> out;
  for (const OpDesc& op : ops_[0]) {
    for (const std::string& n : op.input_names()) {
      const VarDesc* d = program_.global_block().find_local_var(n);
      if (n.empty() || written.count(n) || !d || d->persistable ||
          d->kind != VarKind::kDenseTensor || !seen.insert(n).second) {
        continue;
      }
      out.push_back(n);
    }
    for (const std::string& n : op.output_names()) written.insert(n);
  }
  return out;
}

int ProgramEmitter::op_count() const {
  int n = 0;
  for (const auto& ops : ops_) n += static_cast<int>(ops.size());
  return n;
}

void ProgramEmitter::emit_block(int idx, CppWriter* out) {
  out_ = out;
  for (size_t i = 0; i < ops_[idx].size(); ++i) {
    const OpDesc& op = ops_[idx][i];
    const std::string source = op.source();
    out->line("// " + op.type + ": " + slots_str(op.inputs) + " -> " + slots_str(op.outputs) +
              (source.empty() ? "" : "  [" + source + "]"));
    OpEmitter e(
        program_, idx, static_cast<int>(i), op, out, &kernel_families_,
        [this](int b, const std::string& n) { return expr_of(b, n); },
        [this](int sub) { emit_block(sub, out_); }, this);
    find_emit_rule(op.type)(e);
  }
}

}  // namespace skiff::codegen
