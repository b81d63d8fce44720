// skiff::Error reaches Python as skiff.Error (a RuntimeError), its message intact.
#include "python/src/bindings.h"
#include "skiff/core/error.h"

namespace skiff::python {

namespace {
PyObject* g_error_type = nullptr;
}  // namespace

PyObject* error_type() { return g_error_type; }

void define_errors(nb::module_& m) {
  nb::exception<Error> error(m, "Error", PyExc_RuntimeError);
  g_error_type = error.ptr();
}

}  // namespace skiff::python
