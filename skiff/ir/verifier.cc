#include "skiff/ir/verifier.h"

#include <set>

namespace skiff {

namespace {

constexpr int kLastVarKind = static_cast<int>(VarKind::kSelectedRows);

// Slots in which ops that run sub-blocks keep their step scopes.
bool is_step_scopes_slot(const std::string& slot) {
  return slot == "StepScopes" || slot == "Scope";
}

template <typename T>
std::string join_names(const std::vector<T>& items) {
  std::string out;
  for (const T& item : items) out += (out.empty() ? "" : ", ") + item.name;
  return out.empty() ? "none" : out;
}

std::string join_vars(const std::vector<std::string>& vars) {
  std::string out;
  for (const auto& v : vars) out += (out.empty() ? "'" : ", '") + v + "'";
  return out;
}

// Block indices an attribute refers to (empty for other attribute types).
std::vector<int32_t> referenced_blocks(const Attr& value) {
  if (auto* b = std::get_if<BlockRef>(&value)) return {b->idx};
  if (auto* bs = std::get_if<BlockRefs>(&value)) return bs->idx;
  return {};
}

bool runs_sub_blocks(const OpDesc& op) { return !op.sub_blocks().empty(); }

class ProgramVerifier {
 public:
  ProgramVerifier(const Program& program, const OpSchemaLookup& find_schema)
      : program_(program), find_schema_(find_schema) {}

  void run() {
    check_block_tree();
    for (const Block& block : program_.blocks()) {
      check_vars(block);
      for (size_t i = 0; i < block.ops.size(); ++i) check_op(block, i);
    }
    check_feed_fetch(program_.feed_names, "feed");
    check_feed_fetch(program_.fetch_names, "fetch");
  }

 private:
  // Recorded feed and fetch targets must be variables of block 0.
  void check_feed_fetch(const std::vector<std::string>& names, const char* what) const {
    for (const std::string& n : names)
      SKIFF_CHECK(program_.global_block().find_local_var(n), "the program's ", what, " target '", n,
                  "' is not declared in block 0");
  }

  void check_block_tree() const {
    const int n = program_.num_blocks();
    SKIFF_CHECK(n > 0, "the program has no blocks (block 0 is required)");
    for (int i = 0; i < n; ++i) {
      const Block& b = program_.blocks()[i];
      SKIFF_CHECK(b.idx == i, "the block at position ", i, " says it is block ", b.idx);
      if (i == 0) {
        SKIFF_CHECK(b.parent_idx == -1, "block 0 (the global block) must have parent -1, not ",
                    b.parent_idx);
      } else {
        SKIFF_CHECK(b.parent_idx >= 0 && b.parent_idx < n, "block ", i, ": parent block ",
                    b.parent_idx, " does not exist (the program has ", n, " blocks)");
      }
    }
    // Every parent is now a valid index; each chain must reach block 0 in < n hops.
    for (int i = 1; i < n; ++i) {
      std::string chain = std::to_string(i);
      int at = i;
      for (int hops = 0; at != 0; ++hops) {
        at = program_.blocks()[at].parent_idx;
        chain += " -> " + std::to_string(at);
        SKIFF_CHECK(hops < n && at != i, "block ", i, ": its parent chain ", chain,
                    " is cyclic and never reaches block 0");
      }
    }
  }

  void check_vars(const Block& block) const {
    for (const auto& [key, var] : block.vars) {
      const std::string where = str_cat("block ", block.idx, ", variable '", key, "'");
      SKIFF_CHECK(!key.empty(), "block ", block.idx, ": a variable has no name");
      SKIFF_CHECK(var.name == key, where, " is stored under another name ('", var.name, "')");
      const int kind = static_cast<int>(var.kind), dtype = static_cast<int>(var.dtype);
      SKIFF_CHECK(kind >= 0 && kind <= kLastVarKind, where, ": unknown kind number ", kind);
      SKIFF_CHECK(is_dtype_number(dtype), where, ": unknown dtype number ", dtype);
      for (int64_t d : var.shape) {
        SKIFF_CHECK(d >= -1, where, ": dim ", d, " of shape ", var.shape,
                    " is invalid (dims are >= 0, or -1 for unknown)");
      }
    }
  }

  // "block 1, op 3 (tanh, created at model.py:12)"
  static std::string op_where(const Block& block, size_t i, const OpDesc& op) {
    std::string source = op.source();
    return str_cat("block ", block.idx, ", op ", i, " (", op.type.empty() ? "<no type>" : op.type,
                   source.empty() ? "" : ", created at " + source, ")");
  }

  void check_op(const Block& block, size_t i) const {
    const OpDesc& op = block.ops[i];
    const std::string where = op_where(block, i, op);
    SKIFF_CHECK(!op.type.empty(), where, ": the op has no type");
    const OpSchema* schema = find_schema_(op.type);
    SKIFF_CHECK(schema, where, ": unknown op type '", op.type, "'");
    check_slots(block, op, *schema, /*inputs=*/true, where);
    check_slots(block, op, *schema, /*inputs=*/false, where);
    check_attrs(block, op, *schema, where);
  }

  void check_slots(const Block& block, const OpDesc& op, const OpSchema& schema, bool inputs,
                   const std::string& where) const {
    const char* direction = inputs ? "input" : "output";
    const std::vector<SlotSchema>& declared = inputs ? schema.inputs : schema.outputs;
    std::set<std::string> seen;
    for (const auto& [slot, vars] : inputs ? op.inputs : op.outputs) {
      SKIFF_CHECK(seen.insert(slot).second, where, ": ", direction, " slot '", slot,
                  "' appears twice");
      const SlotSchema* s = inputs ? schema.find_input(slot) : schema.find_output(slot);
      SKIFF_CHECK(s, where, ": ", op.type, " has no ", direction, " slot '", slot, "' (its ",
                  direction, "s are: ", join_names(declared), ")");
      SKIFF_CHECK(s->duplicable || vars.size() <= 1, where, ": ", direction, " slot '", slot,
                  "' takes one variable, got ", vars.size(), " (", join_vars(vars), ")");
      for (const std::string& name : vars) {
        if (name.empty()) continue;  // an absent optional input or an unwanted gradient
        const VarDesc* var = program_.find_var(block.idx, name);
        if (inputs) {
          SKIFF_CHECK(var, where, ": input ", slot, "='", name, "' is not declared in block ",
                      block.idx, " or its ancestors");
        }
        if (var) check_var_kind(op, slot, *var, where);
      }
    }
  }

  static void check_var_kind(const OpDesc& op, const std::string& slot, const VarDesc& var,
                             const std::string& where) {
    const bool holds_scopes = var.kind == VarKind::kStepScopes;
    if (runs_sub_blocks(op) && is_step_scopes_slot(slot)) {
      SKIFF_CHECK(holds_scopes, where, ": slot ", slot, " must hold a step_scopes variable, but '",
                  var.name, "' is a ", var_kind_name(var.kind));
    } else {
      SKIFF_CHECK(!holds_scopes, where, ": variable '", var.name, "' in slot ", slot,
                  " holds step scopes, which only the StepScopes/Scope slot of an op that runs "
                  "sub-blocks (while, conditional_block and their grads) may use");
    }
  }

  void check_attrs(const Block& block, const OpDesc& op, const OpSchema& schema,
                   const std::string& where) const {
    for (const auto& [name, value] : op.attrs.items()) {
      const AttrType given = attr_type(value);
      if (name == kSourceAttr) {
        SKIFF_CHECK(given == AttrType::kString, where, ": attribute '", name,
                    "' must be a string (file:line), got ", attr_type_name(given));
        continue;
      }
      const AttrSchema* a = schema.find_attr(name);
      SKIFF_CHECK(a, where, ": ", op.type, " has no attribute '", name,
                  "' (its attributes are: ", join_names(schema.attrs), ")");
      const bool int_for_float = given == AttrType::kInt && a->type == AttrType::kFloat;
      SKIFF_CHECK(given == a->type || int_for_float, where, ": attribute '", name, "' must be ",
                  attr_type_name(a->type), ", got ", attr_type_name(given), " ", attr_str(value));
      for (int32_t idx : referenced_blocks(value)) check_sub_block(block, name, idx, where);
    }
    for (const AttrSchema& a : schema.attrs) {
      SKIFF_CHECK(a.default_value || op.attrs.has(a.name), where, ": required attribute '", a.name,
                  "' (", attr_type_name(a.type), ") is missing");
    }
  }

  // A sub-block must be nested in the op's block: a child for while and
  // conditional_block, a grandchild (the child of the forward body) for their grads.
  void check_sub_block(const Block& block, const std::string& attr, int32_t idx,
                       const std::string& where) const {
    SKIFF_CHECK(idx >= 0 && idx < program_.num_blocks(), where, ": attribute '", attr,
                "' refers to block ", idx, ", but the program has ", program_.num_blocks(),
                " blocks");
    // The block tree is already checked acyclic, so this walk ends at block 0.
    for (int at = program_.blocks()[idx].parent_idx; at >= 0; at = program_.blocks()[at].parent_idx)
      if (at == block.idx) return;
    fail(where, ": attribute '", attr, "' refers to block ", idx, " (parent ",
         program_.blocks()[idx].parent_idx, "), which is not nested in this op's block ",
         block.idx);
  }

  const Program& program_;
  const OpSchemaLookup& find_schema_;
};

}  // namespace

void verify_program(const Program& program, const OpSchemaLookup& find_schema) {
  ProgramVerifier(program, find_schema).run();
}

}  // namespace skiff
