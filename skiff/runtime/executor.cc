#include "skiff/runtime/executor.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "skiff/ops/op_error.h"
#include "skiff/runtime/kernel_choice.h"
#include "skiff/runtime/nan_inf_check.h"
#include "skiff/runtime/prepare_rewrites.h"
#include "skiff/runtime/prepared_block.h"

namespace skiff {

std::shared_ptr<PreparedBlock> prepare_block(const Program& program, int block_idx, Place place,
                                             bool free_temporaries,
                                             const std::vector<std::string>& keep) {
  auto pb = std::make_shared<PreparedBlock>();
  pb->program = &program;
  pb->block_idx = block_idx;
  pb->place = place;
  const Block& block = program.block(block_idx);
  for (const auto& [name, var] : block.vars) {
    if (!var.persistable) pb->locals.push_back(name);
  }

  const std::vector<OpDesc> ops = rewrite_for_run(program, block_idx, keep);
  std::vector<std::set<std::string>> touched;
  for (const OpDesc& op : ops) {
    auto instr = std::make_unique<Instruction>();
    instr->op = op;
    instr->info = &OpRegistry::global().get(op.type);
    fill_default_attrs(instr->op);
    if (instr->info->runs_blocks()) {
      for (int32_t idx : op.sub_blocks()) {
        instr->sub_blocks.push_back(prepare_block(program, idx, place, false, {}));
      }
    } else {
      instr->kernel = choose_kernel(program, block_idx, *instr->info, op, place);
    }
    instr->ctx = std::make_unique<KernelContext>(&instr->op);
    touched.emplace_back();
    collect_names(program, op, &touched.back());
    pb->instrs.push_back(std::move(instr));
  }

  if (free_temporaries) {
    // A temporary is a local first written (not read) by an op of this block; it
    // dies after the last instruction that touches it, its buffer going to the pool
    // for a dense temporary (or the value of selected rows) born later (the block's
    // memory plan).
    std::set<std::string> kept(keep.begin(), keep.end());
    std::unordered_map<std::string, size_t> last_use;
    std::set<std::string> read_first, written;
    for (size_t i = 0; i < ops.size(); ++i) {
      for (const auto& n : touched[i]) last_use[n] = i;
      for (const auto& n : ops[i].input_names())
        if (!written.count(n)) read_first.insert(n);
      for (const auto& n : ops[i].output_names()) written.insert(n);
    }
    std::unordered_map<std::string, size_t> first_write;
    for (size_t i = ops.size(); i-- > 0;)
      for (const auto& n : ops[i].output_names()) first_write[n] = i;
    for (const std::string& name : pb->locals) {
      auto it = last_use.find(name);
      if (it == last_use.end() || kept.count(name) || read_first.count(name)) continue;
      pb->instrs[it->second]->dead_after.push_back(name);
      const VarKind kind = block.vars.at(name).kind;
      if (kind != VarKind::kDenseTensor && kind != VarKind::kSelectedRows) continue;
      Instruction& birth = *pb->instrs[first_write.at(name)];
      birth.born_here.push_back(name);
      birth.born_bytes.push_back(0);
      birth.born_kinds.push_back(kind);
    }
  }
  return pb;
}

void PreparedBlock::bind(Scope* scope) {
  for (const std::string& name : locals) scope->var(name);
  auto resolve = [&](const std::vector<Slot>& slots, std::vector<std::vector<Variable*>>* out) {
    out->assign(slots.size(), {});
    for (size_t s = 0; s < slots.size(); ++s) {
      for (const std::string& name : slots[s].second) {
        if (name.empty()) {
          (*out)[s].push_back(nullptr);
          continue;
        }
        Variable* v = scope->find_var(name);
        (*out)[s].push_back(v ? v : scope->var(name));
      }
    }
  };
  for (auto& instr : instrs) {
    resolve(instr->op.inputs, &instr->ctx->inputs);
    resolve(instr->op.outputs, &instr->ctx->outputs);
    instr->release.clear();
    for (const auto& name : instr->dead_after) instr->release.push_back(scope->find_var(name));
    instr->born.clear();
    for (const auto& name : instr->born_here) instr->born.push_back(scope->find_var(name));
  }
  bound_scope = scope->id();
}

void PreparedBlock::release_locals(Scope* scope) const {
  for (const std::string& name : locals) {
    if (Variable* v = scope->find_local(name)) v->clear();
  }
}

void run_block(PreparedBlock& block, Scope* scope) {
  run_instructions(block, scope, 0, block.instrs.size());
}

void run_instructions(PreparedBlock& block, Scope* scope, size_t begin, size_t end) {
  if (block.bound_scope != scope->id()) block.bind(scope);
  for (size_t i = begin; i < end; ++i) {
    Instruction* instr = block.instrs[i].get();
    for (size_t k = 0; k < instr->born.size(); ++k)
      block.pool.provide(instr->born[k], instr->born_bytes[k], instr->born_kinds[k]);
    if (instr->kernel) {
      try {
        instr->kernel(*instr->ctx);
      } catch (const Error& e) {
        e.rethrow_with(describe_kernel_error(*instr->ctx, e.what()));
      }
      if (__builtin_expect(check_nan_inf_enabled(), 0)) check_outputs_finite(*instr->ctx);
    } else {
      run_block_op(*instr, scope);
    }
    for (size_t k = 0; k < instr->born.size(); ++k) {
      const Variable& v = *instr->born[k];
      const Tensor* t = v.selected_rows() ? &v.selected_rows()->value : v.tensor();
      instr->born_bytes[k] = t && t->initialized() ? t->nbytes() : 0;
    }
    for (Variable* v : instr->release) block.pool.recycle(v);
  }
}

std::shared_ptr<PreparedBlock> Executor::prepare(const Program& program,
                                                 const std::vector<std::string>& keep) const {
  return prepare_block(program, 0, place_, true, keep);
}

void Executor::run(PreparedBlock& block, Scope* scope) const { run_block(block, scope); }

std::vector<Tensor> Executor::run(const Program& program, Scope* scope,
                                  const std::map<std::string, Tensor>& feeds,
                                  const std::vector<std::string>& fetches) const {
  for (const auto& [name, value] : feeds) feed(program, scope, name, value);
  auto prepared = prepare(program, fetches);
  run_block(*prepared, scope);
  std::vector<Tensor> out;
  for (const auto& name : fetches) out.push_back(fetch(*scope, name));
  return out;
}

void feed(const Program& program, Scope* scope, const std::string& name, const Tensor& value) {
  const VarDesc* var = program.global_block().find_local_var(name);
  SKIFF_CHECK(var, "feed '", name, "': the program declares no such variable in block 0");
  SKIFF_CHECK(value.initialized(), "feed '", name, "': the tensor has no value");
  bool shape_ok = var->shape.rank() == value.rank();
  for (int i = 0; shape_ok && i < value.rank(); ++i)
    shape_ok = var->shape[i] < 0 || var->shape[i] == value.shape()[i];
  SKIFF_CHECK(var->dtype == value.dtype() && shape_ok, "feed '", name, "': the program declares ",
              dtype_name(var->dtype), var->shape, ", got ", value.type_str());
  scope->var(name)->set(value);
}

Tensor fetch(const Scope& scope, const std::string& name) {
  const Variable* v = scope.find_var(name);
  SKIFF_CHECK(v, "fetch '", name, "': no such variable in the scope");
  const Tensor* t = v->tensor();
  SKIFF_CHECK(t && t->initialized(), "fetch '", name, "': the variable holds no tensor value",
              " (was it computed? temporaries are freed unless fetched)");
  return *t;
}

}  // namespace skiff
