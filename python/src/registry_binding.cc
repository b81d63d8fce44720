// The op registry as data: skiff._C.op_types(), skiff._C.op_schema(type) and
// skiff._C.op_traits(), from which the package checks calls, documents ops and reads
// what it would otherwise list by name (auto_cast's lists, ops that run sub-blocks).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/attr_convert.h"
#include "python/src/bindings.h"
#include "skiff/ops/registry.h"

namespace skiff::python {

namespace {

nb::list slots_of(const std::vector<SlotSchema>& slots) {
  nb::list out;
  for (const SlotSchema& s : slots) {
    nb::dict d;
    d["name"] = s.name;
    d["duplicable"] = s.duplicable;
    d["optional"] = s.optional;
    d["doc"] = s.doc;
    out.append(d);
  }
  return out;
}

// The traits passes and hooks read (ops/registry.h): the block role ("" for none, "loop",
// "branch", "loop_grad", "branch_grad"), the auto_cast policy ("follow", "low_precision",
// "float32"), the int8 op the int8 pass turns the op into (None for none), whether the
// op only moves values (reshape, transpose, ...) and whether its Out may name an input.
nb::dict traits_of(const OpInfo& info) {
  nb::dict d;
  d["runs_blocks"] = info.runs_blocks();
  d["block_role"] = block_role_name(info.block_role);
  d["amp"] = amp_policy_name(info.amp);
  d["int8_form"] = info.int8_form ? nb::cast(std::string(info.int8_form->int8_op)) : nb::none();
  d["moves_values"] = info.moves_values;
  d["writes_in_place"] = info.writes_in_place;
  return d;
}

}  // namespace

void define_registry(nb::module_& m) {
  m.def(
      "op_types", [] { return OpRegistry::global().types(); }, "Every registered op type.");
  m.def(
      "op_schema",
      [](const std::string& type) {
        const OpInfo& info = OpRegistry::global().get(type);
        nb::dict d;
        d["type"] = info.schema.type;
        d["doc"] = info.schema.doc;
        d["inputs"] = slots_of(info.schema.inputs);
        d["outputs"] = slots_of(info.schema.outputs);
        nb::list attrs;
        for (const AttrSchema& a : info.schema.attrs) {
          nb::dict ad;
          ad["name"] = a.name;
          ad["type"] = attr_type_name(a.type);
          ad["default"] = a.default_value ? attr_to_python(*a.default_value) : nb::none();
          ad["required"] = !a.default_value.has_value();
          ad["doc"] = a.doc;
          attrs.append(ad);
        }
        d["attrs"] = attrs;
        d["differentiable"] = info.differentiable();
        nb::list dtypes;  // the dtypes of its CPU kernels
        for (const auto& [key, fn] : info.kernels)
          if (key.first == DeviceType::kCPU) dtypes.append(dtype_name(key.second));
        d["dtypes"] = dtypes;
        d["traits"] = traits_of(info);
        return d;
      },
      nb::arg("type"),
      "An op's slots and attributes (as `skiff ops` prints them), the dtypes of its CPU "
      "kernels and its traits (as op_traits gives them).");
  m.def(
      "op_traits",
      [] {
        const OpRegistry& registry = OpRegistry::global();
        nb::dict out;
        for (const std::string& type : registry.types())
          out[type.c_str()] = traits_of(registry.get(type));
        return out;
      },
      "{op type: traits} for every registered op: 'runs_blocks' (bool), 'block_role' ('', "
      "'loop', 'branch', 'loop_grad', 'branch_grad'), 'amp' ('follow', 'low_precision': "
      "auto_cast's white list, 'float32': its black list) and 'int8_form' (the int8 op the "
      "int8 pass makes of it, or None) and 'moves_values' (bool: Out holds X's values "
      "rearranged, so an elementwise map such as a cast or quantization commutes with it) "
      "and 'writes_in_place' (bool: Out may name an input; the executor updates in place).");
}

}  // namespace skiff::python
