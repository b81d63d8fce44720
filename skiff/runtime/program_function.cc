// The registry of programs called like ops, and their training variants: the traced
// program plus the backward of <outputs, fed output gradients>, split into the part
// that runs in the forward call and the part its grad op runs.
#include <algorithm>
#include <set>

#include "skiff/autodiff/backward.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"
#include "skiff/runtime/prepared_block.h"
#include "skiff/runtime/run_program.h"

namespace skiff {

namespace {

// Marks the ops appended for the backward (the split point is the first of them).
constexpr const char* kBackwardMark = "run_program: backward of the traced program";

struct FunctionTable {
  std::mutex mutex;
  int64_t next_id = 1;
  std::map<int64_t, std::shared_ptr<ProgramFunction>> functions;
};

FunctionTable& table() {
  static FunctionTable* t = new FunctionTable;
  return *t;
}

void append(Program& program, OpDesc op) {
  op.set_attr(kSourceAttr, std::string(kBackwardMark));
  fill_default_attrs(op);
  Block& b0 = program.global_block();
  b0.ops.push_back(std::move(op));
  infer_op_shape(program, 0, b0.ops.back());
}

// Names read or written by the ops of `block_idx` and of the blocks they run.
void names_used(const Program& program, int block_idx, std::set<std::string>* names) {
  for (const OpDesc& op : program.block(block_idx).ops) {
    for (const auto& n : op.input_names()) names->insert(n);
    for (const auto& n : op.output_names()) names->insert(n);
    for (int32_t b : op.sub_blocks()) names_used(program, b, names);
  }
}

}  // namespace

const VarDesc& ProgramFunction::var(const std::string& name) const {
  const VarDesc* v = program.global_block().find_local_var(name);
  SKIFF_CHECK(v, "run_program: variable '", name, "' is not declared in block 0");
  return *v;
}

std::unique_ptr<ProgramFunctionVariant> make_program_variant(const ProgramFunction& fn,
                                                             const std::vector<int64_t>& wants) {
  SKIFF_CHECK(wants.size() == fn.inputs.size(), "run_program: ", wants.size(),
              " wanted-gradient flags for ", fn.inputs.size(), " inputs");
  auto v = std::make_unique<ProgramFunctionVariant>();
  Program full = fn.program;
  std::vector<std::string> terms;
  for (size_t i = 0; i < fn.outputs.size(); ++i) {
    const VarDesc& out = fn.var(fn.outputs[i]);
    if (out.kind != VarKind::kDenseTensor || !is_differentiable(out.dtype)) {
      v->output_grads.emplace_back();
      continue;
    }
    const std::string suffix = "@run_program." + std::to_string(i);
    const std::string dout = "dout" + suffix, prod = "prod" + suffix, term = "term" + suffix;
    full.global_block().add_var(VarDesc(dout, out.dtype, out.shape));
    OpDesc mul("elementwise_mul");
    mul.set_input("X", {out.name}).set_input("Y", {dout}).set_output("Out", {prod});
    append(full, mul);
    OpDesc sum("reduce_sum");
    sum.set_input("X", {prod}).set_output("Out", {term}).set_attr("reduce_all", true);
    append(full, sum);
    v->output_grads.push_back(dout);
    terms.push_back(term);
  }
  BackwardOptions options;
  for (size_t k = 0; k < fn.inputs.size(); ++k) {
    const VarDesc& in = fn.var(fn.inputs[k]);
    if (wants[k] && in.kind == VarKind::kDenseTensor && is_differentiable(in.dtype))
      options.parameters.push_back(in.name);
  }
  std::map<std::string, std::string> grads;
  if (!terms.empty() && !options.parameters.empty()) {
    std::string target = terms[0];
    if (terms.size() > 1) {
      target = "target@run_program";
      OpDesc total("sum");
      total.set_input("X", terms).set_output("Out", {target});
      append(full, total);
    }
    for (const auto& [param, grad] : append_backward(full, target, options)) grads[param] = grad;
  }
  for (const auto& name : fn.inputs) {
    auto it = grads.find(name);
    v->input_grads.push_back(it == grads.end() ? "" : it->second);
  }

  const auto& ops = full.global_block().ops;
  size_t split = ops.size();
  for (size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].source() == kBackwardMark) {
      split = k;
      break;
    }
  }
  v->forward = full;
  v->forward.global_block().ops.resize(split);
  v->backward = std::move(full);
  auto& bops = v->backward.global_block().ops;
  bops.erase(bops.begin(), bops.begin() + static_cast<std::ptrdiff_t>(split));

  // The forward keeps every value the backward reads; the backward keeps the gradients.
  std::set<std::string> read;
  names_used(v->backward, 0, &read);
  for (const auto& n : fn.outputs) read.insert(n);
  v->forward_block = prepare_block(v->forward, 0, cpu_place(), true,
                                   std::vector<std::string>(read.begin(), read.end()));
  std::vector<std::string> keep;
  for (const auto& g : v->input_grads)
    if (!g.empty()) keep.push_back(g);
  v->backward_block = prepare_block(v->backward, 0, cpu_place(), true, keep);
  return v;
}

ProgramFunctionVariant& ProgramFunction::variant(const std::vector<int64_t>& wants) {
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = variants[wants];
  if (!slot) slot = make_program_variant(*this, wants);
  return *slot;
}

int64_t register_program_function(const Program& program, std::vector<std::string> inputs,
                                  std::vector<std::string> outputs) {
  auto fn = std::make_shared<ProgramFunction>();
  fn->program = program;
  fn->inputs = std::move(inputs);
  fn->outputs = std::move(outputs);
  SKIFF_CHECK(!fn->outputs.empty(), "run_program: a function needs at least one output");
  for (const auto& n : fn->inputs) fn->var(n);
  for (const auto& n : fn->outputs) fn->var(n);
  fn->infer_block = prepare_block(fn->program, 0, cpu_place(), true, fn->outputs);
  FunctionTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  int64_t id = t.next_id++;
  t.functions[id] = std::move(fn);
  return id;
}

std::shared_ptr<ProgramFunction> find_program_function(int64_t id) {
  FunctionTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.functions.find(id);
  SKIFF_CHECK(it != t.functions.end(), "run_program: no registered function ", id,
              " (it was released, or never registered)");
  return it->second;
}

void release_program_function(int64_t id) {
  FunctionTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.functions.erase(id);
}

}  // namespace skiff
