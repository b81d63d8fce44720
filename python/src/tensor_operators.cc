// Tensor arithmetic operators as type slots (x + y, x @ w, ...): in eager mode, two
// float tensors of one dtype make one C++ op call with no Python frame, since eager
// loops of tiny ops are bound by this path. Everything else (numbers, arrays, integer
// division, and every call while the dispatch point must see them: static mode, hooks)
// goes to the package's Python functions (skiff.tensor.math), which hold Paddle's
// promotion rules.
#include <nanobind/stl/shared_ptr.h>

#include "python/src/bindings.h"
#include "skiff/eager/op_call.h"

namespace skiff::python {

using eager::EagerOp;
using eager::EagerTensor;
using eager::SlotTensors;
using eager::TensorPtr;

namespace {

enum class Binary { kAdd, kSub, kMul, kDiv, kMatmul };

EagerOp& op_of(Binary b) {
  static EagerOp add("elementwise_add", {}), sub("elementwise_sub", {}), mul("elementwise_mul", {}),
      div("elementwise_div", {}), matmul("matmul", {});
  switch (b) {
    case Binary::kAdd:
      return add;
    case Binary::kSub:
      return sub;
    case Binary::kMul:
      return mul;
    case Binary::kDiv:
      return div;
    case Binary::kMatmul:
      return matmul;
  }
  return add;
}

bool g_python_dispatch = false;

// The package's function for `kind` (skiff.tensor.math.add, ...), applied to (a, b).
PyObject* python_fallback(PyObject* a, PyObject* b, Binary kind) {
  static const char* names[] = {"add", "subtract", "multiply", "divide", "matmul"};
  const char* module = kind == Binary::kMatmul ? "skiff.tensor.linalg" : "skiff.tensor.math";
  nb::object fn = nb::module_::import_(module).attr(names[static_cast<int>(kind)]);
  return fn(nb::handle(a), nb::handle(b)).release().ptr();
}

bool fast_pair(const TensorPtr& x, const TensorPtr& y, Binary kind) {
  const Tensor* a = x->value.tensor();
  const Tensor* b = y->value.tensor();
  return a && b && a->dtype() == b->dtype() && is_floating(a->dtype());
}

PyObject* binary(PyObject* a, PyObject* b, Binary kind) noexcept {
  try {
    if (g_python_dispatch || !nb::isinstance<EagerTensor>(a) || !nb::isinstance<EagerTensor>(b))
      return python_fallback(a, b, kind);
    TensorPtr x = nb::cast<TensorPtr>(nb::handle(a));
    TensorPtr y = nb::cast<TensorPtr>(nb::handle(b));
    if (!fast_pair(x, y, kind)) return python_fallback(a, b, kind);
    static SlotTensors inputs(2), outputs;
    static const SlotTensors no_outputs;
    inputs[0].assign(1, std::move(x));
    inputs[1].assign(1, std::move(y));
    try {
      op_of(kind).run(inputs, no_outputs, &outputs);
    } catch (...) {
      inputs[0].clear();
      inputs[1].clear();
      outputs.clear();
      throw;
    }
    inputs[0].clear();
    inputs[1].clear();
    TensorPtr out = std::move(outputs[0][0]);
    outputs.clear();
    return nb::cast(std::move(out)).release().ptr();
  } catch (const Error& e) {
    raise_eager_error(e);
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const std::exception& e) {
    raise_cpp_error(e);
  }
  return nullptr;
}

PyObject* add(PyObject* a, PyObject* b) { return binary(a, b, Binary::kAdd); }
PyObject* sub(PyObject* a, PyObject* b) { return binary(a, b, Binary::kSub); }
PyObject* mul(PyObject* a, PyObject* b) { return binary(a, b, Binary::kMul); }
PyObject* div(PyObject* a, PyObject* b) { return binary(a, b, Binary::kDiv); }
PyObject* matmul(PyObject* a, PyObject* b) { return binary(a, b, Binary::kMatmul); }

}  // namespace

void set_python_dispatch(bool on) { g_python_dispatch = on; }
bool python_dispatch() { return g_python_dispatch; }

PyType_Slot tensor_operator_slots[] = {{Py_nb_add, reinterpret_cast<void*>(add)},
                                       {Py_nb_subtract, reinterpret_cast<void*>(sub)},
                                       {Py_nb_multiply, reinterpret_cast<void*>(mul)},
                                       {Py_nb_true_divide, reinterpret_cast<void*>(div)},
                                       {Py_nb_matrix_multiply, reinterpret_cast<void*>(matmul)},
                                       {0, nullptr}};

}  // namespace skiff::python
