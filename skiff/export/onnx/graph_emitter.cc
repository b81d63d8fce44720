#include "skiff/export/onnx/graph_emitter.h"

#include <cctype>
#include <functional>

#include "skiff/core/variable.h"
#include "skiff/export/onnx/onnx_rules.h"
#include "skiff/ops/registry.h"

namespace skiff::onnx_export {

namespace {

// Little-endian bytes of `values` converted to `dtype` (the raw_data layout).
std::string raw_bytes(const std::vector<double>& values, DType dtype) {
  std::string out;
  auto put = [&](auto v) {
    const char* p = reinterpret_cast<const char*>(&v);
    out.append(p, sizeof(v));
  };
  for (double v : values) {
    switch (dtype) {
      case DType::kF32:
        put(static_cast<float>(v));
        break;
      case DType::kF64:
        put(v);
        break;
      case DType::kI32:
        put(static_cast<int32_t>(v));
        break;
      case DType::kI64:
        put(static_cast<int64_t>(v));
        break;
      case DType::kBool:
        put(static_cast<uint8_t>(v != 0));
        break;
      case DType::kI8:
        put(static_cast<int8_t>(v));
        break;
      case DType::kU8:
        put(static_cast<uint8_t>(v));
        break;
      case DType::kI16:
        put(static_cast<int16_t>(v));
        break;
      default:
        fail("no constants of dtype ", dtype_name(dtype), " in ONNX export");
    }
  }
  return out;
}

std::string describe(const OpDesc& op) {
  std::string s = "op '" + op.type + "'";
  const std::string source = op.source();
  if (!source.empty()) s += " (created at " + source + ")";
  return s;
}

bool is_scope_var(const Program& program, const std::string& name) {
  for (const Block& b : program.blocks()) {
    const VarDesc* d = b.find_local_var(name);
    if (d && d->kind == VarKind::kStepScopes) return true;
  }
  return false;
}

}  // namespace

int onnx_elem_type(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return pb::TensorProto::FLOAT;
    case DType::kF64:
      return pb::TensorProto::DOUBLE;
    case DType::kI32:
      return pb::TensorProto::INT32;
    case DType::kI64:
      return pb::TensorProto::INT64;
    case DType::kBool:
      return pb::TensorProto::BOOL;
    case DType::kBF16:
      return pb::TensorProto::BFLOAT16;
    case DType::kI8:
      return pb::TensorProto::INT8;
    case DType::kU8:
      return pb::TensorProto::UINT8;
    case DType::kI16:
      return pb::TensorProto::INT16;
    case DType::kC64:
      return pb::TensorProto::COMPLEX64;
    case DType::kC128:
      return pb::TensorProto::COMPLEX128;
  }
  fail("dtype ", static_cast<int>(dtype), " has no ONNX type");
}

// --- NodeWriter ---

pb::AttributeProto* NodeWriter::add(const std::string& name, int type) {
  pb::AttributeProto* a = node_->add_attribute();
  a->set_name(name);
  a->set_type(static_cast<pb::AttributeProto::AttributeType>(type));
  return a;
}

NodeWriter& NodeWriter::i(const std::string& name, int64_t value) {
  add(name, pb::AttributeProto::INT)->set_i(value);
  return *this;
}

NodeWriter& NodeWriter::f(const std::string& name, double value) {
  add(name, pb::AttributeProto::FLOAT)->set_f(static_cast<float>(value));
  return *this;
}

NodeWriter& NodeWriter::s(const std::string& name, const std::string& value) {
  add(name, pb::AttributeProto::STRING)->set_s(value);
  return *this;
}

NodeWriter& NodeWriter::ints(const std::string& name, const std::vector<int64_t>& values) {
  pb::AttributeProto* a = add(name, pb::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
  return *this;
}

NodeWriter& NodeWriter::strings(const std::string& name, const std::vector<std::string>& values) {
  pb::AttributeProto* a = add(name, pb::AttributeProto::STRINGS);
  for (const std::string& v : values) a->add_strings(v);
  return *this;
}

NodeWriter& NodeWriter::floats(const std::string& name, const std::vector<double>& values) {
  pb::AttributeProto* a = add(name, pb::AttributeProto::FLOATS);
  for (double v : values) a->add_floats(static_cast<float>(v));
  return *this;
}

NodeWriter& NodeWriter::t(const std::string& name, pb::TensorProto value) {
  *add(name, pb::AttributeProto::TENSOR)->mutable_t() = std::move(value);
  return *this;
}

NodeWriter& NodeWriter::g(const std::string& name, pb::GraphProto value) {
  *add(name, pb::AttributeProto::GRAPH)->mutable_g() = std::move(value);
  return *this;
}

// --- ModelContext ---

ModelContext::ModelContext(const Program& program, const NamedTensors& params, int opset,
                           pb::GraphProto* main)
    : program_(program), opset_(opset), main_(main) {
  for (const auto& [name, t] : params) params_.emplace(name, &t);
}

std::string ModelContext::fresh_name(const std::string& base) {
  const std::string stem = base.empty() ? "v" : base;
  if (names_.insert(stem).second) return stem;
  int& n = next_suffix_[stem];
  std::string name;
  do {
    name = stem + "__" + std::to_string(++n);
  } while (names_.count(name));
  names_.insert(name);
  return name;
}

void ModelContext::reserve(const std::string& name) { names_.insert(name); }

std::string ModelContext::constant(const std::string& base, pb::TensorProto tensor) {
  const std::string key = tensor.SerializeAsString();
  auto it = constants_.find(key);
  if (it != constants_.end()) return it->second;
  const std::string name = fresh_name(base);
  tensor.set_name(name);
  *main_->add_initializer() = std::move(tensor);
  constants_.emplace(key, name);
  return name;
}

std::string ModelContext::parameter(const std::string& var) {
  auto it = parameters_.find(var);
  if (it != parameters_.end()) return it->second;
  auto found = params_.find(var);
  const Tensor* t = found == params_.end() ? nullptr : found->second;
  SKIFF_CHECK(t && t->initialized(), "parameter '", var,
              "' has no value (the parameter file or scope does not hold it)");
  pb::TensorProto proto;
  for (int64_t d : t->shape()) proto.add_dims(d);
  proto.set_data_type(onnx_elem_type(t->dtype()));
  proto.set_raw_data(static_cast<const char*>(t->raw_data()), t->nbytes());
  const std::string name = fresh_name(var);
  proto.set_name(name);
  *main_->add_initializer() = std::move(proto);
  parameters_.emplace(var, name);
  return name;
}

// --- GraphEmitter ---

GraphEmitter::GraphEmitter(ModelContext* model, pb::GraphProto* graph, const GraphEmitter* parent,
                           int block_idx)
    : model_(model), graph_(graph), parent_(parent), block_idx_(block_idx) {}

void GraphEmitter::emit_block() {
  const Block& block = program().block(block_idx_);
  const RuleTable& rules = onnx_rules();
  for (op_index_ = 0; op_index_ < static_cast<int>(block.ops.size()); ++op_index_) {
    if (skipped_.count(op_index_)) continue;
    const OpDesc& op = block.ops[op_index_];
    auto rule = rules.find(op.type);
    if (rule == rules.end()) {
      throw OpExportError(describe(op) +
                          " has no ONNX mapping (`skiff export-onnx --ops` "
                          "lists the op types that have one)");
    }
    try {
      // Attributes the op leaves unset take their schema defaults: a rule reads every
      // attribute it uses with attr<T> and never restates a default.
      OpDesc filled = op;
      if (find_op_schema(op.type)) fill_default_attrs(filled);
      rule->second(*this, filled);
    } catch (const OpExportError&) {
      throw;
    } catch (const Error& e) {
      throw OpExportError(describe(op) + ": " + e.what());
    }
  }
  op_index_ = -1;
}

void GraphEmitter::set_final_names(const std::vector<std::string>& vars) {
  const Block& block = program().block(block_idx_);
  const std::set<std::string> wanted(vars.begin(), vars.end());
  for (int i = 0; i < static_cast<int>(block.ops.size()); ++i)
    for (const std::string& w : op_writes(program(), block.ops[i]))
      if (wanted.count(w)) final_writer_[w] = i;
}

const std::string* GraphEmitter::find(const std::string& var) const {
  auto it = values_.find(var);
  if (it != values_.end()) return &it->second;
  return parent_ ? parent_->find(var) : nullptr;
}

bool GraphEmitter::has_value(const std::string& var) const {
  if (find(var)) return true;
  const VarDesc* d = program().find_var(block_idx_, var);
  return d && d->persistable;
}

std::string GraphEmitter::value(const std::string& var) {
  if (const std::string* v = find(var)) return *v;
  const VarDesc& d = var_desc(var);
  if (d.persistable) return model_->parameter(var);
  if (d.kind == VarKind::kTensorArray) {
    const std::string empty = stand_in(var);
    bind(var, empty);
    return empty;
  }
  fail("it reads '", var, "' before any op writes it (it is neither fed nor a parameter)");
}

void GraphEmitter::bind(const std::string& var, const std::string& name) { values_[var] = name; }

std::string GraphEmitter::define(const std::string& var, int writer) {
  std::string name;
  auto it = final_writer_.find(var);
  if (it != final_writer_.end() && it->second == (writer >= 0 ? writer : op_index_)) {
    name = var;  // reserved by the caller for the graph output
    final_writer_.erase(it);
  } else {
    name = model_->fresh_name(var);
  }
  values_[var] = name;
  return name;
}

const VarDesc& GraphEmitter::var_desc(const std::string& var) const {
  const VarDesc* d = program().find_var(block_idx_, var);
  SKIFF_CHECK(d, "variable '", var, "' is not declared in block ", block_idx_, " or its ancestors");
  return *d;
}

bool GraphEmitter::has_in(const OpDesc& op, const char* slot) const {
  return !op.first_input(slot).empty();
}

std::string GraphEmitter::in(const OpDesc& op, const char* slot) {
  const std::string var = op.first_input(slot);
  SKIFF_CHECK(!var.empty(), "input ", slot, " is empty");
  return value(var);
}

std::vector<std::string> GraphEmitter::ins(const OpDesc& op, const char* slot) {
  std::vector<std::string> out;
  for (const std::string& var : op.input(slot)) out.push_back(value(var));
  return out;
}

bool GraphEmitter::has_out(const OpDesc& op, const char* slot) const {
  return !op.first_output(slot).empty();
}

std::string GraphEmitter::out(const OpDesc& op, const char* slot) {
  const std::string var = op.first_output(slot);
  SKIFF_CHECK(!var.empty(), "output ", slot, " is empty");
  return define(var);
}

DType GraphEmitter::dtype(const OpDesc& op, const char* slot) const {
  std::string var = op.first_input(slot);
  if (var.empty()) var = op.first_output(slot);
  SKIFF_CHECK(!var.empty(), "slot ", slot, " is empty");
  return var_desc(var).dtype;
}

const Shape& GraphEmitter::shape(const OpDesc& op, const char* slot) const {
  const std::string var = op.first_input(slot);
  SKIFF_CHECK(!var.empty(), "input ", slot, " is empty");
  return var_desc(var).shape;
}

const Shape& GraphEmitter::out_shape(const OpDesc& op, const char* slot) const {
  const std::string var = op.first_output(slot);
  SKIFF_CHECK(!var.empty(), "output ", slot, " is empty");
  return var_desc(var).shape;
}

NodeWriter GraphEmitter::node(const std::string& op_type, const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs) {
  pb::NodeProto* n = graph_->add_node();
  n->set_op_type(op_type);
  n->set_name(op_type + "_" + std::to_string(model_->next_node_id()));
  for (const std::string& i : inputs) n->add_input(i);
  for (const std::string& o : outputs) {
    n->add_output(o);
    if (!o.empty()) made_here_.insert(o);
  }
  return NodeWriter(n);
}

std::string GraphEmitter::apply(const std::string& op_type,
                                const std::vector<std::string>& inputs) {
  std::string lower = op_type;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string out = temp(lower);
  node(op_type, inputs, {out});
  return out;
}

std::string GraphEmitter::temp(const std::string& hint) { return model_->fresh_name("_" + hint); }

std::string GraphEmitter::ints(const std::vector<int64_t>& values) {
  pb::TensorProto t;
  t.add_dims(static_cast<int64_t>(values.size()));
  t.set_data_type(pb::TensorProto::INT64);
  for (int64_t v : values) t.add_int64_data(v);
  return model_->constant("_ints", std::move(t));
}

std::string GraphEmitter::scalar(double value, DType dtype) {
  return model_->constant("_scalar", tensor_proto(Shape{}, dtype, {value}));
}

std::string GraphEmitter::filled(const Shape& shape, double value, DType dtype) {
  SKIFF_CHECK(shape.known(), "a constant needs known dims, got ", shape);
  std::vector<double> values(static_cast<size_t>(shape.numel()), value);
  return model_->constant("_const", tensor_proto(shape, dtype, values));
}

void GraphEmitter::add_graph_output(const std::string& value, const VarDesc& desc) {
  std::string name = value;
  if (!made_here_.count(value) || outputs_.count(value)) {
    name = temp(desc.name + "_out");
    node("Identity", {value}, {name});
  }
  outputs_.insert(name);
  set_value_info(graph_->add_output(), name, desc, DimStyle::kRankOnly);
}

std::string GraphEmitter::stand_in(const std::string& var) {
  const VarDesc& d = var_desc(var);
  if (d.kind == VarKind::kTensorArray) {
    const std::string empty = temp(var + "_empty");
    node("SequenceEmpty", {}, {empty}).i("dtype", onnx_elem_type(d.dtype));
    return empty;
  }
  Shape empty_shape;
  for (int i = 0; i < d.shape.rank(); ++i) empty_shape.push_back(0);
  return filled(empty_shape, 0, d.dtype);
}

// --- helpers ---

pb::TensorProto tensor_proto(const Shape& shape, DType dtype, const std::vector<double>& values) {
  pb::TensorProto t;
  for (int64_t d : shape) t.add_dims(d);
  t.set_data_type(onnx_elem_type(dtype));
  t.set_raw_data(raw_bytes(values, dtype));
  return t;
}

void set_value_info(pb::ValueInfoProto* info, const std::string& name, const VarDesc& desc,
                    DimStyle style) {
  info->set_name(name);
  pb::TypeProto* type = info->mutable_type();
  if (desc.kind == VarKind::kTensorArray) {
    type->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
        onnx_elem_type(desc.dtype));
    return;
  }
  pb::TypeProto::Tensor* tensor = type->mutable_tensor_type();
  tensor->set_elem_type(onnx_elem_type(desc.dtype));
  pb::TensorShapeProto* shape = tensor->mutable_shape();
  for (int i = 0; i < desc.shape.rank(); ++i) {
    pb::TensorShapeProto::Dimension* dim = shape->add_dim();
    if (style == DimStyle::kRankOnly) continue;
    if (desc.shape[i] >= 0) {
      dim->set_dim_value(desc.shape[i]);
    } else {
      dim->set_dim_param(name + "_dim" + std::to_string(i));
    }
  }
}

std::vector<std::string> outer_writes(const Program& program, int block_idx) {
  // Blocks nested in block_idx declare inner variables too.
  std::set<int> inner{block_idx};
  for (bool grew = true; grew;) {
    grew = false;
    for (const Block& b : program.blocks())
      if (!inner.count(b.idx) && inner.count(b.parent_idx)) grew = inner.insert(b.idx).second;
  }
  auto is_inner = [&](const std::string& n) {
    for (int b : inner)
      if (program.block(b).find_local_var(n)) return true;
    return false;
  };
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::function<void(int)> walk = [&](int b) {
    for (const OpDesc& op : program.block(b).ops) {
      for (const std::string& n : op.output_names())
        if (!n.empty() && !is_inner(n) && !is_scope_var(program, n) && seen.insert(n).second)
          out.push_back(n);
      for (int32_t sub : op.sub_blocks()) walk(sub);
    }
  };
  walk(block_idx);
  return out;
}

std::vector<std::string> op_writes(const Program& program, const OpDesc& op) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& n : op.output_names())
    if (!n.empty() && !is_scope_var(program, n) && seen.insert(n).second) out.push_back(n);
  for (int32_t sub : op.sub_blocks())
    for (const std::string& n : outer_writes(program, sub))
      if (seen.insert(n).second) out.push_back(n);
  return out;
}

}  // namespace skiff::onnx_export
