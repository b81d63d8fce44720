// skiff.Tensor: an eager tensor (eager/eager_tensor.h) with its value shared with
// numpy and DLPack consumers without copies. The package adds operators and methods
// in Python (skiff/tensor/methods.py).
#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"
#include "skiff/eager/eager_tensor.h"
#include "skiff/eager/views.h"

namespace skiff::python {

using eager::EagerTensor;
using eager::TensorPtr;

namespace {

nb::dlpack::dtype to_dlpack(DType t) {
  switch (t) {
    case DType::kF32:
      return nb::dtype<float>();
    case DType::kF64:
      return nb::dtype<double>();
    case DType::kI32:
      return nb::dtype<int32_t>();
    case DType::kI64:
      return nb::dtype<int64_t>();
    case DType::kBool:
      return nb::dtype<bool>();
    case DType::kI8:
      return nb::dtype<int8_t>();
    case DType::kU8:
      return nb::dtype<uint8_t>();
    case DType::kI16:
      return nb::dtype<int16_t>();
    case DType::kC64:
      return nb::dtype<std::complex<float>>();
    case DType::kC128:
      return nb::dtype<std::complex<double>>();
    default:
      break;
  }
  fail("a ", dtype_name(t), " tensor has no numpy/DLPack form; cast it to float32 first");
}

DType from_dlpack(nb::dlpack::dtype d) {
  if (d == nb::dtype<float>()) return DType::kF32;
  if (d == nb::dtype<double>()) return DType::kF64;
  if (d == nb::dtype<int32_t>()) return DType::kI32;
  if (d == nb::dtype<int64_t>()) return DType::kI64;
  if (d == nb::dtype<bool>()) return DType::kBool;
  if (d == nb::dtype<int8_t>()) return DType::kI8;
  if (d == nb::dtype<uint8_t>()) return DType::kU8;
  if (d == nb::dtype<int16_t>()) return DType::kI16;
  if (d == nb::dtype<std::complex<float>>()) return DType::kC64;
  if (d == nb::dtype<std::complex<double>>()) return DType::kC128;
  fail("no skiff dtype for this array's element type (code ", int(d.code), ", ", int(d.bits),
       " bits); convert it to "
       "float32/float64/complex64/complex128/int32/int64/int16/int8/uint8/bool first");
}

// A dense view of a value: a tensor as is, selected rows scattered into zeros.
Tensor dense_view(const Variable& v) {
  if (const Tensor* t = v.tensor()) {
    SKIFF_CHECK(t->initialized(), "the tensor holds no value");
    return *t;
  }
  if (const SelectedRows* rows = v.selected_rows()) {
    Shape shape = rows->value.shape();
    shape[0] = rows->height;
    Tensor dense = Tensor::zeros(shape, rows->value.dtype());
    size_t row_bytes = rows->value.nbytes() / std::max<size_t>(rows->rows.size(), 1);
    SKIFF_DISPATCH_FLOATING(rows->value.dtype(), T, {
      int64_t width = static_cast<int64_t>(row_bytes / sizeof(T));
      const T* src = rows->value.data<T>();
      T* dst = dense.data<T>();
      for (size_t r = 0; r < rows->rows.size(); ++r)
        for (int64_t j = 0; j < width; ++j) dst[rows->rows[r] * width + j] += src[r * width + j];
    });
    return dense;
  }
  fail("the tensor holds no dense value (", v.empty() ? "empty" : "a tensor array", ")");
}

using AnyArray = nb::ndarray<nb::device::cpu, nb::c_contig>;

// The value as an ndarray of framework `Framework`, sharing memory.
template <typename... Framework>
nb::object view_of(const Tensor& value) {
  // The shared zero mapping is read-only: an array that may be written gets its own zeros.
  const Tensor& t = value.is_zeros_view() ? Tensor::zeros(value.shape(), value.dtype()) : value;
  std::vector<size_t> shape(t.shape().begin(), t.shape().end());
  auto* keep = new std::shared_ptr<Storage>(t.storage());
  nb::capsule owner(keep,
                    [](void* p) noexcept { delete static_cast<std::shared_ptr<Storage>*>(p); });
  void* data = const_cast<void*>(t.raw_data());
  return nb::ndarray<Framework...>(data, shape.size(), shape.data(), owner, nullptr,
                                   to_dlpack(t.dtype()))
      .cast();
}

// A flag set from Python: a bool, numpy's bool or an int; anything else names the flag.
bool bool_arg(const char* flag, nb::handle v) {
  const std::string type = Py_TYPE(v.ptr())->tp_name;  // numpy.bool (numpy.bool_ before 2.0)
  if (PyBool_Check(v.ptr()) || PyLong_Check(v.ptr()) || type == "numpy.bool" ||
      type == "numpy.bool_") {
    return PyObject_IsTrue(v.ptr()) == 1;
  }
  throw nb::type_error(
      (std::string("Tensor.") + flag + " must be a bool, got " + nb::inst_name(v).c_str()).c_str());
}

}  // namespace

Tensor& own_dense(EagerTensor& t) {
  Tensor& d = t.mutable_dense();
  if (d.is_zeros_view()) d = Tensor::zeros(d.shape(), d.dtype());
  return d;
}

Tensor tensor_from_array(nb::handle obj, bool copy, const char* caller) {
  AnyArray array;
  if (!nb::try_cast<AnyArray>(obj, array)) {
    throw nb::type_error(
        str_cat(caller,
                ": expected a C-contiguous numpy array of a skiff dtype or an object with "
                "__dlpack__ (a torch tensor, a DLPack capsule not used before), got ",
                nb::inst_name(obj).c_str())
            .c_str());
  }
  DType dtype = from_dlpack(array.dtype());
  Shape shape;
  for (size_t i = 0; i < array.ndim(); ++i) shape.push_back(static_cast<int64_t>(array.shape(i)));
  size_t bytes = array.nbytes();
  if (copy) {
    Tensor t = Tensor::empty(shape, dtype);
    if (bytes) std::memcpy(t.raw_data(), array.data(), bytes);
    return t;
  }
  auto* keep = new AnyArray(array);
  auto release = [keep] {
    if (!Py_IsInitialized()) return;  // the interpreter is gone: nothing to release
    nb::gil_scoped_acquire gil;
    delete keep;
  };
  auto storage = std::make_shared<Storage>(array.data(), bytes, cpu_place(), release);
  return Tensor::from_storage(std::move(storage), shape, dtype);
}

nb::object array_from_tensor(const Tensor& t) { return view_of<nb::numpy>(t); }

void define_tensor(nb::module_& m) {
  nb::class_<EagerTensor>(m, "Tensor", "A tensor of eager mode (see skiff.to_tensor).",
                          nb::type_slots(tensor_operator_slots))
      .def(nb::init<>())
      .def(
          "__init__",
          [](EagerTensor* self, nb::handle data) {
            new (self) EagerTensor();
            if (nb::isinstance<EagerTensor>(data)) {
              self->value = nb::cast<const EagerTensor&>(data).value;  // shared, copy-on-write
            } else if (nb::ndarray_check(data)) {
              self->value.set(tensor_from_array(data, /*copy=*/true, "Tensor"));
            } else {
              self->~EagerTensor();
              throw nb::type_error(
                  ("Tensor(data): data must be a numpy array or a Tensor (skiff.to_tensor takes "
                   "lists and numbers too), got " +
                   std::string(nb::inst_name(data).c_str()))
                      .c_str());
            }
          },
          nb::arg("data"))
      .def_prop_ro("shape",
                   [](const EagerTensor& t) {
                     if (const SelectedRows* r = t.value.selected_rows()) {
                       std::vector<int64_t> s(r->value.shape().begin(), r->value.shape().end());
                       if (!s.empty()) s[0] = r->height;
                       return s;
                     }
                     const Shape& s = t.dense().shape();
                     return std::vector<int64_t>(s.begin(), s.end());
                   })
      .def_prop_ro("_dtype_name",
                   [](const EagerTensor& t) {
                     if (const SelectedRows* r = t.value.selected_rows())
                       return std::string(dtype_name(r->value.dtype()));
                     return std::string(dtype_name(t.dense().dtype()));
                   })
      .def_prop_ro("_kind",
                   [](const EagerTensor& t) {
                     if (t.value.is_tensor())
                       return std::string(t.value.tensor()->initialized() ? "dense" : "empty");
                     if (t.value.is_selected_rows()) return std::string("selected_rows");
                     if (t.value.is_array()) return std::string("array");
                     return std::string("empty");
                   })
      .def_prop_rw(
          "stop_gradient", [](const EagerTensor& t) { return t.stop_gradient; },
          [](EagerTensor& t, nb::handle v) { t.stop_gradient = bool_arg("stop_gradient", v); })
      .def_prop_rw(
          "persistable", [](const EagerTensor& t) { return t.persistable; },
          [](EagerTensor& t, nb::handle v) { t.persistable = bool_arg("persistable", v); })
      .def_prop_rw(
          "name", [](const EagerTensor& t) { return t.name; },
          [](EagerTensor& t, nb::handle v) {
            if (!nb::isinstance<nb::str>(v)) {
              throw nb::type_error(
                  ("Tensor.name must be a str, got " + std::string(nb::inst_name(v).c_str()))
                      .c_str());
            }
            t.name = nb::cast<std::string>(v);
          })
      .def_prop_ro("is_leaf", &EagerTensor::is_leaf)
      .def_prop_rw(
          "grad", [](const EagerTensor& t) { return t.grad; },
          [](EagerTensor& t, nb::handle g) {
            if (g.is_none()) {
              t.grad = nullptr;
            } else if (nb::isinstance<EagerTensor>(g)) {
              t.grad = nb::cast<TensorPtr>(g);
            } else {
              throw nb::type_error(("Tensor.grad must be a Tensor or None, got " +
                                    std::string(nb::inst_name(g).c_str()))
                                       .c_str());
            }
          },
          nb::arg("value").none())
      .def("retain_grads", [](EagerTensor& t) { t.retain_grad = true; })
      .def_prop_ro(
          "inplace_version", [](const EagerTensor& t) { return t.inplace_version; },
          "How many in-place writes the tensor has had.")
      .def(
          "_add_grad_hook",
          [](EagerTensor& t, nb::callable fn) {
            auto py = std::make_shared<nb::callable>(std::move(fn));
            return add_grad_hook(t, [py](const Variable& g) {
              nb::gil_scoped_acquire gil;
              nb::object out = (*py)(nb::cast(eager::make_tensor(g)));
              if (out.is_none()) return Variable();
              if (!nb::isinstance<EagerTensor>(out)) {
                throw nb::type_error(("a gradient hook must return a Tensor or None, got " +
                                      std::string(nb::inst_name(out).c_str()))
                                         .c_str());
              }
              return nb::cast<TensorPtr>(out)->value;
            });
          },
          nb::arg("hook"),
          "Calls hook(grad) on each gradient backward computes for this tensor, before it "
          "goes on; a Tensor returned replaces it. Returns an id for _remove_grad_hook.")
      .def(
          "_remove_grad_hook", [](EagerTensor& t, int id) { remove_grad_hook(t, id); },
          nb::arg("id"))
      .def("_has_grad_fn", [](const EagerTensor& t) { return t.grad_node != nullptr; })
      .def("_detach_history",
           [](EagerTensor& t) {
             t.grad_node.reset();
             t.out_slot = t.out_index = 0;
           })
      .def(
          "numpy",
          [](EagerTensor& t, nb::handle copy) {
            if (!t.value.is_tensor()) return array_from_tensor(dense_view(t.value));
            return array_from_tensor(bool_arg("numpy(copy=...)", copy) ? t.dense().clone()
                                                                       : own_dense(t));
          },
          nb::arg("copy") = true,
          "The value as a numpy array of its own (as Paddle's); copy=False: an array sharing "
          "the tensor's memory, where writing to one shows in the other (selected rows: a "
          "dense copy either way).")
      .def(
          "_rows_parts",
          [](EagerTensor& t) {
            const SelectedRows* r = t.value.selected_rows();
            if (!r) throw nb::type_error("_rows_parts: the tensor holds no selected rows");
            return nb::make_tuple(array_from_tensor(r->value.clone()), r->rows);
          },
          "Selected rows as (the rows' values as an array, the row numbers).")
      .def("_dlpack_capsule", [](EagerTensor& t) { return view_of<>(own_dense(t)); })
      .def(
          "_set_value",
          [](EagerTensor& t, const EagerTensor& src) {
            t.value = src.value;
            publish_write(t);
          },
          "Makes this tensor hold `src`'s value (shared, copy-on-write); its views see it.")
      .def(
          "_view_of",
          [](const TensorPtr& t, const TensorPtr& base) {
            t->value = base->value;
            join_views(base, t);
          },
          "Makes this tensor a view of `base`: its value, and a write into either shows in "
          "the other (Paddle's detach).")
      .def(
          "_copy_value_from",
          [](EagerTensor& t, const EagerTensor& src) {
            t.value.mutable_tensor()->copy_from(src.dense());
            publish_write(t);
          },
          "Copies `src`'s value into this tensor's own memory.")
      .def(
          "_zero_",
          [](EagerTensor& t) {
            const Tensor& d = t.dense();
            t.value.set(Tensor::zeros_view(d.shape(), d.dtype()));
            publish_write(t);
          },
          "Sets the value to zeros without writing memory (Tensor::zeros_view).")
      .def("_share_memory_with",
           [](const EagerTensor& a, const EagerTensor& b) {
             return a.value.is_tensor() && b.value.is_tensor() &&
                    a.value.tensor()->shares_storage(*b.value.tensor());
           })
      .def("_data_ptr",
           [](EagerTensor& t) { return reinterpret_cast<uintptr_t>(own_dense(t).raw_data()); });

  m.def("set_python_dispatch", &set_python_dispatch, nb::arg("on"),
        "Makes Tensor's operators and _C.Op calls go through skiff.framework.core.apply "
        "(static mode, dispatch hooks) or run straight.");
  m.def(
      "tensor_from_array",
      [](nb::handle array, bool copy, const std::string& caller) {
        return eager::make_tensor(tensor_from_array(array, copy, caller.c_str()));
      },
      nb::arg("array").none(), nb::arg("copy") = false, nb::arg("caller") = "tensor_from_array",
      "A Tensor over a C-contiguous numpy array's (or DLPack producer's) memory, or a copy.");
}

}  // namespace skiff::python
