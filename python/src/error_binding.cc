// skiff::Error reaches Python as skiff.Error (a RuntimeError), its message intact;
// skiff::OutOfMemoryError as skiff.OutOfMemoryError (a skiff.Error and a MemoryError).
#include <nanobind/stl/string.h>

#include <new>
#include <string>

#include "python/src/bindings.h"
#include "skiff/core/error.h"

namespace skiff::python {

namespace {
PyObject* g_error_type = nullptr;
PyObject* g_out_of_memory_type = nullptr;

PyObject* type_of(const Error& e) {
  return dynamic_cast<const OutOfMemoryError*>(&e) ? g_out_of_memory_type : g_error_type;
}
}  // namespace

PyObject* error_type() { return g_error_type; }

void raise_eager_error(const Error& e) {
  std::string message = e.what();
  try {
    nb::object where = nb::module_::import_("skiff.framework.source").attr("user_source")();
    std::string line = nb::cast<std::string>(where);
    if (!line.empty()) message += " (at " + line + ")";
  } catch (nb::python_error& lookup) {
    lookup.discard_as_unraisable("skiff: finding the caller's line");
  } catch (const std::exception&) {  // no line to add: the message stays as it is
  }
  PyErr_SetString(type_of(e), message.c_str());
}

void raise_cpp_error(const std::exception& e) {
  if (const auto* error = dynamic_cast<const Error*>(&e)) {
    raise_eager_error(*error);
  } else if (dynamic_cast<const std::bad_alloc*>(&e)) {
    PyErr_SetString(PyExc_MemoryError, "out of memory");
  } else {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

void define_errors(nb::module_& m) {
  nb::exception<Error> error(m, "Error", PyExc_RuntimeError);
  g_error_type = error.ptr();
  nb::object bases = nb::make_tuple(nb::handle(g_error_type), nb::handle(PyExc_MemoryError));
  g_out_of_memory_type = PyErr_NewExceptionWithDoc(
      "skiff._C.OutOfMemoryError",
      "A tensor's memory could not be had (a skiff.Error and a MemoryError).", bases.ptr(),
      nullptr);
  m.attr("OutOfMemoryError") = nb::handle(g_out_of_memory_type);
  // Registered after Error's translator, so tried before it.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const OutOfMemoryError& e) {
      PyErr_SetString(g_out_of_memory_type, e.what());
    }
  });
}

}  // namespace skiff::python
