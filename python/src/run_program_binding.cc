// Program functions from Python (runtime/run_program.h): to_static registers a traced
// program and calls it on eager tensors through the `run_program` op (a skiff._C.Op).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"
#include "python/src/program_handle.h"
#include "skiff/runtime/run_program.h"

namespace skiff::python {

void define_run_program(nb::module_& m) {
  m.def(
      "register_program_function",
      [](const ProgramHandle& program, std::vector<std::string> inputs,
         std::vector<std::string> outputs) {
        return register_program_function(*program.ir, std::move(inputs), std::move(outputs));
      },
      nb::arg("program"), nb::arg("inputs"), nb::arg("outputs"),
      "Registers a copy of `program` as a function of block-0 variables `inputs` giving "
      "`outputs`; returns the id that run_program's `function` attribute takes.");
  m.def("release_program_function", &release_program_function, nb::arg("id"),
        "Forgets a registered program function.");
}

}  // namespace skiff::python
