// The CPU skiff runs on (core/cpu.h): its features, the instruction set the kernels use,
// and the cap on it; skiff.device.cpu_info and set_max_cpu_isa read these. And the
// allocator's counts of tensor memory (core/allocator.h) for skiff.device.memory_allocated.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"
#include "skiff/core/allocator.h"
#include "skiff/core/cpu.h"

namespace skiff::python {

void define_cpu(nb::module_& m) {
  m.def("cpu_features", &cpu_features,
        "The features of this CPU skiff detects (/proc/cpuinfo's names).");
  m.def(
      "cpu_kernel_isa", [] { return std::string(cpu_isa_name(kernel_isa())); },
      "The instruction set the kernels use now: generic, avx2, avx512 or avx512_bf16.");
  m.def(
      "cpu_best_isa", [] { return std::string(cpu_isa_name(cpu_best_isa())); },
      "The best instruction set of this CPU, ignoring any cap.");
  m.def(
      "cpu_baseline", [] { return std::string(cpu_baseline_name()); },
      "The CPU level libskiff was compiled for (x86-64-v3, native, ...).");
  m.def(
      "cpu_baseline_features", [] { return std::string(cpu_baseline_features()); },
      "The features that level needs, space-separated.");
  m.def(
      "set_max_cpu_isa", [](const std::string& isa) { set_max_cpu_isa(cpu_isa_from_name(isa)); },
      nb::arg("isa"),
      "Caps the kernels' instruction set (generic, avx2, avx512, avx512_bf16); oneDNN takes a "
      "cap only from SKIFF_MAX_CPU_ISA, before the first op.");
  m.def(
      "memory_allocated", [] { return memory_stats().allocated; },
      "Bytes of tensor memory skiff's allocator holds now.");
  m.def(
      "max_memory_allocated", [] { return memory_stats().peak; },
      "The most bytes it held since the last reset_max_memory_allocated().");
  m.def("reset_max_memory_allocated", &reset_peak_memory,
        "Starts the peak over from the bytes held now.");
}

}  // namespace skiff::python
