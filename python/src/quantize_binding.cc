// skiff._C's part of quantization (passes/int8.h): convert_to_int8 rewrites a program's
// fake-quantized matmuls and convolutions into int8 compute, in place.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"
#include "python/src/program_handle.h"
#include "skiff/passes/int8.h"

namespace skiff::python {

void define_quantize(nb::module_& m) {
  m.def(
      "convert_to_int8",
      [](ProgramHandle& program) {
        Int8Report report;
        Program out = convert_to_int8(*program.ir, &report);
        *program.ir = std::move(out);
        program.touched();
        nb::dict result;
        result["converted"] = report.converted;
        result["requantized"] = report.requantized;
        result["left_float"] = report.left_float;
        return result;
      },
      nb::arg("program"),
      "Rewrites the program's fake-quantized matmuls and conv2d's of int8 weights into "
      "quantize_linear + quantized_matmul / quantized_conv2d (int8 passed on between int8 "
      "layers), in place; returns {'converted': n, 'requantized': n, 'left_float': [why, ...]}.");
}

}  // namespace skiff::python
