#include "skiff/ops/registry.h"

namespace skiff {

KernelFn OpInfo::find_kernel(Place place, DType dtype) const {
  auto it = kernels.find({place.type, dtype});
  return it == kernels.end() ? nullptr : it->second;
}

OpBuilder& OpBuilder::doc(std::string text) {
  info_->schema.doc = std::move(text);
  return *this;
}
OpBuilder& OpBuilder::input(std::string name, std::string doc) {
  info_->schema.inputs.push_back({std::move(name), std::move(doc), false, false});
  return *this;
}
OpBuilder& OpBuilder::inputs(std::string name, std::string doc) {
  info_->schema.inputs.push_back({std::move(name), std::move(doc), true, false});
  return *this;
}
OpBuilder& OpBuilder::optional_input(std::string name, std::string doc) {
  info_->schema.inputs.push_back({std::move(name), std::move(doc), false, true});
  return *this;
}
OpBuilder& OpBuilder::output(std::string name, std::string doc) {
  info_->schema.outputs.push_back({std::move(name), std::move(doc), false, false});
  return *this;
}
OpBuilder& OpBuilder::outputs(std::string name, std::string doc) {
  info_->schema.outputs.push_back({std::move(name), std::move(doc), true, false});
  return *this;
}
OpBuilder& OpBuilder::optional_output(std::string name, std::string doc) {
  info_->schema.outputs.push_back({std::move(name), std::move(doc), false, true});
  return *this;
}
OpBuilder& OpBuilder::attr(std::string name, Attr default_value, std::string doc) {
  AttrType type = attr_type(default_value);
  info_->schema.attrs.push_back({std::move(name), type, std::move(default_value), std::move(doc)});
  return *this;
}
OpBuilder& OpBuilder::required_attr(std::string name, AttrType type, std::string doc) {
  info_->schema.attrs.push_back({std::move(name), type, std::nullopt, std::move(doc)});
  return *this;
}
OpBuilder& OpBuilder::infer_shape(InferShapeFn fn) {
  info_->infer_shape = fn;
  return *this;
}
OpBuilder& OpBuilder::kernel(std::initializer_list<DType> dtypes, KernelFn fn, DeviceType device) {
  for (DType t : dtypes) info_->kernels[{device, t}] = fn;
  return *this;
}
OpBuilder& OpBuilder::bind(std::initializer_list<DType> dtypes, KernelFn run, EmitFn emit) {
  kernel(dtypes, run);
  info_->emit = emit;
  return *this;
}
OpBuilder& OpBuilder::kernel_dtype_from(std::string input_slot) {
  info_->kernel_dtype_slot = std::move(input_slot);
  return *this;
}
OpBuilder& OpBuilder::grad(GradMakerFn fn) {
  info_->grad = fn;
  return *this;
}
OpBuilder& OpBuilder::runs_blocks(BlockRole role, BlockSlots slots) {
  info_->block_role = role;
  info_->block_slots = slots;
  return *this;
}
OpBuilder& OpBuilder::amp(AmpPolicy policy) {
  info_->amp = policy;
  return *this;
}
OpBuilder& OpBuilder::int8_form(Int8Form form) {
  info_->int8_form = form;
  return *this;
}
OpBuilder& OpBuilder::moves_values() {
  info_->moves_values = true;
  return *this;
}
OpBuilder& OpBuilder::views_input() {
  info_->views_input = true;
  return *this;
}

OpBuilder& OpBuilder::writes_in_place() {
  info_->writes_in_place = true;
  return *this;
}

const char* block_role_name(BlockRole role) {
  switch (role) {
    case BlockRole::kNone:
      return "";
    case BlockRole::kLoop:
      return "loop";
    case BlockRole::kBranch:
      return "branch";
    case BlockRole::kLoopGrad:
      return "loop_grad";
    case BlockRole::kBranchGrad:
      return "branch_grad";
  }
  return "";
}

const char* amp_policy_name(AmpPolicy policy) {
  switch (policy) {
    case AmpPolicy::kFollow:
      return "follow";
    case AmpPolicy::kLowPrecision:
      return "low_precision";
    case AmpPolicy::kFloat32:
      return "float32";
  }
  return "";
}

namespace {

struct Registrars {
  std::vector<void (*)(OpRegistry&)> add_ops;
  bool built = false;
};

Registrars& registrars() {
  static Registrars* r = new Registrars;
  return *r;
}

}  // namespace

OpRegistrar::OpRegistrar(void (*add_ops)(OpRegistry&)) {
  SKIFF_CHECK(!registrars().built, "an OpRegistrar ran after the op registry was built");
  registrars().add_ops.push_back(add_ops);
}

const OpRegistry& OpRegistry::global() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    registrars().built = true;
    for (auto add_ops : registrars().add_ops) add_ops(*r);
    return r;
  }();
  return *registry;
}

OpBuilder OpRegistry::add(const std::string& type) {
  SKIFF_CHECK(!ops_.count(type), "op '", type, "' registered twice");
  auto info = std::make_unique<OpInfo>();
  info->schema.type = type;
  OpInfo* raw = info.get();
  ops_[type] = std::move(info);
  return OpBuilder(raw);
}

const OpInfo* OpRegistry::find(const std::string& type) const {
  auto it = ops_.find(type);
  return it == ops_.end() ? nullptr : it->second.get();
}

const OpInfo& OpRegistry::get(const std::string& type) const {
  const OpInfo* info = find(type);
  SKIFF_CHECK(info, "unknown op type '", type, "' (`skiff ops` lists the registered ops)");
  return *info;
}

std::vector<std::string> OpRegistry::types() const {
  std::vector<std::string> out;
  for (const auto& [name, info] : ops_) out.push_back(name);
  return out;
}

const OpSchema* find_op_schema(const std::string& type) {
  const OpInfo* info = OpRegistry::global().find(type);
  return info ? &info->schema : nullptr;
}

void fill_default_attrs(OpDesc& op) {
  const OpInfo& info = OpRegistry::global().get(op.type);
  for (const AttrSchema& a : info.schema.attrs) {
    if (a.default_value && !op.attrs.has(a.name)) op.attrs.set(a.name, *a.default_value);
  }
}

}  // namespace skiff
