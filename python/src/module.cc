// skiff._C: the C++ core as seen from Python. The package skiff (python/skiff) builds
// its API on it; nothing in here is meant to be called by users directly.
#include "python/src/bindings.h"

NB_MODULE(_C, m) {
  m.doc() = "skiff's C++ core: tensors, eager op calls, the tape, programs and the executor";
  // The package caches ops and programs for the life of the process; what is still
  // alive at exit is not a leak worth a report.
  nanobind::set_leak_warnings(false);
  skiff::python::define_errors(m);
  skiff::python::define_tensor(m);
  skiff::python::define_eager(m);
  skiff::python::define_registry(m);
  skiff::python::define_random(m);
  skiff::python::define_program(m);
  skiff::python::define_builder(m);
  skiff::python::define_program_io(m);
  skiff::python::define_executor(m);
  skiff::python::define_backward(m);
  skiff::python::define_run_program(m);
  skiff::python::define_onnx(m);
  skiff::python::define_codegen(m);
  skiff::python::define_cpu(m);
  skiff::python::define_etcd(m);
  skiff::python::define_dist(m);
  skiff::python::define_board(m);
  skiff::python::define_ps(m);
  skiff::python::define_ps_ops(m);
  skiff::python::define_passes(m);
}
