// Tensor arithmetic operators as type slots (x + y, x @ w, -x, ...): one C++ call per
// operator, no Python frame, since eager loops of tiny ops are bound by this path.
// Mixed tensor/number arithmetic follows Paddle: the number takes the tensor's dtype,
// except that a float number promotes an integer tensor to float32, and `/` on
// integers divides in float32.
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

TensorPtr cast_to(const TensorPtr& x, DType dtype) {
  static EagerOp* to_f32 = nullptr;
  if (!to_f32) {
    AttrMap attrs;
    attrs.set("out_dtype", std::string(dtype_name(DType::kF32)));
    to_f32 = new EagerOp("cast", attrs);  // lives as long as the module
  }
  SKIFF_CHECK(dtype == DType::kF32, "cast_to: only float32 promotion is used here");
  return to_f32->call({{x}})[0][0];
}

// A 0-d tensor of `dtype` holding the Python number `h`, or nullptr when `h` is not
// a number.
TensorPtr number_tensor(nb::handle h, DType dtype) {
  PyObject* o = h.ptr();
  if (!PyFloat_Check(o) && !PyLong_Check(o)) return nullptr;  // bool is a PyLong
  double v = PyFloat_Check(o) ? PyFloat_AS_DOUBLE(o) : PyLong_AsDouble(o);
  Tensor t = Tensor::empty(Shape{}, dtype);
  SKIFF_DISPATCH_ALL(dtype, T, *t.data<T>() = static_cast<T>(v));
  return eager::make_tensor(std::move(t));
}

bool is_integer(DType t) { return t == DType::kI32 || t == DType::kI64; }

PyObject* binary(PyObject* a, PyObject* b, Binary kind) noexcept {
  try {
    bool a_tensor = nb::isinstance<EagerTensor>(a), b_tensor = nb::isinstance<EagerTensor>(b);
    TensorPtr x = a_tensor ? nb::cast<TensorPtr>(nb::handle(a)) : nullptr;
    TensorPtr y = b_tensor ? nb::cast<TensorPtr>(nb::handle(b)) : nullptr;
    if (!x || !y) {
      if (kind == Binary::kMatmul) Py_RETURN_NOTIMPLEMENTED;
      const TensorPtr& t = x ? x : y;
      DType dtype = t->dense().dtype();
      nb::handle other(x ? b : a);
      if (PyFloat_Check(other.ptr()) && is_integer(dtype)) {
        (x ? x : y) = cast_to(t, DType::kF32);
        dtype = DType::kF32;
      }
      TensorPtr n = number_tensor(other, dtype);
      if (!n) Py_RETURN_NOTIMPLEMENTED;
      (x ? y : x) = n;
    }
    if (kind == Binary::kDiv && is_integer(x->dense().dtype())) {
      x = cast_to(x, DType::kF32);
      y = cast_to(y, DType::kF32);
    }
    static SlotTensors inputs(2), outputs;
    static const SlotTensors no_outputs;
    inputs[0].assign(1, x);
    inputs[1].assign(1, y);
    op_of(kind).run(inputs, no_outputs, &outputs);
    inputs[0].clear();
    inputs[1].clear();
    TensorPtr out = std::move(outputs[0][0]);
    outputs.clear();
    return nb::cast(std::move(out)).release().ptr();
  } catch (const Error& e) {
    PyErr_SetString(error_type(), e.what());
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

PyObject* add(PyObject* a, PyObject* b) { return binary(a, b, Binary::kAdd); }
PyObject* sub(PyObject* a, PyObject* b) { return binary(a, b, Binary::kSub); }
PyObject* mul(PyObject* a, PyObject* b) { return binary(a, b, Binary::kMul); }
PyObject* div(PyObject* a, PyObject* b) { return binary(a, b, Binary::kDiv); }
PyObject* matmul(PyObject* a, PyObject* b) { return binary(a, b, Binary::kMatmul); }

}  // namespace

PyType_Slot tensor_operator_slots[] = {{Py_nb_add, reinterpret_cast<void*>(add)},
                                       {Py_nb_subtract, reinterpret_cast<void*>(sub)},
                                       {Py_nb_multiply, reinterpret_cast<void*>(mul)},
                                       {Py_nb_true_divide, reinterpret_cast<void*>(div)},
                                       {Py_nb_matrix_multiply, reinterpret_cast<void*>(matmul)},
                                       {0, nullptr}};

}  // namespace skiff::python
