// The process-wide random generator (kernels/cpu/random.h): skiff.seed(n) restarts it;
// reseed_global_generator gives a seed that names its current point (get/set_rng_state).
#include "python/src/bindings.h"
#include "skiff/kernels/cpu/random.h"

namespace skiff::python {

void define_random(nb::module_& m) {
  m.def(
      "set_global_seed", [](uint64_t seed) { kernels::set_global_seed(seed); }, nb::arg("seed"),
      "Restarts the generator that random ops with seed 0 draw from.");
  m.def(
      "reseed_global_generator",
      [] {
        const uint64_t seed = kernels::random_stream_key(0);
        kernels::set_global_seed(seed);
        return seed;
      },
      "Draws a seed from the generator, restarts it from that seed and returns the seed: "
      "set_global_seed(seed) later brings the generator back to this point.");
}

}  // namespace skiff::python
