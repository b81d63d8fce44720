// Programs from Python (ir/program.h, with ops/shape_context.h for build-time shape
// inference): skiff._C.Program is edited by block index, so no Python object holds
// a reference into the C++ block list; VarDesc and OpDesc come back as copies.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>

#include "python/src/attr_convert.h"
#include "python/src/bindings.h"
#include "python/src/program_handle.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff::python {

namespace {

Block& block_of(ProgramHandle& p, int idx) {
  SKIFF_CHECK(idx >= 0 && idx < p.ir->num_blocks(), "block ", idx,
              " does not exist (the program has ", p.ir->num_blocks(), " blocks)");
  return p.ir->block(idx);
}

VarKind kind_from_name(const std::string& name) {
  for (VarKind k : {VarKind::kDenseTensor, VarKind::kTensorArray, VarKind::kStepScopes,
                    VarKind::kSelectedRows}) {
    if (name == var_kind_name(k)) return k;
  }
  fail("unknown variable kind '", name, "' (tensor, tensor_array, step_scopes, selected_rows)");
}

Shape shape_from_list(const std::vector<int64_t>& dims) {
  SKIFF_CHECK(dims.size() <= static_cast<size_t>(Shape::kMaxRank), "a shape has at most ",
              Shape::kMaxRank, " dims, got ", dims.size());
  Shape s;
  for (int64_t d : dims) {
    SKIFF_CHECK(d >= -1, "dims are sizes or -1 (unknown), got ", d);
    s.push_back(d);
  }
  return s;
}

// Slots from a dict {slot: [names]} checked against the op's schema.
std::vector<Slot> slots_from_dict(const std::string& type, const std::vector<SlotSchema>& schema,
                                  nb::dict slots, const char* what) {
  std::vector<Slot> out;
  for (auto [key, value] : slots) {
    std::string name = nb::cast<std::string>(key);
    bool known = false;
    for (const SlotSchema& s : schema) known = known || s.name == name;
    if (!known) {
      std::string all;
      for (const SlotSchema& s : schema) all += (all.empty() ? "" : ", ") + s.name;
      fail("op '", type, "' has no ", what, " slot '", name,
           "' (it has: ", all.empty() ? "none" : all, ")");
    }
    out.emplace_back(name, nb::cast<std::vector<std::string>>(value));
  }
  return out;
}

nb::list slots_to_python(const std::vector<Slot>& slots) {
  nb::list out;
  for (const auto& [name, vars] : slots) out.append(nb::make_tuple(name, vars));
  return out;
}

}  // namespace

void define_program(nb::module_& m) {
  nb::class_<VarDesc>(m, "VarDesc", "A variable declaration (a copy; edit through Program).")
      .def_ro("name", &VarDesc::name)
      .def_prop_ro("dtype", [](const VarDesc& v) { return std::string(dtype_name(v.dtype)); })
      .def_prop_ro("shape", [](const VarDesc& v) { return v.shape.vec(); })
      .def_prop_ro("kind", [](const VarDesc& v) { return std::string(var_kind_name(v.kind)); })
      .def_ro("persistable", &VarDesc::persistable)
      .def_ro("stop_gradient", &VarDesc::stop_gradient);

  nb::class_<OpDesc>(m, "OpDesc", "An op of a block (a copy; edit through Program).")
      .def_ro("type", &OpDesc::type)
      .def_prop_ro("inputs", [](const OpDesc& op) { return slots_to_python(op.inputs); })
      .def_prop_ro("outputs", [](const OpDesc& op) { return slots_to_python(op.outputs); })
      .def("input", &OpDesc::input, nb::arg("slot"))
      .def("output", &OpDesc::output, nb::arg("slot"))
      .def_prop_ro("input_names", &OpDesc::input_names)
      .def_prop_ro("output_names", &OpDesc::output_names)
      .def_prop_ro("attr_names",
                   [](const OpDesc& op) {
                     std::vector<std::string> names;
                     for (const auto& item : op.attrs.items()) names.push_back(item.first);
                     return names;
                   })
      .def("has_attr", [](const OpDesc& op, const std::string& n) { return op.attrs.has(n); })
      .def(
          "attr",
          [](const OpDesc& op, const std::string& n) {
            const Attr* a = op.attrs.find(n);
            SKIFF_CHECK(a, "op '", op.type, "' has no attribute '", n, "'");
            return attr_to_python(*a);
          },
          nb::arg("name"))
      .def_prop_ro("source", &OpDesc::source)
      .def_prop_ro("sub_blocks", &OpDesc::sub_blocks);

  nb::class_<ProgramHandle>(m, "Program", "A program under construction or loaded from a file.")
      .def(nb::init<>())
      .def("clone", [](const ProgramHandle& p) { return ProgramHandle(*p.ir); })
      .def_ro("revision", &ProgramHandle::revision, "Changes with every edit.")
      .def_prop_ro("num_blocks", [](const ProgramHandle& p) { return p.ir->num_blocks(); })
      .def(
          "add_block",
          [](ProgramHandle& p, int parent) {
            block_of(p, parent);
            p.touched();
            return p.ir->add_block(parent).idx;
          },
          nb::arg("parent_idx"), "Appends an empty block under `parent_idx`; returns its index.")
      .def(
          "parent_idx", [](ProgramHandle& p, int b) { return block_of(p, b).parent_idx; },
          nb::arg("block"))
      .def(
          "add_var",
          [](ProgramHandle& p, int b, const std::string& name, const std::string& dtype,
             const std::vector<int64_t>& shape, bool persistable, bool stop_gradient,
             const std::string& kind) {
            Block& block = block_of(p, b);
            SKIFF_CHECK(!name.empty(), "a variable needs a name");
            SKIFF_CHECK(!block.find_local_var(name), "block ", b, " already declares '", name, "'");
            VarDesc v(name, dtype_from_name(dtype), shape_from_list(shape), kind_from_name(kind));
            v.persistable = persistable;
            v.stop_gradient = stop_gradient;
            block.add_var(v);
            p.touched();
          },
          nb::arg("block"), nb::arg("name"), nb::arg("dtype"), nb::arg("shape"),
          nb::arg("persistable") = false, nb::arg("stop_gradient") = false,
          nb::arg("kind") = "tensor")
      .def(
          "var",
          [](ProgramHandle& p, int b, const std::string& name) -> nb::object {
            block_of(p, b);
            const VarDesc* v = p.ir->find_var(b, name);
            return v ? nb::cast(*v) : nb::none();
          },
          nb::arg("block"), nb::arg("name"),
          "The declaration of `name` seen from block `block` (or its ancestors), or None.")
      .def(
          "var_block",
          [](ProgramHandle& p, int b, const std::string& name) {
            for (int at = b; at >= 0; at = block_of(p, at).parent_idx)
              if (block_of(p, at).find_local_var(name)) return at;
            return -1;
          },
          nb::arg("block"), nb::arg("name"),
          "The block declaring `name` as seen from `block`, or -1.")
      .def(
          "has_var_anywhere",
          [](ProgramHandle& p, const std::string& name) {
            for (const Block& b : p.ir->blocks())
              if (b.find_local_var(name)) return true;
            return false;
          },
          nb::arg("name"))
      .def(
          "var_names",
          [](ProgramHandle& p, int b) {
            std::vector<std::string> names;
            for (const auto& item : block_of(p, b).vars) names.push_back(item.first);
            return names;
          },
          nb::arg("block"), "Names declared in the block itself, sorted.")
      .def(
          "set_var",
          [](ProgramHandle& p, int b, const std::string& name, nb::handle persistable,
             nb::handle stop_gradient, nb::handle shape) {
            block_of(p, b);
            VarDesc* v = p.ir->find_var(b, name);
            SKIFF_CHECK(v, "block ", b, " sees no variable '", name, "'");
            if (!persistable.is_none()) v->persistable = nb::cast<bool>(persistable);
            if (!stop_gradient.is_none()) v->stop_gradient = nb::cast<bool>(stop_gradient);
            if (!shape.is_none()) v->shape = shape_from_list(nb::cast<std::vector<int64_t>>(shape));
            p.touched();
          },
          nb::arg("block"), nb::arg("name"), nb::arg("persistable").none() = nb::none(),
          nb::arg("stop_gradient").none() = nb::none(), nb::arg("shape").none() = nb::none())
      .def(
          "append_op",
          [](ProgramHandle& p, int b, const std::string& type, nb::dict inputs, nb::dict outputs,
             nb::handle attrs, const std::string& source) {
            block_of(p, b);
            const OpSchema& schema = OpRegistry::global().get(type).schema;
            OpDesc op(type);
            op.inputs = slots_from_dict(type, schema.inputs, inputs, "input");
            op.outputs = slots_from_dict(type, schema.outputs, outputs, "output");
            op.attrs = attrs_from_dict(type, attrs);
            if (!source.empty()) op.set_attr(kSourceAttr, source);
            fill_default_attrs(op);
            infer_op_shape(*p.ir, b, op);
            Block& block = p.ir->block(b);
            block.ops.push_back(std::move(op));
            p.touched();
            return block.ops.size() - 1;
          },
          nb::arg("block"), nb::arg("type"), nb::arg("inputs"), nb::arg("outputs"),
          nb::arg("attrs").none() = nb::none(), nb::arg("source") = "",
          "Appends an op (attrs converted by the schema, defaults filled, output shapes "
          "inferred and declared); returns its index. Errors name the op and `source`.")
      .def(
          "num_ops", [](ProgramHandle& p, int b) { return block_of(p, b).ops.size(); },
          nb::arg("block"))
      .def(
          "op",
          [](ProgramHandle& p, int b, size_t i) {
            Block& block = block_of(p, b);
            SKIFF_CHECK(i < block.ops.size(), "block ", b, " has ", block.ops.size(),
                        " ops, no op ", i);
            return block.ops[i];
          },
          nb::arg("block"), nb::arg("index"))
      .def(
          "set_op_attr",
          [](ProgramHandle& p, int b, size_t i, const std::string& name, nb::handle value) {
            Block& block = block_of(p, b);
            SKIFF_CHECK(i < block.ops.size(), "block ", b, " has no op ", i);
            OpDesc& op = block.ops[i];
            const AttrSchema* a = OpRegistry::global().get(op.type).schema.find_attr(name);
            SKIFF_CHECK(a, "op '", op.type, "' has no attribute '", name, "'");
            op.set_attr(name, attr_from_python(op.type, *a, value));
            p.touched();
          },
          nb::arg("block"), nb::arg("index"), nb::arg("name"), nb::arg("value"))
      .def(
          "remove_ops",
          [](ProgramHandle& p, int b, std::vector<size_t> indices) {
            auto& ops = block_of(p, b).ops;
            std::sort(indices.begin(), indices.end());
            indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
            for (auto it = indices.rbegin(); it != indices.rend(); ++it) {
              SKIFF_CHECK(*it < ops.size(), "block ", b, " has no op ", *it);
              ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(*it));
            }
            p.touched();
          },
          nb::arg("block"), nb::arg("indices"), "Removes the ops at `indices` from the block.")
      .def(
          "remove_var",
          [](ProgramHandle& p, int b, const std::string& name) {
            SKIFF_CHECK(block_of(p, b).vars.erase(name) == 1, "block ", b, " declares no '", name,
                        "'");
            p.touched();
          },
          nb::arg("block"), nb::arg("name"))
      .def(
          "infer_shapes", [](ProgramHandle& p, int b) { infer_block_shapes(*p.ir, b); },
          nb::arg("block"), "Re-runs shape inference over the block's ops in order.")
      .def_prop_rw(
          "feed_names", [](const ProgramHandle& p) { return p.ir->feed_names; },
          [](ProgramHandle& p, std::vector<std::string> names) {
            p.ir->feed_names = std::move(names);
            p.touched();
          })
      .def_prop_rw(
          "fetch_names", [](const ProgramHandle& p) { return p.ir->fetch_names; },
          [](ProgramHandle& p, std::vector<std::string> names) {
            p.ir->fetch_names = std::move(names);
            p.touched();
          });
}

}  // namespace skiff::python
