#include "fuzz/fuzz_programs.h"

#include <map>

#include "skiff/ir/serialize.h"

namespace skiff::fuzzing {

namespace {

constexpr size_t kHeaderSize = 8 + 4 + 8;  // magic, version, payload length

SlotSchema one(const char* name) { return SlotSchema{name, "", false, false}; }
SlotSchema many(const char* name) { return SlotSchema{name, "", true, false}; }
SlotSchema maybe(const char* name) { return SlotSchema{name, "", false, true}; }
AttrSchema attr(const char* name, Attr default_value) {
  return AttrSchema{name, attr_type(default_value), std::move(default_value), ""};
}
AttrSchema required(const char* name, AttrType type) {
  return AttrSchema{name, type, std::nullopt, ""};
}

std::map<std::string, OpSchema> make_schemas() {
  std::map<std::string, OpSchema> m;
  auto add = [&](OpSchema s) { m[s.type] = std::move(s); };
  add({"fill_constant",
       "",
       {},
       {one("Out")},
       {required("shape", AttrType::kInts), attr("value", 0.0), attr("dtype", std::string())}});
  add({"less_than", "", {one("X"), one("Y")}, {one("Out")}, {}});
  add({"logical_not", "", {one("X")}, {one("Out")}, {}});
  add({"matmul", "", {one("X"), one("Y")}, {one("Out")}, {attr("transpose_x", false)}});
  add({"tanh", "", {one("X")}, {one("Out")}, {}});
  add({"tanh_grad", "", {one("Out"), one("Out@GRAD")}, {one("X@GRAD")}, {}});
  add({"assign", "", {one("X")}, {one("Out")}, {}});
  add({"increment", "", {one("X")}, {one("Out")}, {attr("step", 1.0)}});
  add({"select_input", "", {many("X"), one("Mask")}, {one("Out")}, {}});
  add({"while",
       "",
       {many("X"), one("Condition")},
       {many("Out"), maybe("StepScopes")},
       {required("sub_block", AttrType::kBlock), attr("keep_step_scopes", false)}});
  add({"while_grad",
       "",
       {many("X"), many("Out"), many("Out@GRAD"), one("StepScopes")},
       {many("X@GRAD")},
       {required("sub_block", AttrType::kBlock)}});
  add({"conditional_block",
       "",
       {one("Cond"), many("Input")},
       {many("Out"), maybe("Scope")},
       {required("sub_block", AttrType::kBlock), attr("keep_step_scopes", false)}});
  add({"attr_zoo",
       "",
       {maybe("X")},
       {maybe("Out")},
       {attr("i", int64_t{0}), attr("f", 0.0), attr("s", std::string()), attr("b", false),
        attr("ints", std::vector<int64_t>{}), attr("floats", std::vector<double>{}),
        attr("strings", std::vector<std::string>{}), required("blocks", AttrType::kBlocks)}});
  return m;
}

VarDesc var(const char* name, DType dtype, Shape shape, VarKind kind = VarKind::kDenseTensor) {
  return VarDesc(name, dtype, shape, kind);
}

// The counter part of a loop: i += 1; c = i < n.
void loop_footer(Block& b) {
  b.append_op("increment").set_input("X", {"i"}).set_output("Out", {"i"}).set_attr("step", 1.0);
  b.append_op("less_than").set_input("X", {"i"}).set_input("Y", {"n"}).set_output("Out", {"c"});
}

void declare_loop_vars(Block& g) {
  g.add_var(var("x", DType::kF32, Shape{2, 3}));
  VarDesc w = var("w", DType::kF32, Shape{3, 3});
  w.persistable = true;
  g.add_var(w);
  g.add_var(var("i", DType::kI64, Shape{1}));
  g.add_var(var("n", DType::kI64, Shape{1}));
  g.add_var(var("c", DType::kBool, Shape{1}));
  g.add_var(var("scopes", DType::kF32, Shape{}, VarKind::kStepScopes));
}

// x = tanh(x w) while i < n, with (optionally) the grad op and its grad block.
Program loop_program(bool with_grad) {
  Program p;
  declare_loop_vars(p.global_block());
  p.global_block()
      .append_op("fill_constant")
      .set_output("Out", {"i"})
      .set_attr("shape", std::vector<int64_t>{1})
      .set_attr("dtype", std::string("int64"));
  p.global_block()
      .append_op("less_than")
      .set_input("X", {"i"})
      .set_input("Y", {"n"})
      .set_output("Out", {"c"});
  const int body = p.add_block(0).idx;
  p.block(body).add_var(var("h", DType::kF32, Shape{2, 3}));
  p.block(body)
      .append_op("matmul")
      .set_input("X", {"x"})
      .set_input("Y", {"w"})
      .set_output("Out", {"h"});
  p.block(body).append_op("tanh").set_input("X", {"h"}).set_output("Out", {"x"});
  loop_footer(p.block(body));
  p.global_block()
      .append_op("while")
      .set_input("X", {"x", "w", "i", "n"})
      .set_input("Condition", {"c"})
      .set_output("Out", {"x", "i", "c"})
      .set_output("StepScopes", {"scopes"})
      .set_attr("sub_block", BlockRef{body})
      .set_attr("keep_step_scopes", with_grad)
      .set_attr(kSourceAttr, std::string("model.py:3"));
  if (!with_grad) return p;
  p.global_block().add_var(var("x@GRAD", DType::kF32, Shape{2, 3}));
  const int grad = p.add_block(body).idx;
  p.block(grad).add_var(var("h@GRAD", DType::kF32, Shape{2, 3}));
  p.block(grad)
      .append_op("tanh_grad")
      .set_input("Out", {"x"})
      .set_input("Out@GRAD", {"x@GRAD"})
      .set_output("X@GRAD", {"h@GRAD"});
  p.global_block()
      .append_op("while_grad")
      .set_input("X", {"x", "w", "i", "n"})
      .set_input("Out", {"x", "i", "c"})
      .set_input("Out@GRAD", {"x@GRAD", "", ""})
      .set_input("StepScopes", {"scopes"})
      .set_output("X@GRAD", {"x@GRAD", "", "", ""})
      .set_attr("sub_block", BlockRef{grad});
  return p;
}

// if c: y = tanh(x) else: y = x, as two conditional_blocks and select_input.
Program branch_program() {
  Program p;
  Block& g = p.global_block();
  g.add_var(var("x", DType::kF64, Shape{-1}));
  g.add_var(var("c", DType::kBool, Shape{1}));
  g.add_var(var("not_c", DType::kBool, Shape{1}));
  g.add_var(var("yes", DType::kF64, Shape{-1}));
  g.add_var(var("no", DType::kF64, Shape{-1}));
  g.add_var(var("y", DType::kF64, Shape{-1}));
  g.add_var(var("s1", DType::kF32, Shape{}, VarKind::kStepScopes));
  g.add_var(var("s2", DType::kF32, Shape{}, VarKind::kStepScopes));
  const int yes = p.add_block(0).idx;
  p.block(yes).append_op("tanh").set_input("X", {"x"}).set_output("Out", {"yes"});
  const int no = p.add_block(0).idx;
  p.block(no).append_op("assign").set_input("X", {"x"}).set_output("Out", {"no"});
  Block& top = p.global_block();
  top.append_op("conditional_block")
      .set_input("Cond", {"c"})
      .set_input("Input", {"x"})
      .set_output("Out", {"yes"})
      .set_output("Scope", {"s1"})
      .set_attr("sub_block", BlockRef{yes});
  top.append_op("logical_not").set_input("X", {"c"}).set_output("Out", {"not_c"});
  top.append_op("conditional_block")
      .set_input("Cond", {"not_c"})
      .set_input("Input", {"x"})
      .set_output("Out", {"no"})
      .set_output("Scope", {"s2"})
      .set_attr("sub_block", BlockRef{no});
  top.append_op("select_input")
      .set_input("X", {"no", "yes"})
      .set_input("Mask", {"c"})
      .set_output("Out", {"y"});
  return p;
}

// One op carrying every attribute type, running two nested blocks.
Program attr_program() {
  Program p;
  p.global_block().add_var(var("ids", DType::kI32, Shape{-1, 1}));
  p.global_block().add_var(var("arr", DType::kF32, Shape{-1}, VarKind::kTensorArray));
  p.global_block().add_var(var("rows", DType::kF64, Shape{10, 2}, VarKind::kSelectedRows));
  const int a = p.add_block(0).idx;
  const int b = p.add_block(a).idx;
  p.global_block()
      .append_op("attr_zoo")
      .set_input("X", {"ids"})
      .set_output("Out", {"arr"})
      .set_attr("i", int64_t{-5})
      .set_attr("f", 2.5)
      .set_attr("s", std::string("text"))
      .set_attr("b", true)
      .set_attr("ints", std::vector<int64_t>{1, 2, 3})
      .set_attr("floats", std::vector<double>{0.5})
      .set_attr("strings", std::vector<std::string>{"x", "y"})
      .set_attr("blocks", BlockRefs{{a, b}});
  p.block(a).append_op("attr_zoo").set_input("X", {"ids"}).set_attr("blocks", BlockRefs{});
  return p;
}

}  // namespace

std::string input_to_file(const std::string& input) {
  if (input.empty()) return "";
  std::string data = input.substr(1);
  if ((input[0] & 1) == 0) return data;
  std::string file(kProgramMagic);
  for (int i = 0; i < 4; ++i)
    file.push_back(static_cast<char>((kProgramVersion >> (8 * i)) & 0xff));
  const uint64_t size = data.size();
  for (int i = 0; i < 8; ++i) file.push_back(static_cast<char>((size >> (8 * i)) & 0xff));
  return file + data;
}

std::string payload_input(const Program& program) {
  return "\x01" + program_to_bytes(program).substr(kHeaderSize);
}

const OpSchema* find_schema(const std::string& type) {
  static const std::map<std::string, OpSchema> schemas = make_schemas();
  auto it = schemas.find(type);
  return it == schemas.end() ? nullptr : &it->second;
}

std::vector<std::pair<std::string, Program>> seed_programs() {
  return {{"loop", loop_program(false)},
          {"loop_grad", loop_program(true)},
          {"branch", branch_program()},
          {"attrs", attr_program()}};
}

}  // namespace skiff::fuzzing
