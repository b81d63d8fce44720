// The process-wide random generator (kernels/cpu/random.h): skiff.seed(n) restarts it;
// its state is saved and restored as text (get/set_rng_state).
#include <nanobind/stl/string.h>

#include "python/src/bindings.h"
#include "skiff/kernels/cpu/random.h"

namespace skiff::python {

void define_random(nb::module_& m) {
  m.def(
      "set_global_seed", [](uint64_t seed) { kernels::set_global_seed(seed); }, nb::arg("seed"),
      "Restarts the generator that random ops with seed 0 draw from.");
  m.def("global_generator_state", &kernels::global_generator_state,
        "The generator's state as text: set_global_generator_state(it) returns there.");
  m.def("set_global_generator_state", &kernels::set_global_generator_state, nb::arg("state"),
        "Restores a state global_generator_state gave.");
}

}  // namespace skiff::python
