#include "skiff/eager/op_call.h"

#include "skiff/eager/grad_node.h"
#include "skiff/eager/var_type.h"
#include "skiff/eager/views.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/op_error.h"
#include "skiff/ops/shape_context.h"
#include "skiff/runtime/kernel_choice.h"

namespace skiff::eager {

struct EagerOp::Form {
  std::vector<int> input_counts;
  std::shared_ptr<const OpDesc> desc;
  // Where each schema slot sits among the desc's slots (-1: absent this call).
  std::vector<int> in_slot, out_slot;
  std::vector<std::string> in_names, out_names;  // flattened, slot after slot
  std::vector<int> out_offsets;                  // first flat output of each schema slot
  // Kernels by the dtypes and kinds of the inputs (see type_key).
  std::vector<std::pair<std::string, KernelFn>> kernels;
  // Grad ops by which flat inputs want a gradient.
  std::vector<std::pair<std::vector<bool>, std::shared_ptr<GradTemplate>>> grads;
  std::unique_ptr<KernelContext> ctx;  // reused call after call
  bool busy = false;
};

namespace {

std::string entry_name(const std::string& slot, int i) {
  return i == 0 ? slot : slot + "." + std::to_string(i);
}

std::string slot_list(const std::vector<SlotSchema>& slots) {
  std::string s;
  for (const auto& slot : slots) s += (s.empty() ? "" : ", ") + slot.name;
  return s;
}

// Checks `count` entries against a slot's schema.
void check_count(const std::string& op, const char* what, const SlotSchema& slot, int count) {
  SKIFF_CHECK(count >= 1 || slot.optional, "op '", op, "': ", what, " ", slot.name, " is required");
  SKIFF_CHECK(count <= 1 || slot.duplicable, "op '", op, "': ", what, " ", slot.name,
              " takes one tensor, got ", count);
}

}  // namespace

EagerOp::EagerOp(const std::string& type, AttrMap attrs, std::vector<int> output_counts)
    : info_(&OpRegistry::global().get(type)), output_counts_(std::move(output_counts)) {
  const OpSchema& schema = info_->schema;
  SKIFF_CHECK(!info_->runs_blocks(), "op '", type,
              "' runs sub-blocks; eager code uses Python control flow instead");
  for (const auto& [name, value] : attrs.items()) {
    const AttrSchema* a = schema.find_attr(name);
    if (!a) {
      std::string known;
      for (const auto& s : schema.attrs) known += (known.empty() ? "" : ", ") + s.name;
      fail("op '", type, "' has no attribute '", name,
           "' (it has: ", known.empty() ? "none" : known, ")");
    }
  }
  for (const AttrSchema& a : schema.attrs) {
    SKIFF_CHECK(a.default_value || attrs.has(a.name), "op '", type, "': required attribute '",
                a.name, "' is missing");
  }
  attrs_ = std::move(attrs);
  if (output_counts_.empty()) {
    output_counts_.assign(schema.outputs.size(), 1);
  }
  SKIFF_CHECK(output_counts_.size() == schema.outputs.size(), "op '", type, "' has ",
              schema.outputs.size(), " output slots (", slot_list(schema.outputs), "), got ",
              output_counts_.size(), " counts");
  for (size_t s = 0; s < schema.outputs.size(); ++s) {
    check_count(type, "output", schema.outputs[s], output_counts_[s]);
  }
}

EagerOp::~EagerOp() = default;

EagerOp::Form& EagerOp::form_for(const SlotTensors& inputs) {
  const OpSchema& schema = info_->schema;
  SKIFF_CHECK(inputs.size() == schema.inputs.size(), "op '", type(), "' takes ",
              schema.inputs.size(), " input slots (", slot_list(schema.inputs), "), got ",
              inputs.size());
  for (auto& form : forms_) {
    bool same = true;
    for (size_t s = 0; same && s < inputs.size(); ++s)
      same = form->input_counts[s] == static_cast<int>(inputs[s].size());
    if (same) return *form;
  }
  auto form = std::make_unique<Form>();
  auto desc = std::make_shared<OpDesc>(type());
  for (size_t s = 0; s < inputs.size(); ++s) {
    const SlotSchema& slot = schema.inputs[s];
    int count = static_cast<int>(inputs[s].size());
    check_count(type(), "input", slot, count);
    form->input_counts.push_back(count);
    form->in_slot.push_back(count ? static_cast<int>(desc->inputs.size()) : -1);
    std::vector<std::string> names;
    for (int i = 0; i < count; ++i) names.push_back(entry_name(slot.name, i));
    if (count) desc->set_input(slot.name, names);
    form->in_names.insert(form->in_names.end(), names.begin(), names.end());
  }
  for (size_t s = 0; s < schema.outputs.size(); ++s) {
    const SlotSchema& slot = schema.outputs[s];
    // An output slot named like an input slot gets a distinct variable name.
    std::string base = schema.find_input(slot.name) ? slot.name + ":out" : slot.name;
    form->out_offsets.push_back(static_cast<int>(form->out_names.size()));
    form->out_slot.push_back(output_counts_[s] ? static_cast<int>(desc->outputs.size()) : -1);
    std::vector<std::string> names;
    for (int i = 0; i < output_counts_[s]; ++i) names.push_back(entry_name(base, i));
    if (!names.empty()) desc->set_output(slot.name, names);
    form->out_names.insert(form->out_names.end(), names.begin(), names.end());
  }
  desc->attrs = attrs_;
  fill_default_attrs(*desc);
  form->desc = desc;
  form->ctx = std::make_unique<KernelContext>(desc.get());
  form->ctx->inputs.resize(desc->inputs.size());
  form->ctx->outputs.resize(desc->outputs.size());
  forms_.push_back(std::move(form));
  return *forms_.back();
}

namespace {

// The kernel for this call's input types, chosen like the interpreter chooses it
// (through shape inference on the inputs' types) and cached per type signature.
KernelFn kernel_for(const OpInfo& info, EagerOp::Form& form, const SlotTensors& inputs) {
  std::string key;
  for (const auto& slot : inputs)
    for (const TensorPtr& t : slot) append_type_key(t->value, &key);
  for (const auto& [k, fn] : form.kernels)
    if (k == key) return fn;

  Program scratch;
  Block& block = scratch.global_block();
  size_t flat = 0;
  for (const auto& slot : inputs)
    for (const TensorPtr& t : slot) block.add_var(describe_value(form.in_names[flat++], t->value));
  block.ops.push_back(*form.desc);
  infer_op_shape(scratch, 0, block.ops.back());
  KernelFn fn = choose_kernel(scratch, 0, info, block.ops.back(), cpu_place());
  form.kernels.emplace_back(key, fn);
  return fn;
}

// The recorded grad ops for the inputs that want a gradient (cached per form).
std::shared_ptr<GradTemplate> grad_template_for(const OpInfo& info, EagerOp::Form& form,
                                                const std::vector<bool>& wants) {
  for (const auto& [w, tmpl] : form.grads)
    if (w == wants) return tmpl;
  auto tmpl = make_grad_template(form.desc, info, wants);
  form.grads.emplace_back(wants, tmpl);
  return tmpl;
}

bool wants_grad(const TensorPtr& t) {
  if (t->stop_gradient) return false;
  if (const Tensor* d = t->value.tensor()) return is_differentiable(d->dtype());
  return false;
}

// Replaces the node's saved values by what its hooks pack them into.
void pack_saved(GradNode& node) {
  SavedValueHooksPause pause;
  for (const Variable& v : node.saved) {
    const Tensor* d = v.tensor();
    node.packed_types.emplace_back(d ? d->shape() : Shape{}, d ? d->dtype() : DType::kF32);
    node.packed.push_back(node.hooks->pack(v));
  }
  node.saved.clear();
}

}  // namespace

SlotTensors EagerOp::call(const SlotTensors& inputs) { return call_into(inputs, {}); }

SlotTensors EagerOp::call_into(const SlotTensors& inputs, const SlotTensors& outputs) {
  SlotTensors result;
  run(inputs, outputs, &result);
  return result;
}

void EagerOp::run(const SlotTensors& given, const SlotTensors& outputs, SlotTensors* out) {
  Form& form = form_for(given);
  const OpSchema& schema = info_->schema;
  SKIFF_CHECK(outputs.empty() || outputs.size() == schema.outputs.size(), "op '", type(),
              "': ", outputs.size(), " output lists for ", schema.outputs.size(), " slots");

  // An output that is also an input (an in-place update) of an op being recorded: the
  // op reads, and the tape keeps, the input's value and history from before the update
  // (the output then gets new memory; unrecorded in-place updates keep theirs).
  SlotTensors shadowed;
  const SlotTensors* in = &given;
  bool records = false;
  if (!outputs.empty() && grad_enabled() && info_->grad)
    for (const auto& slot : given)
      for (const TensorPtr& t : slot) records = records || wants_grad(t);
  if (records) {
    for (const auto& slot : outputs)
      for (const TensorPtr& o : slot) {
        if (!o) continue;
        TensorPtr old;
        for (auto& in_slot : shadowed.empty() ? given : shadowed)
          for (const TensorPtr& t : in_slot) {
            if (t != o) continue;
            SKIFF_CHECK(!wants_grad(o) || !o->is_leaf(), "op '", type(), "': in-place update of ",
                        o->describe(),
                        ", a leaf tensor that wants a gradient; update a copy, or "
                        "update it under no_grad");
            old = std::make_shared<EagerTensor>(*o);
          }
        if (!old) continue;
        if (shadowed.empty()) shadowed = given;
        for (auto& in_slot : shadowed)
          for (TensorPtr& t : in_slot)
            if (t == o) t = old;
      }
    if (!shadowed.empty()) in = &shadowed;
  }
  const SlotTensors& inputs = *in;

  // The reused context, unless a kernel is calling back into this op.
  std::unique_ptr<KernelContext> own;
  KernelContext* ctx = form.ctx.get();
  if (form.busy) {
    own = std::make_unique<KernelContext>(form.desc.get());
    own->inputs.resize(form.desc->inputs.size());
    own->outputs.resize(form.desc->outputs.size());
    ctx = own.get();
  }
  for (size_t s = 0; s < inputs.size(); ++s) {
    if (form.in_slot[s] < 0) continue;
    auto& vars = ctx->inputs[form.in_slot[s]];
    vars.resize(inputs[s].size());
    for (size_t i = 0; i < inputs[s].size(); ++i) {
      const TensorPtr& t = inputs[s][i];
      SKIFF_CHECK(t && !t->value.empty(), "op '", type(), "': input ", schema.inputs[s].name, "[",
                  i, "] holds no value");
      vars[i] = &t->value;
    }
  }
  SlotTensors& result = *out;
  result.resize(schema.outputs.size());
  for (size_t s = 0; s < schema.outputs.size(); ++s) {
    result[s].clear();
    for (int i = 0; i < output_counts_[s]; ++i) {
      TensorPtr given =
          outputs.empty() || i >= static_cast<int>(outputs[s].size()) ? nullptr : outputs[s][i];
      result[s].push_back(given ? given : std::make_shared<EagerTensor>());
    }
    if (form.out_slot[s] < 0) continue;
    auto& vars = ctx->outputs[form.out_slot[s]];
    vars.resize(result[s].size());
    for (size_t i = 0; i < result[s].size(); ++i) vars[i] = &result[s][i]->value;
  }

  KernelFn kernel = kernel_for(*info_, form, inputs);
  form.busy = ctx == form.ctx.get();
  try {
    kernel(*ctx);
  } catch (const Error& e) {
    form.busy = false;
    e.rethrow_with(describe_kernel_error(*ctx, e.what()));
  }
  if (ctx == form.ctx.get()) form.busy = false;
  if (outputs.empty()) {
    if (info_->views_input) join_views(inputs[0][0], result[0][0]);
  } else {
    for (const auto& slot : outputs)
      for (const TensorPtr& o : slot) {
        if (!o) continue;
        ++o->inplace_version;
        if (o->views.group) publish_write(*o);
      }
  }

  if (!grad_enabled() || !info_->grad) return;
  bool any = false;
  for (const auto& slot : inputs)
    for (const TensorPtr& t : slot) any = any || wants_grad(t);
  if (!any) return;
  std::vector<bool> wants;
  for (const auto& slot : inputs)
    for (const TensorPtr& t : slot) wants.push_back(wants_grad(t));

  auto node = std::make_shared<GradNode>();
  node->grad = grad_template_for(*info_, form, wants);
  node->out_offsets = form.out_offsets;
  size_t flat = 0;
  std::vector<const Variable*> fwd_values;
  for (const auto& slot : inputs)
    for (const TensorPtr& t : slot) {
      node->inputs.push_back(wants[flat++] ? Edge{t, t->grad_node, t->out_slot, t->out_index}
                                           : Edge{});
      fwd_values.push_back(&t->value);
    }
  for (const auto& slot : result)
    for (const TensorPtr& t : slot) {
      const Tensor* d = t->value.tensor();
      node->outputs.emplace_back(d ? d->shape() : Shape{}, d ? d->dtype() : DType::kF32);
      fwd_values.push_back(&t->value);
    }
  for (int idx : node->grad->saved) node->saved.push_back(*fwd_values[idx]);
  node->hooks = saved_value_hooks();
  for (size_t s = 0; s < result.size(); ++s)
    for (size_t i = 0; i < result[s].size(); ++i) {
      const TensorPtr& t = result[s][i];
      const Tensor* d = t->value.tensor();
      if (!d || !is_differentiable(d->dtype())) continue;
      t->stop_gradient = false;
      t->grad_node = node;
      t->out_slot = static_cast<int>(s);
      t->out_index = static_cast<int>(i);
    }
  if (node->hooks) {
    SlotTensors mine = result;  // a hook that calls this op again reuses `result`
    pack_saved(*node);
    result = std::move(mine);
  }
}

}  // namespace skiff::eager
