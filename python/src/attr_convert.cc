#include "python/src/attr_convert.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "skiff/ops/registry.h"

namespace skiff::python {

namespace {

[[noreturn]] void bad_value(const std::string& op, const AttrSchema& schema, nb::handle value) {
  fail("op '", op, "': attribute '", schema.name, "' wants ", attr_type_name(schema.type), ", got ",
       nb::str(nb::repr(value)).c_str());
}

int64_t to_int(const std::string& op, const AttrSchema& schema, nb::handle v) {
  if (PyFloat_Check(v.ptr()) || !PyIndex_Check(v.ptr())) bad_value(op, schema, v);
  nb::object index = nb::steal(PyNumber_Index(v.ptr()));
  if (!index.is_valid()) {
    PyErr_Clear();
    bad_value(op, schema, v);
  }
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0) {
    fail("op '", op, "': attribute '", schema.name, "' is ", nb::str(index).c_str(),
         ", out of the 64-bit integer range");
  }
  return value;
}

double to_float(const std::string& op, const AttrSchema& schema, nb::handle v) {
  double d = PyFloat_AsDouble(v.ptr());
  if (d == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    bad_value(op, schema, v);
  }
  return d;
}

template <typename T, typename Convert>
std::vector<T> to_list(const std::string& op, const AttrSchema& schema, nb::handle v,
                       Convert convert) {
  if (PyUnicode_Check(v.ptr()) || !PySequence_Check(v.ptr())) {
    // A scalar where a list is wanted: a list of one (Paddle accepts axis=1 for [1]).
    return {convert(op, schema, v)};
  }
  std::vector<T> out;
  nb::object seq = nb::borrow(v);
  for (nb::handle item : seq) out.push_back(convert(op, schema, item));
  return out;
}

std::string to_string(const std::string& op, const AttrSchema& schema, nb::handle v) {
  if (!PyUnicode_Check(v.ptr())) bad_value(op, schema, v);
  return nb::cast<std::string>(v);
}

}  // namespace

Attr attr_from_python(const std::string& op, const AttrSchema& schema, nb::handle value) {
  switch (schema.type) {
    case AttrType::kInt:
      return to_int(op, schema, value);
    case AttrType::kFloat:
      return to_float(op, schema, value);
    case AttrType::kString:
      return to_string(op, schema, value);
    case AttrType::kBool: {
      int truth = PyObject_IsTrue(value.ptr());
      if (truth < 0) {
        PyErr_Clear();
        bad_value(op, schema, value);
      }
      return truth == 1;
    }
    case AttrType::kInts:
      return to_list<int64_t>(op, schema, value, to_int);
    case AttrType::kFloats:
      return to_list<double>(op, schema, value, to_float);
    case AttrType::kStrings:
      return to_list<std::string>(op, schema, value, to_string);
    case AttrType::kBlock:
      return BlockRef{static_cast<int32_t>(to_int(op, schema, value))};
    case AttrType::kBlocks: {
      BlockRefs refs;
      for (int64_t i : to_list<int64_t>(op, schema, value, to_int))
        refs.idx.push_back(static_cast<int32_t>(i));
      return refs;
    }
  }
  bad_value(op, schema, value);
}

AttrMap attrs_from_dict(const std::string& type, nb::handle attrs) {
  AttrMap out;
  if (attrs.is_none()) return out;
  const OpSchema& schema = OpRegistry::global().get(type).schema;
  for (auto [key, value] : nb::cast<nb::dict>(attrs)) {
    std::string name = nb::cast<std::string>(key);
    const AttrSchema* a = schema.find_attr(name);
    if (!a) {
      // Source locations are not in schemas; they pass as strings.
      if (name == kSourceAttr) {
        out.set(name, nb::cast<std::string>(value));
        continue;
      }
      std::string known;
      for (const auto& s : schema.attrs) known += (known.empty() ? "" : ", ") + s.name;
      fail("op '", type, "' has no attribute '", name,
           "' (it has: ", known.empty() ? "none" : known, ")");
    }
    out.set(name, attr_from_python(type, *a, value));
  }
  return out;
}

nb::object attr_to_python(const Attr& a) {
  return std::visit(
      [](const auto& v) -> nb::object {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, BlockRef>) {
          return nb::int_(v.idx);
        } else if constexpr (std::is_same_v<V, BlockRefs>) {
          return nb::cast(std::vector<int64_t>(v.idx.begin(), v.idx.end()));
        } else {
          return nb::cast(v);
        }
      },
      a);
}

}  // namespace skiff::python
