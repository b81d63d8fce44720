#include "skiff/ir/program.h"

#include <algorithm>

namespace skiff {

const char* var_kind_name(VarKind k) {
  switch (k) {
    case VarKind::kDenseTensor:
      return "tensor";
    case VarKind::kTensorArray:
      return "tensor_array";
    case VarKind::kStepScopes:
      return "step_scopes";
    case VarKind::kSelectedRows:
      return "selected_rows";
  }
  return "unknown";
}

namespace {

const std::vector<std::string>& slot_vars(const std::vector<Slot>& slots, const std::string& name) {
  static const std::vector<std::string> kNone;
  for (const auto& s : slots)
    if (s.first == name) return s.second;
  return kNone;
}

void set_slot(std::vector<Slot>& slots, const std::string& name, std::vector<std::string> vars) {
  for (auto& s : slots) {
    if (s.first == name) {
      s.second = std::move(vars);
      return;
    }
  }
  slots.emplace_back(name, std::move(vars));
}

std::vector<std::string> all_names(const std::vector<Slot>& slots) {
  std::vector<std::string> out;
  for (const auto& s : slots) out.insert(out.end(), s.second.begin(), s.second.end());
  return out;
}

void rename_in(std::vector<Slot>& slots, const std::string& from, const std::string& to) {
  for (auto& s : slots) std::replace(s.second.begin(), s.second.end(), from, to);
}

}  // namespace

const std::vector<std::string>& OpDesc::input(const std::string& slot) const {
  return slot_vars(inputs, slot);
}
const std::vector<std::string>& OpDesc::output(const std::string& slot) const {
  return slot_vars(outputs, slot);
}
std::string OpDesc::first_input(const std::string& slot) const {
  const auto& v = input(slot);
  return v.empty() ? "" : v[0];
}
std::string OpDesc::first_output(const std::string& slot) const {
  const auto& v = output(slot);
  return v.empty() ? "" : v[0];
}
OpDesc& OpDesc::set_input(const std::string& slot, std::vector<std::string> vars) {
  set_slot(inputs, slot, std::move(vars));
  return *this;
}
OpDesc& OpDesc::set_output(const std::string& slot, std::vector<std::string> vars) {
  set_slot(outputs, slot, std::move(vars));
  return *this;
}
std::vector<std::string> OpDesc::input_names() const { return all_names(inputs); }
std::vector<std::string> OpDesc::output_names() const { return all_names(outputs); }
void OpDesc::rename_input(const std::string& from, const std::string& to) {
  rename_in(inputs, from, to);
}
void OpDesc::rename_output(const std::string& from, const std::string& to) {
  rename_in(outputs, from, to);
}
std::string OpDesc::source() const {
  const Attr* a = attrs.find(kSourceAttr);
  const std::string* s = a ? std::get_if<std::string>(a) : nullptr;
  return s ? *s : "";
}

std::vector<int32_t> OpDesc::sub_blocks() const {
  std::vector<int32_t> out;
  for (const auto& [name, value] : attrs.items()) {
    if (auto* b = std::get_if<BlockRef>(&value)) out.push_back(b->idx);
    if (auto* bs = std::get_if<BlockRefs>(&value))
      out.insert(out.end(), bs->idx.begin(), bs->idx.end());
  }
  return out;
}

OpDesc& Block::append_op(const std::string& type) {
  ops.emplace_back(type);
  return ops.back();
}

VarDesc& Block::add_var(VarDesc var) {
  std::string name = var.name;
  return vars[name] = std::move(var);
}

const VarDesc* Block::find_local_var(const std::string& name) const {
  auto it = vars.find(name);
  return it == vars.end() ? nullptr : &it->second;
}
VarDesc* Block::find_local_var(const std::string& name) {
  auto it = vars.find(name);
  return it == vars.end() ? nullptr : &it->second;
}

Program::Program() { blocks_.emplace_back(); }

Block& Program::block(int idx) {
  SKIFF_CHECK(idx >= 0 && idx < num_blocks(), "block index ", idx, " out of range (program has ",
              num_blocks(), " blocks)");
  return blocks_[idx];
}
const Block& Program::block(int idx) const {
  SKIFF_CHECK(idx >= 0 && idx < num_blocks(), "block index ", idx, " out of range (program has ",
              num_blocks(), " blocks)");
  return blocks_[idx];
}

Block& Program::add_block(int parent_idx) {
  SKIFF_CHECK(parent_idx >= 0 && parent_idx < num_blocks(), "add_block: bad parent ", parent_idx);
  Block b;
  b.idx = num_blocks();
  b.parent_idx = parent_idx;
  blocks_.push_back(std::move(b));
  return blocks_.back();
}

const VarDesc* Program::find_var(int block_idx, const std::string& name) const {
  // The hop limit guards against cyclic parents in unverified programs.
  for (int hops = 0; block_idx >= 0 && block_idx < num_blocks() && hops <= num_blocks(); ++hops) {
    const Block& b = blocks_[block_idx];
    if (const VarDesc* v = b.find_local_var(name)) return v;
    block_idx = b.parent_idx;
  }
  return nullptr;
}
VarDesc* Program::find_var(int block_idx, const std::string& name) {
  return const_cast<VarDesc*>(std::as_const(*this).find_var(block_idx, name));
}

}  // namespace skiff
