// Program-level autodiff from Python (autodiff/backward.h): skiff._C.append_backward
// appends the grad ops of a target to block 0 of a program.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/set.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"
#include "python/src/program_handle.h"
#include "skiff/autodiff/backward.h"

namespace skiff::python {

void define_backward(nb::module_& m) {
  m.def(
      "append_backward",
      [](ProgramHandle& p, const std::string& target, std::vector<std::string> parameters,
         std::set<std::string> no_grad, bool feed_target_grad) {
        BackwardOptions options;
        options.parameters = std::move(parameters);
        options.no_grad = std::move(no_grad);
        options.feed_target_grad = feed_target_grad;
        p.touched();
        auto pairs = append_backward(*p.ir, target, options);
        p.touched();
        return pairs;
      },
      nb::arg("program"), nb::arg("target"), nb::arg("parameters") = std::vector<std::string>{},
      nb::arg("no_grad") = std::set<std::string>{}, nb::arg("feed_target_grad") = false,
      "Appends target's backward to block 0; returns [(parameter, gradient)] for the "
      "parameters (default: every trainable persistable) the target depends on.");
}

}  // namespace skiff::python
