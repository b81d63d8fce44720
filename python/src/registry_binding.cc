// The op registry as data: skiff._C.op_types() and skiff._C.op_schema(type), from
// which the package checks calls and documents ops.
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
        return d;
      },
      nb::arg("type"),
      "An op's slots and attributes (as `skiff ops` prints them), and the dtypes of its CPU "
      "kernels.");
}

}  // namespace skiff::python
