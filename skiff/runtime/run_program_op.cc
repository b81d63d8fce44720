// The run_program op family: run_program feeds its inputs to a registered program
// function, runs it and returns the outputs (keeping the scope when gradients are
// wanted); run_program_grad feeds the output gradients into that scope and runs the
// backward part. They live with the runtime because their kernels run programs.
#include <algorithm>

#include "skiff/kernels/cpu/fill.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"
#include "skiff/runtime/executor.h"
#include "skiff/runtime/prepared_block.h"
#include "skiff/runtime/run_program.h"

namespace skiff {

namespace {

bool any_wanted(const std::vector<int64_t>& wants) {
  return std::any_of(wants.begin(), wants.end(), [](int64_t w) { return w != 0; });
}

void check_counts(const ProgramFunction& fn, int inputs, int outputs) {
  SKIFF_CHECK(inputs == static_cast<int>(fn.inputs.size()) &&
                  outputs == static_cast<int>(fn.outputs.size()),
              "run_program: the function takes ", fn.inputs.size(), " inputs and gives ",
              fn.outputs.size(), " outputs; the op has ", inputs, " and ", outputs);
}

void run_program_kernel(KernelContext& ctx) {
  auto fn = find_program_function(ctx.attr<int64_t>("function"));
  check_counts(*fn, ctx.in_count("X"), ctx.out_count("Out"));
  const auto& wants = ctx.attr_ref<std::vector<int64_t>>("wants_grad");
  const bool train = any_wanted(wants);
  std::shared_ptr<StepScopes> kept;
  Scope* scope = nullptr;
  PreparedBlock* block = nullptr;
  const Program* program = nullptr;
  std::unique_lock<std::mutex> infer_lock;
  if (train) {
    ProgramFunctionVariant& v = fn->variant(wants);
    kept = std::make_shared<StepScopes>();
    kept->scopes.push_back(std::make_unique<Scope>());
    scope = kept->scopes.back().get();
    block = v.forward_block.get();
    program = &v.forward;
  } else {
    infer_lock = std::unique_lock<std::mutex>(fn->mutex);  // one shared scope
    scope = &fn->infer_scope;
    block = fn->infer_block.get();
    program = &fn->program;
  }
  for (size_t i = 0; i < fn->inputs.size(); ++i)
    feed(*program, scope, fn->inputs[i], ctx.in("X", static_cast<int>(i)));
  run_block(*block, scope);
  for (size_t i = 0; i < fn->outputs.size(); ++i) {
    const Variable* value = scope->find_var(fn->outputs[i]);
    SKIFF_CHECK(value && !value->empty(), "run_program: output '", fn->outputs[i],
                "' was not computed");
    *ctx.out_var("Out", static_cast<int>(i)) = *value;
  }
  if (train) {
    Variable* s = ctx.out_var("OutScope");
    SKIFF_CHECK(s, "run_program: gradients are wanted but OutScope is absent");
    *s->mutable_step_scopes() = kept;
  }
}

void run_program_grad_kernel(KernelContext& ctx) {
  auto fn = find_program_function(ctx.attr<int64_t>("function"));
  ProgramFunctionVariant& v = fn->variant(ctx.attr_ref<std::vector<int64_t>>("wants_grad"));
  const Variable* kept = ctx.in_var("OutScope");
  const std::shared_ptr<StepScopes>* scopes = kept ? kept->step_scopes() : nullptr;
  SKIFF_CHECK(scopes && *scopes && !(*scopes)->scopes.empty(),
              "run_program_grad: the forward call kept no scope (it ran without gradients)");
  Scope* scope = (*scopes)->scopes[0].get();
  for (size_t i = 0; i < fn->outputs.size(); ++i) {
    const std::string& dout = v.output_grads[i];
    if (dout.empty()) continue;
    const Variable* g = ctx.in_var("Out@GRAD", static_cast<int>(i));
    if (g && g->tensor() && g->tensor()->initialized()) {
      scope->var(dout)->set(*g->tensor());
    } else {
      const Tensor* out = scope->find_var(fn->outputs[i])->tensor();
      kernels::fill_constant(out->shape(), out->dtype(), 0.0, scope->var(dout)->mutable_tensor());
    }
  }
  run_block(*v.backward_block, scope);
  for (size_t k = 0; k < fn->inputs.size(); ++k) {
    Variable* out = ctx.out_var("X@GRAD", static_cast<int>(k));
    if (!out) continue;
    const Variable* g = v.input_grads[k].empty() ? nullptr : scope->find_var(v.input_grads[k]);
    if (g && g->tensor() && g->tensor()->initialized()) {
      out->set(*g->tensor());
    } else {  // the outputs do not depend on this input
      const Tensor* in = scope->find_var(fn->inputs[k])->tensor();
      kernels::fill_constant(in->shape(), in->dtype(), 0.0, out->mutable_tensor());
    }
  }
}

void infer_run_program(ShapeContext& ctx) {
  auto fn = find_program_function(ctx.attr<int64_t>("function"));
  for (int i = 0; i < ctx.out_count("Out"); ++i) {
    const VarDesc& v = fn->var(fn->outputs.at(i));
    ctx.set_output("Out", v.shape, v.dtype, i, v.kind);
  }
  ctx.set_output("OutScope", Shape{}, DType::kF32, 0, VarKind::kStepScopes);
}

void infer_run_program_grad(ShapeContext& ctx) {
  auto fn = find_program_function(ctx.attr<int64_t>("function"));
  for (int k = 0; k < ctx.out_count("X@GRAD"); ++k) {
    if (!ctx.has_output("X@GRAD", k)) continue;
    const VarDesc& v = fn->var(fn->inputs.at(k));
    ctx.set_output("X@GRAD", v.shape, v.dtype, k);
  }
}

void run_program_grad_maker(GradContext& g) {
  OpDesc& op = g.add("run_program_grad");
  op.set_input("OutScope", {g.fwd().first_output("OutScope")});
  op.set_input("Out@GRAD", g.out_grads("Out"));
  op.set_output("X@GRAD", g.in_grads("X"));
  op.set_attr("function", *g.fwd().attrs.find("function"));
  op.set_attr("wants_grad", *g.fwd().attrs.find("wants_grad"));
}

}  // namespace

void register_run_program_ops(OpRegistry& r) {
  const auto all = {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool, DType::kBF16};
  r.add("run_program")
      .doc(
          "Runs a registered program function (to_static) on X and returns its outputs; "
          "with wanted gradients it keeps the run's scope for run_program_grad.")
      .inputs("X", "the function's inputs: data, then parameters and captured tensors")
      .outputs("Out", "the function's outputs")
      .optional_output("OutScope", "the scope of this run, kept for the backward")
      .required_attr("function", AttrType::kInt, "id from register_program_function")
      .attr("wants_grad", std::vector<int64_t>{},
            "per input: 1 if its gradient is wanted (none: run without keeping anything)")
      .infer_shape(infer_run_program)
      .kernel(all, run_program_kernel)
      .grad(run_program_grad_maker);

  r.add("run_program_grad")
      .doc("Runs the backward part of a program function in the scope its forward kept.")
      .input("OutScope", "the forward op's OutScope")
      .inputs("Out@GRAD", "gradients of Out (zeros where none flows)")
      .outputs("X@GRAD", "gradients of X (\"\" where not needed)")
      .required_attr("function", AttrType::kInt, "the forward op's function")
      .attr("wants_grad", std::vector<int64_t>{}, "the forward op's wants_grad")
      .infer_shape(infer_run_program_grad)
      .kernel({DType::kF32, DType::kF64, DType::kBF16}, run_program_grad_kernel);
}

const OpRegistrar kRunProgramOps(register_run_program_ops);

}  // namespace skiff
