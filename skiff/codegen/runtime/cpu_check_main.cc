// The first code of the executable `model` to run (compiled for any CPU of the architecture,
// see cpu_check.cc): on a CPU without the features the model was compiled for it stops with
// a message naming them (exit status 3) instead of an illegal instruction later.
#include <errno.h>
#include <unistd.h>

#include <cstdio>

#include "skiff/codegen/runtime/model_api.h"

namespace {

// Priority 101 is the first a program may use: before every C++ initialiser of the model.
__attribute__((constructor(101))) void stop_on_a_cpu_without_the_models_features() {
  if (const char* error = skiff_model_cpu_error()) {
    std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, error);
    _exit(3);
  }
}

}  // namespace
