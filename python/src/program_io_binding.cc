// Programs and parameters as files and text (ir/serialize.h, formats/params_file.h,
// runtime/persistables.h,
// ir/printer.h, ir/verifier.h): .skmodel / .skparams, str(program), verification.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"
#include "python/src/program_handle.h"
#include "skiff/eager/eager_tensor.h"
#include "skiff/ir/printer.h"
#include "skiff/ir/serialize.h"
#include "skiff/ir/verifier.h"
#include "skiff/ops/registry.h"
#include "skiff/runtime/persistables.h"

namespace skiff::python {

void define_program_io(nb::module_& m) {
  m.def(
      "program_to_text", [](const ProgramHandle& p) { return program_to_text(*p.ir); },
      nb::arg("program"), "The program as text (what `skiff print` shows).");
  m.def(
      "verify_program", [](const ProgramHandle& p) { verify_program(*p.ir, find_op_schema); },
      nb::arg("program"), "Raises skiff.Error describing the program's first problem.");
  m.def(
      "save_program",
      [](const ProgramHandle& p, const std::string& path) { save_program(*p.ir, path); },
      nb::arg("program"), nb::arg("path"), "Writes a .skmodel file atomically.");
  m.def(
      "load_program", [](const std::string& path) { return ProgramHandle(load_program(path)); },
      nb::arg("path"), "Reads a .skmodel file.");
  m.def(
      "program_to_bytes",
      [](const ProgramHandle& p) {
        std::string bytes = program_to_bytes(*p.ir);
        return nb::bytes(bytes.data(), bytes.size());
      },
      nb::arg("program"));
  m.def(
      "program_from_bytes",
      [](nb::bytes data) {
        return ProgramHandle(program_from_bytes(std::string(data.c_str(), data.size())));
      },
      nb::arg("data"));
  m.def(
      "save_persistables",
      [](const std::string& path, const ProgramHandle& p, const Scope& scope) {
        save_persistables(path, *p.ir, scope);
      },
      nb::arg("path"), nb::arg("program"), nb::arg("scope"),
      "Writes every persistable variable of the program from the scope (.skparams).");
  m.def(
      "load_persistables",
      [](const std::string& path, const ProgramHandle& p, Scope* scope) {
        load_persistables(path, *p.ir, scope);
      },
      nb::arg("path"), nb::arg("program"), nb::arg("scope"),
      "Reads the program's persistables from a .skparams file into the scope.");
  m.def(
      "save_params",
      [](const std::string& path,
         const std::vector<std::pair<std::string, eager::TensorPtr>>& named) {
        NamedTensors tensors;
        for (const auto& [name, t] : named) tensors.emplace_back(name, t->dense());
        save_params(path, tensors);
      },
      nb::arg("path"), nb::arg("tensors"),
      "Writes (name, Tensor) pairs to a .skparams file, atomically.");
  m.def(
      "load_params",
      [](const std::string& path) {
        std::vector<std::pair<std::string, eager::TensorPtr>> out;
        for (auto& [name, t] : load_params(path)) out.emplace_back(name, eager::make_tensor(t));
        return out;
      },
      nb::arg("path"), "The (name, Tensor) pairs of a .skparams file, in file order.");
}

}  // namespace skiff::python
