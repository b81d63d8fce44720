// The program IR: a Program is a list of Blocks; block 0 is global and every other
// block names its parent (the block of the op that runs it: `while`, `conditional_block`).
// A Block holds Ops (type, named input/output slots of variable names, typed attrs)
// and the VarDescs it declares. The serialized form is proto/skiff.proto; these
// structs are its in-memory twin, so protobuf headers stay out of the rest of skiff.
//
//   Program p;                         // has block 0
//   Block& b = p.block(0);
//   b.add_var(VarDesc("x", DType::kF32, Shape{-1, 16}));
//   OpDesc& op = b.append_op("tanh"); op.set_input("X", {"x"}); op.set_output("Out", {"y"});
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "skiff/core/dtype.h"
#include "skiff/core/shape.h"
#include "skiff/ir/attr.h"

namespace skiff {

// Numbering is part of the file format (proto VarDesc.kind): never renumber.
enum class VarKind : int { kDenseTensor = 0, kTensorArray = 1, kStepScopes = 2, kSelectedRows = 3 };
const char* var_kind_name(VarKind k);

// The format version written into files; files of another version are rejected.
constexpr int kProgramVersion = 1;
// Attribute holding "file:line" of the frontend code that created an op.
inline constexpr const char* kSourceAttr = "op_source";
// Suffix of a gradient variable's name: the gradient of "w" is "w@GRAD".
inline constexpr const char* kGradSuffix = "@GRAD";
inline std::string grad_name(const std::string& var) { return var + kGradSuffix; }

struct VarDesc {
  VarDesc() = default;
  VarDesc(std::string name, DType dtype, Shape shape, VarKind kind = VarKind::kDenseTensor)
      : name(std::move(name)), kind(kind), dtype(dtype), shape(shape) {}

  std::string name;
  VarKind kind = VarKind::kDenseTensor;
  DType dtype = DType::kF32;
  Shape shape;               // -1 for dims unknown before run time
  bool persistable = false;  // parameters and optimizer state: live in the outer scope
  bool stop_gradient = false;
  bool operator==(const VarDesc& o) const {
    return name == o.name && kind == o.kind && dtype == o.dtype && shape == o.shape &&
           persistable == o.persistable && stop_gradient == o.stop_gradient;
  }
};

// One slot: a name ("X") and the variables it holds, in order.
using Slot = std::pair<std::string, std::vector<std::string>>;

struct OpDesc {
  OpDesc() = default;
  explicit OpDesc(std::string type) : type(std::move(type)) {}

  std::string type;
  std::vector<Slot> inputs;
  std::vector<Slot> outputs;
  AttrMap attrs;

  // The variables of a slot; empty when the op has no such slot.
  const std::vector<std::string>& input(const std::string& slot) const;
  const std::vector<std::string>& output(const std::string& slot) const;
  // The first variable of a slot, or "" when absent.
  std::string first_input(const std::string& slot) const;
  std::string first_output(const std::string& slot) const;
  OpDesc& set_input(const std::string& slot, std::vector<std::string> vars);
  OpDesc& set_output(const std::string& slot, std::vector<std::string> vars);
  OpDesc& set_attr(const std::string& name, Attr value) {
    attrs.set(name, std::move(value));
    return *this;
  }
  // All input (or output) variable names, slot after slot.
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;
  // Renames every use of `from` among inputs (or outputs).
  void rename_input(const std::string& from, const std::string& to);
  void rename_output(const std::string& from, const std::string& to);
  // "file:line" of the creating frontend code, or "".
  std::string source() const;
  // Indices of the blocks its attrs reference (the sub-blocks it runs), in attr order.
  std::vector<int32_t> sub_blocks() const;

  // Inline so that a literal `name` folds into the search (attr.h, name_is): kernels read
  // their attributes on every call.
  template <typename T>
  [[gnu::always_inline]] T attr(const char* name) const {
    const Attr* a = attrs.find(name);
    SKIFF_CHECK(a, "op ", type, ": missing attribute '", name, "'");
    return attr_as<T>(*a, name);
  }
  template <typename T>
  T attr(const std::string& name) const {
    return attr<T>(name.c_str());
  }
  // The attr's stored value without a copy; T must be its exact type (e.g.
  // std::vector<int64_t> for ints), as kernels on hot paths want.
  template <typename T>
  [[gnu::always_inline]] const T& attr_ref(const char* name) const {
    const Attr* a = attrs.find(name);
    SKIFF_CHECK(a, "op ", type, ": missing attribute '", name, "'");
    const T* v = std::get_if<T>(a);
    SKIFF_CHECK(v, "op ", type, ": attribute '", name, "' has type ",
                attr_type_name(attr_type(*a)));
    return *v;
  }
  template <typename T>
  T attr_or(const std::string& name, T fallback) const {
    const Attr* a = attrs.find(name);
    return a ? attr_as<T>(*a, name.c_str()) : fallback;
  }
  bool operator==(const OpDesc& o) const {
    return type == o.type && inputs == o.inputs && outputs == o.outputs && attrs == o.attrs;
  }
};

struct Block {
  int idx = 0;
  int parent_idx = -1;  // -1 for the global block
  std::vector<OpDesc> ops;
  std::map<std::string, VarDesc> vars;

  OpDesc& append_op(const std::string& type);
  VarDesc& add_var(VarDesc var);
  // The VarDesc declared in this block (not its ancestors), or nullptr.
  const VarDesc* find_local_var(const std::string& name) const;
  VarDesc* find_local_var(const std::string& name);
  bool operator==(const Block& o) const {
    return idx == o.idx && parent_idx == o.parent_idx && ops == o.ops && vars == o.vars;
  }
};

class Program {
 public:
  // A program with an empty global block.
  Program();

  int num_blocks() const { return static_cast<int>(blocks_.size()); }
  Block& block(int idx);
  const Block& block(int idx) const;
  Block& global_block() { return blocks_[0]; }
  const Block& global_block() const { return blocks_[0]; }
  // Appends an empty block whose parent is `parent_idx`; returns it. The reference
  // is invalidated by the next add_block: keep the index.
  Block& add_block(int parent_idx);
  // The VarDesc of `name` as seen from block `idx` (the block, then its ancestors).
  const VarDesc* find_var(int block_idx, const std::string& name) const;
  VarDesc* find_var(int block_idx, const std::string& name);

  int version = kProgramVersion;
  // Variables of block 0 a caller feeds and fetches, when the program records them
  // (saved inference programs); empty otherwise.
  std::vector<std::string> feed_names;
  std::vector<std::string> fetch_names;
  bool operator==(const Program& o) const {
    return version == o.version && blocks_ == o.blocks_ && feed_names == o.feed_names &&
           fetch_names == o.fetch_names;
  }

  // Raw access for the loader; it rebuilds the list as read from a file.
  std::vector<Block>& blocks() { return blocks_; }
  const std::vector<Block>& blocks() const { return blocks_; }

 private:
  std::vector<Block> blocks_;
};

}  // namespace skiff
