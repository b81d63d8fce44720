// The only file that sees the generated protobuf classes: converts proto::Program
// to and from skiff::Program, checking every value a later stage relies on.
#include "skiff/ir/serialize.h"

#include <google/protobuf/stubs/logging.h>

#include <climits>
#include <cstdint>
#include <set>

#include "skiff.pb.h"
#include "skiff/ir/file_io.h"

namespace skiff {

namespace {

constexpr size_t kMagicSize = sizeof(kProgramMagic) - 1;
constexpr size_t kHeaderSize = kMagicSize + 4 + 8;  // magic, version, data length
constexpr int kLastAttrType = static_cast<int>(AttrType::kBlocks);
constexpr int kLastVarKind = static_cast<int>(VarKind::kSelectedRows);

void put_little_endian(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t get_little_endian(const std::string& in, size_t pos, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value |= static_cast<uint64_t>(static_cast<unsigned char>(in[pos + i])) << (8 * i);
  }
  return value;
}

// ---- skiff::Program -> proto ------------------------------------------------------

void attr_to_proto(const std::string& name, const Attr& value, proto::Attr* out) {
  out->set_name(name);
  out->set_type(static_cast<int>(attr_type(value)));
  switch (attr_type(value)) {
    case AttrType::kInt:
      out->set_i(std::get<int64_t>(value));
      break;
    case AttrType::kFloat:
      out->set_f(std::get<double>(value));
      break;
    case AttrType::kString:
      out->set_s(std::get<std::string>(value));
      break;
    case AttrType::kBool:
      out->set_b(std::get<bool>(value));
      break;
    case AttrType::kInts:
      for (int64_t v : std::get<std::vector<int64_t>>(value)) out->add_ints(v);
      break;
    case AttrType::kFloats:
      for (double v : std::get<std::vector<double>>(value)) out->add_floats(v);
      break;
    case AttrType::kStrings:
      for (const auto& v : std::get<std::vector<std::string>>(value)) out->add_strings(v);
      break;
    case AttrType::kBlock:
      out->set_block(std::get<BlockRef>(value).idx);
      break;
    case AttrType::kBlocks:
      for (int32_t v : std::get<BlockRefs>(value).idx) out->add_blocks(v);
      break;
  }
}

void slots_to_proto(const std::vector<Slot>& slots,
                    google::protobuf::RepeatedPtrField<proto::Slot>* out) {
  for (const auto& [name, vars] : slots) {
    proto::Slot* s = out->Add();
    s->set_name(name);
    for (const auto& v : vars) s->add_vars(v);
  }
}

void block_to_proto(const Block& block, proto::Block* out) {
  out->set_idx(block.idx);
  out->set_parent_idx(block.parent_idx);
  for (const auto& [name, var] : block.vars) {
    proto::VarDesc* v = out->add_vars();
    v->set_name(var.name);
    v->set_kind(static_cast<int>(var.kind));
    v->set_dtype(static_cast<int>(var.dtype));
    for (int64_t d : var.shape) v->add_shape(d);
    v->set_persistable(var.persistable);
    v->set_stop_gradient(var.stop_gradient);
  }
  for (const OpDesc& op : block.ops) {
    proto::OpDesc* o = out->add_ops();
    o->set_type(op.type);
    slots_to_proto(op.inputs, o->mutable_inputs());
    slots_to_proto(op.outputs, o->mutable_outputs());
    for (const auto& [name, value] : op.attrs.items()) attr_to_proto(name, value, o->add_attrs());
  }
}

// ---- proto -> skiff::Program, checked ----------------------------------------------

// What a field of the proto Attr holds that its declared type does not use, or
// nullptr. Such a value means a corrupt or hand-forged file.
const char* stray_attr_value(const proto::Attr& a, AttrType type) {
  if (type != AttrType::kInt && a.i() != 0) return "an int";
  if (type != AttrType::kFloat && a.f() != 0) return "a float";
  if (type != AttrType::kString && !a.s().empty()) return "a string";
  if (type != AttrType::kBool && a.b()) return "a bool";
  if (type != AttrType::kInts && a.ints_size() > 0) return "an ints";
  if (type != AttrType::kFloats && a.floats_size() > 0) return "a floats";
  if (type != AttrType::kStrings && a.strings_size() > 0) return "a strings";
  if (type != AttrType::kBlock && a.block() != 0) return "a block";
  if (type != AttrType::kBlocks && a.blocks_size() > 0) return "a blocks";
  return nullptr;
}

void check_block_index(int32_t idx, int num_blocks, const std::string& where,
                       const std::string& name) {
  SKIFF_CHECK(idx >= 0 && idx < num_blocks, where, ": attribute '", name, "' refers to block ", idx,
              ", but the program has ", num_blocks, " blocks");
}

Attr attr_from_proto(const proto::Attr& a, int num_blocks, const std::string& where) {
  SKIFF_CHECK(!a.name().empty(), where, ": an attribute has no name");
  SKIFF_CHECK(a.type() >= 0 && a.type() <= kLastAttrType, where, ": attribute '", a.name(),
              "' has unknown type number ", a.type());
  const AttrType type = static_cast<AttrType>(a.type());
  if (const char* stray = stray_attr_value(a, type)) {
    fail(where, ": attribute '", a.name(), "' has type ", attr_type_name(type), " but holds ",
         stray, " value");
  }
  switch (type) {
    case AttrType::kInt:
      return a.i();
    case AttrType::kFloat:
      return a.f();
    case AttrType::kString:
      return a.s();
    case AttrType::kBool:
      return a.b();
    case AttrType::kInts:
      return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case AttrType::kFloats:
      return std::vector<double>(a.floats().begin(), a.floats().end());
    case AttrType::kStrings:
      return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case AttrType::kBlock:
      check_block_index(a.block(), num_blocks, where, a.name());
      return BlockRef{a.block()};
    case AttrType::kBlocks: {
      BlockRefs refs;
      for (int32_t idx : a.blocks()) {
        check_block_index(idx, num_blocks, where, a.name());
        refs.idx.push_back(idx);
      }
      return refs;
    }
  }
  fail(where, ": attribute '", a.name(), "' has unknown type number ", a.type());
}

std::vector<Slot> slots_from_proto(const google::protobuf::RepeatedPtrField<proto::Slot>& slots,
                                   const char* direction, const std::string& where) {
  std::vector<Slot> out;
  std::set<std::string> seen;
  for (const proto::Slot& s : slots) {
    SKIFF_CHECK(!s.name().empty(), where, ": an ", direction, " slot has no name");
    SKIFF_CHECK(seen.insert(s.name()).second, where, ": ", direction, " slot '", s.name(),
                "' appears twice");
    out.emplace_back(s.name(), std::vector<std::string>(s.vars().begin(), s.vars().end()));
  }
  return out;
}

VarDesc var_from_proto(const proto::VarDesc& v, const std::string& where) {
  SKIFF_CHECK(!v.name().empty(), where, ": a variable has no name");
  SKIFF_CHECK(v.kind() >= 0 && v.kind() <= kLastVarKind, where, ", variable '", v.name(),
              "': unknown kind number ", v.kind());
  SKIFF_CHECK(is_dtype_number(v.dtype()), where, ", variable '", v.name(),
              "': unknown dtype number ", v.dtype());
  SKIFF_CHECK(v.shape_size() <= Shape::kMaxRank, where, ", variable '", v.name(), "': rank ",
              v.shape_size(), " is above the supported ", Shape::kMaxRank);
  VarDesc var;
  var.name = v.name();
  var.kind = static_cast<VarKind>(v.kind());
  var.dtype = static_cast<DType>(v.dtype());
  for (int64_t d : v.shape()) {
    SKIFF_CHECK(d >= -1, where, ", variable '", v.name(), "': dim ", d,
                " is invalid (dims are >= 0, or -1 for unknown)");
    var.shape.push_back(d);
  }
  var.persistable = v.persistable();
  var.stop_gradient = v.stop_gradient();
  return var;
}

Block block_from_proto(const proto::Block& pb, int position, int num_blocks) {
  const std::string where = str_cat("block ", position);
  SKIFF_CHECK(pb.idx() == position, where, " says it is block ", pb.idx(),
              " (blocks must be numbered by position)");
  SKIFF_CHECK(pb.parent_idx() >= -1 && pb.parent_idx() < num_blocks, where, ": parent block ",
              pb.parent_idx(), " does not exist (the program has ", num_blocks, " blocks)");
  Block block;
  block.idx = pb.idx();
  block.parent_idx = pb.parent_idx();
  for (const proto::VarDesc& v : pb.vars()) {
    VarDesc var = var_from_proto(v, where);
    SKIFF_CHECK(!block.vars.count(var.name), where, ": variable '", var.name,
                "' is declared twice");
    block.vars.emplace(var.name, std::move(var));
  }
  for (int i = 0; i < pb.ops_size(); ++i) {
    const proto::OpDesc& po = pb.ops(i);
    const std::string op_where = str_cat(where, ", op ", i, " (", po.type(), ")");
    SKIFF_CHECK(!po.type().empty(), where, ", op ", i, ": the op has no type");
    OpDesc op(po.type());
    op.inputs = slots_from_proto(po.inputs(), "input", op_where);
    op.outputs = slots_from_proto(po.outputs(), "output", op_where);
    for (const proto::Attr& a : po.attrs()) {
      SKIFF_CHECK(!op.attrs.has(a.name()), op_where, ": attribute '", a.name(), "' appears twice");
      op.attrs.set(a.name(), attr_from_proto(a, num_blocks, op_where));
    }
    block.ops.push_back(std::move(op));
  }
  return block;
}

Program program_from_proto(const proto::Program& pp) {
  SKIFF_CHECK(pp.blocks_size() > 0, "the program has no blocks (block 0 is required)");
  const int num_blocks = pp.blocks_size();
  Program program;
  program.version = pp.version();
  std::vector<Block>& blocks = program.blocks();
  blocks.clear();
  for (int i = 0; i < num_blocks; ++i)
    blocks.push_back(block_from_proto(pp.blocks(i), i, num_blocks));
  program.feed_names.assign(pp.feed_names().begin(), pp.feed_names().end());
  program.fetch_names.assign(pp.fetch_names().begin(), pp.fetch_names().end());
  return program;
}

}  // namespace

std::string program_to_bytes(const Program& program) {
  proto::Program pp;
  pp.set_version(program.version);
  for (const Block& b : program.blocks()) block_to_proto(b, pp.add_blocks());
  for (const std::string& n : program.feed_names) pp.add_feed_names(n);
  for (const std::string& n : program.fetch_names) pp.add_fetch_names(n);
  std::string data;
  SKIFF_CHECK(pp.SerializeToString(&data), "cannot encode the program (", pp.ByteSizeLong(),
              " bytes; protobuf messages are limited to 2 GiB)");
  std::string out(kProgramMagic, kMagicSize);
  put_little_endian(&out, static_cast<uint32_t>(program.version), 4);
  put_little_endian(&out, data.size(), 8);
  return out + data;
}

Program program_from_bytes(const std::string& bytes) {
  SKIFF_CHECK(bytes.size() >= kMagicSize && bytes.compare(0, kMagicSize, kProgramMagic) == 0,
              "not a skiff program file (it does not start with \"", kProgramMagic, "\")");
  SKIFF_CHECK(bytes.size() >= kHeaderSize, "the program file is truncated: ", bytes.size(),
              " bytes, shorter than its ", kHeaderSize, "-byte header");
  const uint64_t version = get_little_endian(bytes, kMagicSize, 4);
  SKIFF_CHECK(version == static_cast<uint64_t>(kProgramVersion),
              "the program file was written by format version ", version,
              ", this skiff reads version ", kProgramVersion);
  const uint64_t announced = get_little_endian(bytes, kMagicSize + 4, 8);
  const uint64_t present = bytes.size() - kHeaderSize;
  SKIFF_CHECK(present >= announced, "the program file is truncated: its header announces ",
              announced, " bytes of program data, the file holds ", present);
  SKIFF_CHECK(present == announced, "the program file has ", present - announced,
              " unexpected bytes after its program data");
  SKIFF_CHECK(announced <= static_cast<uint64_t>(INT_MAX), "the program data (", announced,
              " bytes) is larger than the 2 GiB a program may hold");

  proto::Program pp;
  bool parsed;
  {
    // Protobuf logs malformed strings to stderr; the error below says it all.
    google::protobuf::LogSilencer quiet;
    parsed = pp.ParseFromArray(bytes.data() + kHeaderSize, static_cast<int>(announced));
  }
  SKIFF_CHECK(parsed, "the program data is corrupt (it does not decode as a skiff program)");
  SKIFF_CHECK(pp.version() == static_cast<int32_t>(version),
              "the program file header says format version ", version,
              " but its program data says ", pp.version());
  try {
    return program_from_proto(pp);
  } catch (const Error& e) {
    fail("invalid program data: ", e.what());
  }
}

void save_program(const Program& program, const std::string& path) {
  write_file_atomically(path, program_to_bytes(program));
}

Program load_program(const std::string& path) {
  std::string bytes = read_file(path);
  try {
    return program_from_bytes(bytes);
  } catch (const Error& e) {
    fail("cannot load program '", path, "': ", e.what());
  }
}

}  // namespace skiff
