// The runtime side of ops that run sub-blocks: loops (`while`), branches
// (`conditional_block`) and their gradients, run by their registered BlockRole through
// their BlockSlots (ops/registry.h). Their schemas, shape inference and the building of
// their grad blocks live in ops/control_flow.cc and autodiff/.
//
// Step scopes. With keep_step_scopes (set by append_backward), each loop step runs
// in a fresh scope kept for the backward pass. Loop-carried variables (outer
// variables the body writes) are copied into the step scope first, and after the
// step the new values are swapped out to the outer scope, so the step scope keeps
// the values the step *read*: exactly what its grad ops need.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "skiff/kernels/cpu/accumulate.h"
#include "skiff/kernels/cpu/fill.h"
#include "skiff/kernels/cpu/tensor_array.h"
#include "skiff/runtime/prepared_block.h"

namespace skiff {

namespace {

bool read_condition(const KernelContext& ctx, const char* slot) {
  const Tensor& c = ctx.in(slot);
  SKIFF_CHECK(c.numel() == 1, "the condition must hold one element, got ", c.type_str());
  return c.item<bool>();
}

// A loop's condition, read each step: its variable is looked up once per run of the op,
// as the slot's name is no literal (ops/kernel_context.h) and a lookup costs a few string
// compares a step.
class LoopCondition {
 public:
  LoopCondition(const KernelContext& ctx, const char* slot)
      : ctx_(ctx), slot_(slot), var_(ctx.in_var(slot)) {}
  bool operator()() const {
    const Tensor* c = var_ ? var_->tensor() : nullptr;
    if (__builtin_expect(c && c->initialized() && c->dtype() == DType::kBool && c->numel() == 1, 1))
      return *c->data<bool>();
    return read_condition(ctx_, slot_);  // other dtypes, and the errors
  }

 private:
  const KernelContext& ctx_;
  const char* slot_;
  const Variable* var_;
};

// The tail of a counted loop's body, `i = increment(i); cond = less_than(i, n)` with cond
// the loop's condition (or `i = scale(i, bias=step)`, to_static's `i += step`): what a
// for-range loop becomes. On integer scalars it runs as one native step, as a bytecode VM
// keeps a loop counter in a register: no kernel calls, no slot lookups. Other dtypes or
// shapes, met at any step, run the two ops.
class CountedTail {
 public:
  // The tail of `body` (bound) ending the loop on `cond`, or null.
  static std::unique_ptr<CountedTail> find(const PreparedBlock& body, const Variable* cond) {
    const size_t n = body.instrs.size();
    if (n < 2) return nullptr;
    const Instruction& inc = *body.instrs[n - 2];
    const Instruction& less = *body.instrs[n - 1];
    if (less.op.type != "less_than") return nullptr;
    double step = 0;
    if (inc.op.type == "increment") {
      step = inc.op.attr<double>("step");
    } else if (inc.op.type == "scale" && inc.op.attr<double>("scale") == 1) {
      step = inc.op.attr<double>("bias");  // to_static's `i += 1`
    } else {
      return nullptr;
    }
    Variable* i = inc.ctx->out_var("Out");
    if (!i || i != inc.ctx->in_var("X") || i != less.ctx->in_var("X") ||
        less.ctx->out_var("Out") != cond || std::trunc(step) != step || std::abs(step) > 1e15)
      return nullptr;
    auto tail = std::make_unique<CountedTail>();
    tail->i_ = i;
    tail->n_ = less.ctx->in_var("Y");
    tail->cond_ = less.ctx->out_var("Out");
    tail->step_ = static_cast<int64_t>(step);
    return tail;
  }

  // Runs the tail natively; false, with nothing done, unless the counter and the bound
  // are integer scalars of one dtype and shape and the condition a bool of that shape.
  bool advance() const {
    const Tensor* counter = i_->tensor();
    const Tensor* n = n_ ? n_->tensor() : nullptr;
    const Tensor* flag = cond_->tensor();
    if (!counter || !n || !flag || !counter->initialized() || !n->initialized() ||
        !flag->initialized() || counter->numel() != 1 || counter->shape() != n->shape() ||
        counter->shape() != flag->shape() || flag->dtype() != DType::kBool ||
        counter->dtype() != n->dtype())
      return false;
    Tensor* i = i_->mutable_tensor();
    Tensor* cond = cond_->mutable_tensor();
    // Resized to themselves: a value shared with another tensor (fetched, kept) gets its
    // own copy before it is written, as the ops' kernels do.
    i->resize(i->shape(), i->dtype());
    cond->resize(cond->shape(), DType::kBool);
    if (i->dtype() == DType::kI64) {
      int64_t* v = i->data<int64_t>();
      *v += step_;
      *cond->data<bool>() = *v < *n->data<int64_t>();
      return true;
    }
    if (i->dtype() == DType::kI32) {
      int32_t* v = i->data<int32_t>();
      *v = static_cast<int32_t>(*v + step_);
      *cond->data<bool>() = *v < *n->data<int32_t>();
      return true;
    }
    return false;
  }

 private:
  Variable* i_ = nullptr;
  const Variable* n_ = nullptr;
  Variable* cond_ = nullptr;
  int64_t step_ = 0;
};

// A scope for running a sub-block without keeping it: made once per instruction and
// remade when the instruction runs under another parent scope.
Scope* work_scope(Instruction& instr, Scope* parent) {
  if (!instr.work_scope || instr.work_parent != parent->id()) {
    instr.work_scope = std::make_unique<Scope>(parent);
    instr.work_parent = parent->id();
  }
  return instr.work_scope.get();
}

// The outer variables `names` that exist in `outer` (loop-carried candidates).
std::vector<std::string> existing(const Scope& outer, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names)
    if (!n.empty() && outer.find_var(n)) out.push_back(n);
  return out;
}

// Runs `body` in a new kept scope: copies carried variables in, swaps them out after.
std::unique_ptr<Scope> run_kept_step(PreparedBlock& body, Scope* outer,
                                     const std::vector<std::string>& carried) {
  auto step = std::make_unique<Scope>(outer);
  for (const auto& n : carried) *step->var(n) = *outer->find_var(n);
  run_block(body, step.get());
  for (const auto& n : carried) std::swap(*outer->find_var(n), *step->find_local(n));
  return step;
}

std::shared_ptr<StepScopes> new_step_scopes(KernelContext& ctx, const char* slot) {
  Variable* v = ctx.out_var(slot);
  SKIFF_CHECK(v, "keep_step_scopes is set but output ", slot, " is missing");
  auto steps = std::make_shared<StepScopes>();
  *v->mutable_step_scopes() = steps;
  return steps;
}

StepScopes& kept_step_scopes(const KernelContext& ctx, const char* slot) {
  const Variable* v = ctx.in_var(slot);
  SKIFF_CHECK(v && v->step_scopes() && *v->step_scopes(), "input ", slot,
              " holds no step scopes: the forward op must run first, with keep_step_scopes");
  return **v->step_scopes();
}

void run_loop(Instruction& instr, Scope* scope) {
  KernelContext& ctx = *instr.ctx;
  const BlockSlots& slots = instr.info->block_slots;
  PreparedBlock& body = *instr.sub_blocks.at(0);
  const LoopCondition condition(ctx, slots.cond);
  if (!instr.op.attr<bool>("keep_step_scopes")) {
    Scope* work = work_scope(instr, scope);
    if (body.bound_scope != work->id()) body.bind(work);
    const auto tail = CountedTail::find(body, ctx.in_var(slots.cond));
    const size_t n = body.instrs.size();
    while (condition()) {
      if (!tail) {
        run_block(body, work);
        continue;
      }
      run_instructions(body, work, 0, n - 2);
      if (!tail->advance()) run_instructions(body, work, n - 2, n);
    }
    body.release_locals(work);
    return;
  }
  auto steps = new_step_scopes(ctx, slots.scopes);
  std::vector<std::string> carried = existing(*scope, instr.op.output(slots.writes));
  while (condition()) {
    steps->scopes.push_back(run_kept_step(body, scope, carried));
  }
}

void run_branch(Instruction& instr, Scope* scope) {
  KernelContext& ctx = *instr.ctx;
  const BlockSlots& slots = instr.info->block_slots;
  PreparedBlock& body = *instr.sub_blocks.at(0);
  bool taken = read_condition(ctx, slots.cond);
  if (!instr.op.attr<bool>("keep_step_scopes")) {
    if (!taken) return;
    Scope* work = work_scope(instr, scope);
    run_block(body, work);
    body.release_locals(work);
    return;
  }
  auto steps = new_step_scopes(ctx, slots.scopes);
  if (taken) {
    steps->scopes.push_back(
        run_kept_step(body, scope, existing(*scope, instr.op.output(slots.writes))));
  }
}

// Gradient variables that the grad block writes (so a carried gradient is replaced,
// not passed through).
std::set<std::string> produced_names(const PreparedBlock& grad_block) {
  std::set<std::string> out;
  for (const auto& instr : grad_block.instrs)
    for (const auto& n : instr->op.output_names()) out.insert(n);
  return out;
}

// Adds `src` (a tensor or a tensor array) into `acc`, elementwise (an array entry by
// entry, with kernels::sum_arrays).
void accumulate(Variable* acc, const Variable& src) {
  if (const Tensor* t = src.tensor()) {
    if (!t->initialized()) return;
    Tensor* a = acc->mutable_tensor();
    if (!a->initialized()) {
      a->copy_from(*t);
    } else {
      kernels::add_inplace(*t, a);
    }
  } else if (const TensorArray* arr = src.array()) {
    TensorArray* a = acc->mutable_array();
    kernels::sum_arrays({a, arr}, a);
  }
}

// A gradient of zeros shaped like the value of `like` (tensor or array; kernels::zeros_like).
void set_zeros_like(Variable* out, const Variable* like) {
  if (like && like->tensor() && like->tensor()->initialized()) {
    kernels::zeros_like(*like->tensor(), out->mutable_tensor());
  } else if (like && like->array()) {
    kernels::zeros_like(*like->array(), out->mutable_array());
  } else {
    out->clear();
  }
}

// The grad of a loop or a branch: runs `grad_block` backwards over the kept step
// scopes (a branch not taken kept none: its inputs' gradients pass through, for
// carried vars, or are zero). Out vars carry their gradient from step to step; the
// gradients of other inputs are summed over the steps.
void run_grad_steps(Instruction& instr, Scope* scope) {
  KernelContext& ctx = *instr.ctx;
  const BlockSlots& slots = instr.info->block_slots;
  const char* in_slot = slots.reads;
  StepScopes& steps = kept_step_scopes(ctx, slots.scopes);
  PreparedBlock& grad_block = *instr.sub_blocks.at(0);
  const auto& xs = instr.op.input(in_slot);
  const auto& x_grads = instr.op.output(std::string(in_slot) + kGradSuffix);
  const auto& outs = instr.op.input(slots.writes);
  const auto& out_grads = instr.op.input(std::string(slots.writes) + kGradSuffix);
  std::set<std::string> produced = produced_names(grad_block);
  std::set<std::string> out_set(outs.begin(), outs.end());

  // The incoming gradient of each Out var (dL/d value after the last step).
  std::map<std::string, Variable> carry;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (i < out_grads.size() && !out_grads[i].empty()) {
      if (const Variable* g = scope->find_var(out_grads[i])) carry[outs[i]] = *g;
    }
  }
  std::map<std::string, Variable> totals;

  for (auto it = steps.scopes.rbegin(); it != steps.scopes.rend(); ++it) {
    Scope* step = it->get();
    Scope grad_scope(step);
    for (const auto& o : outs) {
      Variable* g = grad_scope.var(grad_name(o));
      auto c = carry.find(o);
      if (c != carry.end() && !c->second.empty()) {
        *g = c->second;
      } else {
        set_zeros_like(g, step->find_var(o));
      }
    }
    run_block(grad_block, &grad_scope);
    for (const auto& o : outs) {
      if (produced.count(grad_name(o))) {
        carry[o] = *grad_scope.find_local(grad_name(o));
      } else {
        carry[o].clear();  // the step did not read o: earlier values get no gradient
      }
    }
    for (const auto& x : xs) {
      if (out_set.count(x) || !produced.count(grad_name(x))) continue;
      accumulate(&totals[x], *grad_scope.find_local(grad_name(x)));
    }
  }

  for (size_t i = 0; i < xs.size() && i < x_grads.size(); ++i) {
    if (x_grads[i].empty()) continue;
    Variable* dst = ctx.out_var((std::string(in_slot) + kGradSuffix).c_str(), static_cast<int>(i));
    const std::string& x = xs[i];
    const Variable* value = scope->find_var(x);
    if (out_set.count(x)) {
      auto c = carry.find(x);
      if (c != carry.end() && !c->second.empty()) {
        *dst = c->second;
      } else {
        set_zeros_like(dst, value);
      }
    } else if (totals.count(x) && !totals[x].empty()) {
      *dst = std::move(totals[x]);
    } else {
      set_zeros_like(dst, value);
    }
  }
}

}  // namespace

void run_block_op(Instruction& instr, Scope* scope) {
  switch (instr.info->block_role) {
    case BlockRole::kLoop:
      return run_loop(instr, scope);
    case BlockRole::kBranch:
      return run_branch(instr, scope);
    case BlockRole::kLoopGrad:
    case BlockRole::kBranchGrad:
      return run_grad_steps(instr, scope);
    case BlockRole::kNone:
      break;
  }
  fail("op '", instr.op.type, "' runs no sub-block");
}

}  // namespace skiff
