// The parts of the skiff._C module, one per bound C++ header (module.cc calls them).
#pragma once

#include <nanobind/nanobind.h>

#include "skiff/core/dtype.h"
#include "skiff/core/tensor.h"
#include "skiff/eager/eager_tensor.h"

namespace skiff::python {

namespace nb = nanobind;

void define_errors(nb::module_& m);       // core/error.h
void define_tensor(nb::module_& m);       // eager/eager_tensor.h (skiff.Tensor)
void define_eager(nb::module_& m);        // eager/op_call.h, eager/backward.h
void define_random(nb::module_& m);       // kernels/cpu/random.h
void define_registry(nb::module_& m);     // ops/registry.h
void define_program(nb::module_& m);      // ir/program.h, ops/shape_context.h
void define_builder(nb::module_& m);      // api/builder.h (while, if/else)
void define_program_io(nb::module_& m);   // ir/serialize.h, printer.h, verifier.h, params
void define_executor(nb::module_& m);     // runtime/scope.h, runtime/executor.h
void define_backward(nb::module_& m);     // autodiff/backward.h
void define_run_program(nb::module_& m);  // runtime/run_program.h
void define_onnx(nb::module_& m);         // export/onnx/onnx_export.h
void define_codegen(nb::module_& m);      // codegen/codegen.h
void define_cpu(nb::module_& m);          // core/cpu.h
void define_etcd(nb::module_& m);         // dist/etcd_client.h
void define_dist(nb::module_& m);         // dist/communicator.h, gloo_communicator.h,
                                          // async_all_reduce.h; eager grad-ready hooks
void define_board(nb::module_& m);        // board/log_writer.h, board/run_log.h
void define_ps(nb::module_& m);           // ps/server.h, ps/client.h
void define_ps_ops(nb::module_& m);
void define_passes(nb::module_& m);  // passes/pipeline.h (passes/int8.h)

// Tensor's arithmetic operators (tensor_operators.cc), installed as type slots.
extern PyType_Slot tensor_operator_slots[];
// Whether every op call goes through the package's dispatch point
// (skiff.framework.core.apply): in static mode (ops are appended to a program) and while a
// hook watches the calls (auto_cast, tracing). Tensor's operators and _C.Op objects then
// call Python instead of running the op themselves; otherwise they run it straight.
void set_python_dispatch(bool on);
bool python_dispatch();

// The Python type of skiff::Error (skiff.Error); skiff::OutOfMemoryError has its own.
PyObject* error_type();
// Raises `e` as skiff.Error from an eager op call, its message followed by the user's
// line that made the call ("(at FILE:LINE)": the innermost frame outside skiff).
void raise_eager_error(const Error& e);
// Raises any C++ exception as Python would want it: a skiff::Error as above, running out
// of memory as MemoryError, anything else as RuntimeError with its message.
void raise_cpp_error(const std::exception& e);

// A tensor's dense value, given memory of its own if it is a zeros view, for callers
// that hand out its address (numpy, DLPack) or write into it (collectives).
Tensor& own_dense(eager::EagerTensor& t);

// numpy <-> skiff values (tensor_binding.cc).
// A tensor over `array`'s memory when its dtype is skiff's and it is C-contiguous
// (unless `copy`); otherwise a converted copy. Unsigned and narrow integers become
// int64, float16 float32. Anything that is no array is a TypeError naming `caller`.
Tensor tensor_from_array(nb::handle array, bool copy, const char* caller = "skiff");
// A numpy array sharing `t`'s memory (kept alive by the array).
nb::object array_from_tensor(const Tensor& t);

}  // namespace skiff::python
