// skiff::Error reaches Python as skiff.Error (a RuntimeError), its message intact.
#include <nanobind/stl/string.h>

#include <string>

#include "python/src/bindings.h"
#include "skiff/core/error.h"

namespace skiff::python {

namespace {
PyObject* g_error_type = nullptr;
}  // namespace

PyObject* error_type() { return g_error_type; }

void raise_eager_error(const Error& e) {
  std::string message = e.what();
  try {
    nb::object where = nb::module_::import_("skiff.static.source").attr("user_source")();
    std::string line = nb::cast<std::string>(where);
    if (!line.empty()) message += " (at " + line + ")";
  } catch (nb::python_error& lookup) {
    lookup.discard_as_unraisable("skiff: finding the caller's line");
  } catch (const std::exception&) {  // no line to add: the message stays as it is
  }
  PyErr_SetString(g_error_type, message.c_str());
}

void define_errors(nb::module_& m) {
  nb::exception<Error> error(m, "Error", PyExc_RuntimeError);
  g_error_type = error.ptr();
}

}  // namespace skiff::python
