// The process-wide random generator (kernels/cpu/random.h): skiff.seed(n) restarts it.
#include "python/src/bindings.h"
#include "skiff/kernels/cpu/random.h"

namespace skiff::python {

void define_random(nb::module_& m) {
  m.def(
      "set_global_seed", [](uint64_t seed) { kernels::set_global_seed(seed); }, nb::arg("seed"),
      "Restarts the generator that random ops with seed 0 draw from.");
}

}  // namespace skiff::python
