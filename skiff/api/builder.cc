#include "skiff/api/builder.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "skiff/ops/control_flow.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

std::string SourceLoc::str() const { return std::string(file) + ":" + std::to_string(line); }

BlockBuilder::BlockBuilder(Program* program, int block_idx)
    : program_(program), block_idx_(block_idx) {}

std::string BlockBuilder::data(const std::string& name, DType dtype, const Shape& shape) {
  VarDesc v(name, dtype, shape);
  v.stop_gradient = true;
  block().add_var(v);
  return name;
}

std::string BlockBuilder::persistable(const std::string& name, DType dtype, const Shape& shape) {
  VarDesc v(name, dtype, shape);
  v.persistable = true;
  block().add_var(v);
  return name;
}

std::string BlockBuilder::parameter(const std::string& name, DType dtype, const Shape& shape,
                                    Program* startup, Initializer init, SourceLoc loc) {
  SKIFF_CHECK(shape.known() && shape.rank() > 0, "parameter '", name, "' needs a known shape, got ",
              shape);
  persistable(name, dtype, shape);
  BlockBuilder s(startup);
  s.persistable(name, dtype, shape);
  AttrList attrs = {{"shape", shape.vec()}, {"dtype", std::string(dtype_name(dtype))}};
  auto seeded = [&](AttrList more) {
    more.push_back({"seed", static_cast<int64_t>(init.seed)});
    attrs.insert(attrs.end(), more.begin(), more.end());
  };
  std::string op;
  switch (init.kind) {
    case Initializer::Kind::kConstant:
      op = "fill_constant";
      attrs.push_back({"value", init.a});
      break;
    case Initializer::Kind::kUniform:
      op = "uniform_random";
      seeded({{"min", init.a}, {"max", init.b}});
      break;
    case Initializer::Kind::kNormal:
      op = "gaussian_random";
      seeded({{"mean", init.a}, {"std", init.b}});
      break;
    case Initializer::Kind::kXavier: {
      double fan_in = static_cast<double>(shape[0]);
      double fan_out = static_cast<double>(shape.dim(-1));
      double limit = std::sqrt(6.0 / (fan_in + fan_out));
      op = "uniform_random";
      seeded({{"min", -limit}, {"max", limit}});
      break;
    }
  }
  s.op(op, {}, {{"Out", {name}}}, attrs, loc);
  return name;
}

std::string BlockBuilder::unique_name(const std::string& prefix) {
  auto taken = [&](const std::string& n) {
    for (const Block& b : program_->blocks())
      if (b.find_local_var(n)) return true;
    return false;
  };
  // Start past the current var count so the scan is short on big programs.
  size_t n = 0;
  for (const Block& b : program_->blocks()) n += b.vars.size();
  std::string name;
  do {
    name = prefix + "_" + std::to_string(n++);
  } while (taken(name));
  return name;
}

OpDesc& BlockBuilder::op(const std::string& type, std::vector<Slot> inputs,
                         std::vector<Slot> outputs, const AttrList& attrs, SourceLoc loc) {
  OpDesc op(type);
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  for (const auto& [name, value] : attrs) op.set_attr(name, value);
  op.set_attr(kSourceAttr, loc.str());
  fill_default_attrs(op);
  infer_op_shape(*program_, block_idx_, op);
  Block& b = block();
  b.ops.push_back(std::move(op));
  return b.ops.back();
}

std::string BlockBuilder::apply(const std::string& type, std::vector<Slot> inputs,
                                const AttrList& attrs, SourceLoc loc) {
  std::string out = unique_name(type);
  op(type, std::move(inputs), {{"Out", {out}}}, attrs, loc);
  return out;
}

void BlockBuilder::assign(const std::string& from, const std::string& to, SourceLoc loc) {
  op("assign", {{"X", {from}}}, {{"Out", {to}}}, {}, loc);
}

int BlockBuilder::build_sub_block(const std::function<void(BlockBuilder&)>& fn) {
  int idx = program_->add_block(block_idx_).idx;
  BlockBuilder sub(program_, idx);
  fn(sub);
  return idx;
}

void BlockBuilder::outer_vars(int idx, std::vector<std::string>* reads,
                              std::vector<std::string>* writes) const {
  // Blocks nested in `idx` (their variables are inner too).
  std::set<int> inner_blocks{idx};
  for (bool grew = true; grew;) {
    grew = false;
    for (const Block& b : program_->blocks())
      if (!inner_blocks.count(b.idx) && inner_blocks.count(b.parent_idx))
        grew = inner_blocks.insert(b.idx).second || grew;
  }
  auto is_inner = [&](const std::string& n) {
    for (int b : inner_blocks)
      if (program_->block(b).find_local_var(n)) return true;
    return false;
  };
  std::set<std::string> seen_r, seen_w;
  for (int b : inner_blocks) {
    for (const OpDesc& op : program_->block(b).ops) {
      for (const auto& n : op.input_names())
        if (!n.empty() && !is_inner(n) && seen_r.insert(n).second) reads->push_back(n);
      for (const auto& n : op.output_names())
        if (!n.empty() && !is_inner(n) && seen_w.insert(n).second) writes->push_back(n);
    }
  }
}

void BlockBuilder::while_loop(const std::string& cond,
                              const std::function<void(BlockBuilder&)>& body, SourceLoc loc) {
  int sub = build_sub_block(body);
  std::vector<std::string> reads, writes;
  outer_vars(sub, &reads, &writes);
  // A loop that runs no step leaves every outer variable it writes as it was: the op
  // reads them all (their gradients then pass through such a loop, and are cut by a
  // step that overwrites them without reading them).
  for (const auto& w : writes)
    if (std::find(reads.begin(), reads.end(), w) == reads.end()) reads.push_back(w);
  bool updates_cond = false;
  for (const auto& w : writes) updates_cond = updates_cond || w == cond;
  SKIFF_CHECK(updates_cond, "while_loop at ", loc.str(), ": the body never writes the condition '",
              cond, "', so the loop would never end");
  std::string scopes = unique_name("while_scopes");
  block().add_var(VarDesc(scopes, DType::kF32, Shape{}, VarKind::kStepScopes));
  op(kWhileOp, {{"X", reads}, {"Condition", {cond}}}, {{"Out", writes}, {"StepScopes", {scopes}}},
     {{"sub_block", BlockRef{sub}}}, loc);
}

std::vector<std::string> BlockBuilder::if_else(const std::string& pred, const Branch& true_branch,
                                               const Branch& false_branch, SourceLoc loc) {
  // Each branch assigns its results to fresh outer variables; select_input picks.
  std::vector<std::vector<std::string>> results(2);
  auto branch = [&](int which, const Branch& fn, const std::string& cond) {
    int sub = build_sub_block([&](BlockBuilder& b) {
      std::vector<std::string> produced = fn(b);
      for (const std::string& v : produced) {
        const VarDesc* d = program_->find_var(b.block_idx(), v);
        SKIFF_CHECK(d, "if_else at ", loc.str(), ": branch result '", v, "' is not declared");
        std::string out = unique_name(which ? "cond_true" : "cond_false");
        program_->block(block_idx_).add_var(VarDesc(out, d->dtype, d->shape, d->kind));
        b.assign(v, out, loc);
        results[which].push_back(out);
      }
    });
    std::vector<std::string> reads, writes;
    outer_vars(sub, &reads, &writes);
    std::string scope = unique_name("cond_scope");
    block().add_var(VarDesc(scope, DType::kF32, Shape{}, VarKind::kStepScopes));
    op(kConditionalBlockOp, {{"Cond", {cond}}, {"Input", reads}},
       {{"Out", writes}, {"Scope", {scope}}}, {{"sub_block", BlockRef{sub}}}, loc);
  };
  branch(1, true_branch, pred);
  branch(0, false_branch, apply("logical_not", {{"X", {pred}}}, {}, loc));
  SKIFF_CHECK(results[0].size() == results[1].size(), "if_else at ", loc.str(),
              ": the true branch returns ", results[1].size(), " values, the false branch ",
              results[0].size());
  std::vector<std::string> outs;
  for (size_t i = 0; i < results[0].size(); ++i) {
    outs.push_back(
        apply("select_input", {{"X", {results[0][i], results[1][i]}}, {"Mask", {pred}}}, {}, loc));
  }
  return outs;
}

}  // namespace skiff
