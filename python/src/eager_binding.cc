// Eager op calls and the tape: skiff._C.Op (eager/op_call.h), backward / grad
// (eager/backward.h) and tape nodes whose backward is a Python callable (PyLayer).
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/attr_convert.h"
#include "python/src/bindings.h"
#include "skiff/eager/backward.h"
#include "skiff/eager/grad_node.h"
#include "skiff/eager/op_call.h"
#include "skiff/eager/saved_hooks.h"

namespace skiff::python {

using eager::EagerOp;
using eager::EagerTensor;
using eager::SlotTensors;
using eager::TensorPtr;

namespace {

// One slot's tensors from a Tensor, a sequence of Tensors, or None.
std::vector<TensorPtr> slot_from_python(const EagerOp& op, size_t slot, nb::handle h) {
  if (h.is_none()) return {};
  if (nb::isinstance<EagerTensor>(h)) return {nb::cast<TensorPtr>(h)};
  if (PyList_Check(h.ptr()) || PyTuple_Check(h.ptr())) {
    std::vector<TensorPtr> out;
    for (nb::handle item : nb::borrow(h)) {
      if (!nb::isinstance<EagerTensor>(item))
        fail("op '", op.type(), "': input ", op.info().schema.inputs[slot].name,
             " wants Tensors, got ", nb::str(nb::handle(item.type()).attr("__name__")).c_str());
      out.push_back(nb::cast<TensorPtr>(item));
    }
    return out;
  }
  fail("op '", op.type(), "': input ", op.info().schema.inputs[slot].name, " wants a Tensor, got ",
       nb::str(nb::handle(h.type()).attr("__name__")).c_str());
}

SlotTensors slots_from_python(const EagerOp& op, nb::handle seq) {
  SlotTensors slots;
  size_t i = 0;
  for (nb::handle h : nb::borrow(seq)) slots.push_back(slot_from_python(op, i++, h));
  return slots;
}

// The outputs: the Tensor itself for a one-output op, else a tuple over output slots
// (a list for duplicable slots, None for an absent one).
nb::object outputs_to_python(const EagerOp& op, SlotTensors&& outs) {
  const auto& schema = op.info().schema.outputs;
  if (outs.size() == 1 && outs[0].size() == 1 && !schema[0].duplicable)
    return nb::cast(std::move(outs[0][0]));
  nb::list result;
  for (size_t s = 0; s < outs.size(); ++s) {
    if (schema[s].duplicable) {
      result.append(nb::cast(std::move(outs[s])));
    } else if (outs[s].empty()) {
      result.append(nb::none());
    } else {
      result.append(nb::cast(std::move(outs[s][0])));
    }
  }
  return nb::tuple(result);
}

// Runs `op` on the inputs in `args` (a tuple): the slot lists are reused from call to call.
PyObject* run_op(EagerOp& op, PyObject* args) {
  static SlotTensors inputs, outputs;
  static const SlotTensors no_outputs;
  try {
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    inputs.resize(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      nb::handle h(PyTuple_GET_ITEM(args, i));
      auto& slot = inputs[static_cast<size_t>(i)];
      slot.clear();
      if (nb::isinstance<EagerTensor>(h)) {
        slot.push_back(nb::cast<TensorPtr>(h));
      } else {
        slot = slot_from_python(op, static_cast<size_t>(i), h);
      }
    }
    op.run(inputs, no_outputs, &outputs);
    for (auto& slot : inputs) slot.clear();
    nb::object result = outputs_to_python(op, std::move(outputs));
    outputs.clear();
    return result.release().ptr();
  } catch (const Error& e) {
    for (auto& slot : inputs) slot.clear();
    outputs.clear();
    raise_eager_error(e);
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const std::exception& e) {
    raise_cpp_error(e);
  }
  return nullptr;
}

// Runs `op` writing into the tensors of `outputs` where given.
nb::object run_into(EagerOp& op, nb::handle inputs, nb::handle outputs) {
  return outputs_to_python(
      op, op.call_into(slots_from_python(op, inputs), slots_from_python(op, outputs)));
}

// op(x, y, ...): the type's call slot, straight from the interpreter (no attribute
// lookup, no argument parsing). While the dispatch point must see every call (static
// mode, hooks), it hands the call to skiff.framework.core.dispatch_call(op, args).
PyObject* call_op(PyObject* self, PyObject* args, PyObject* kwargs) noexcept {
  if (kwargs && PyDict_Size(kwargs) != 0) {
    PyErr_SetString(PyExc_TypeError, "ops take their inputs by position");
    return nullptr;
  }
  if (python_dispatch()) {
    try {
      // Leaked: the module outlives every call, and nothing may run after Python ends.
      static nb::handle dispatch_call =
          nb::object(nb::module_::import_("skiff.framework.core").attr("dispatch_call")).release();
      return dispatch_call(nb::handle(self), nb::handle(args)).release().ptr();
    } catch (nb::python_error& e) {
      e.restore();
      return nullptr;
    }
  }
  return run_op(*nb::inst_ptr<EagerOp>(self), args);
}

PyType_Slot op_slots[] = {{Py_tp_call, reinterpret_cast<void*>(call_op)}, {0, nullptr}};

// The Tensors (or None entries) of `seq`, a Tensor, a sequence of them or None, given to
// `fn` as argument `what`; anything else is a TypeError naming both.
std::vector<TensorPtr> tensors_or_none(const char* fn, const char* what, nb::handle seq) {
  std::vector<TensorPtr> out;
  if (seq.is_none()) return out;
  if (nb::isinstance<EagerTensor>(seq)) return {nb::cast<TensorPtr>(seq)};
  if (!PyList_Check(seq.ptr()) && !PyTuple_Check(seq.ptr())) {
    throw nb::type_error(str_cat(fn, ": ", what, " must be a Tensor or a list of Tensors, got ",
                                 nb::inst_name(seq).c_str())
                             .c_str());
  }
  size_t i = 0;
  for (nb::handle h : nb::borrow(seq)) {
    if (!h.is_none() && !nb::isinstance<EagerTensor>(h)) {
      throw nb::type_error(str_cat(fn, ": ", what, "[", i, "] must be a Tensor or None, got ",
                                   nb::inst_name(h).c_str())
                               .c_str());
    }
    out.push_back(h.is_none() ? nullptr : nb::cast<TensorPtr>(h));
    ++i;
  }
  return out;
}

// A Python callable kept by a tape node; its reference is dropped with the GIL held,
// whichever thread releases the node.
class PyCallable {
 public:
  explicit PyCallable(nb::handle fn) : fn_(fn.inc_ref().ptr()) {}
  ~PyCallable() { drop(); }
  PyCallable(const PyCallable&) = delete;
  PyCallable& operator=(const PyCallable&) = delete;

  void drop() {
    if (!fn_) return;
    nb::gil_scoped_acquire gil;
    Py_DECREF(fn_);
    fn_ = nullptr;
  }

  // fn(grads) with one Tensor or None per output gradient; returns one gradient per
  // input (None: none). Python exceptions propagate as themselves.
  std::vector<Variable> operator()(const std::vector<Variable>& grads) {
    nb::gil_scoped_acquire gil;
    SKIFF_CHECK(fn_, "the backward callable was released");
    nb::list args;
    for (const Variable& g : grads) {
      if (g.empty()) {
        args.append(nb::none());
      } else {
        args.append(nb::cast(eager::make_tensor(g)));
      }
    }
    nb::object result = nb::borrow(fn_)(args);
    std::vector<Variable> out;
    for (nb::handle h : result) {
      if (h.is_none()) {
        out.emplace_back();
        continue;
      }
      if (!nb::isinstance<EagerTensor>(h))
        fail("a backward callable returned ",
             nb::str(nb::handle(h.type()).attr("__name__")).c_str(),
             " where a Tensor or None was due");
      out.push_back(nb::cast<TensorPtr>(h)->value);
    }
    return out;
  }

 private:
  PyObject* fn_;
};

}  // namespace

void define_eager(nb::module_& m) {
  nb::class_<EagerOp>(m, "Op", "One op type with fixed attributes, called on Tensors.",
                      nb::type_slots(op_slots))
      .def(
          "__init__",
          [](EagerOp* self, const std::string& type, nb::handle attrs, nb::handle counts) {
            std::vector<int> output_counts;
            if (!counts.is_none()) output_counts = nb::cast<std::vector<int>>(counts);
            new (self) EagerOp(type, attrs_from_dict(type, attrs), output_counts);
          },
          nb::arg("type"), nb::arg("attrs").none() = nb::none(),
          nb::arg("output_counts").none() = nb::none())
      .def_prop_ro("type", [](const EagerOp& op) { return op.type(); })
      .def_prop_ro("attrs",
                   [](const EagerOp& op) {
                     nb::dict out;
                     for (const auto& [name, value] : op.attrs().items())
                       out[name.c_str()] = attr_to_python(value);
                     return out;
                   })
      .def_prop_ro("output_counts",
                   [](const EagerOp& op) -> nb::object {
                     if (op.output_counts().empty()) return nb::none();
                     return nb::cast(op.output_counts());
                   })
      // An op is its type and fixed attributes: a copy of a layer holding one shares it.
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__", [](nb::handle self, nb::handle) { return nb::borrow(self); },
          nb::arg("memo"))
      .def(
          "run",
          [](nb::handle self, nb::args args) {
            PyObject* out = run_op(*nb::inst_ptr<EagerOp>(self), args.ptr());
            if (!out) throw nb::python_error();
            return nb::steal(out);
          },
          "Runs the op on its inputs, never through the dispatch point (what the dispatch "
          "point itself and its hooks call).")
      .def(
          "call_into",
          [](nb::handle self, nb::handle inputs, nb::handle outputs) -> nb::object {
            if (python_dispatch()) {
              static nb::handle dispatch_call_into =  // leaked, as call_op's
                  nb::object(
                      nb::module_::import_("skiff.framework.core").attr("dispatch_call_into"))
                      .release();
              return nb::steal(dispatch_call_into(self, inputs, outputs).release());
            }
            return run_into(*nb::inst_ptr<EagerOp>(self), inputs, outputs);
          },
          nb::arg("inputs"), nb::arg("outputs"),
          "Runs the op writing into the given output Tensors (None: a new one).")
      .def(
          "run_into",
          [](EagerOp& op, nb::handle inputs, nb::handle outputs) {
            return run_into(op, inputs, outputs);
          },
          nb::arg("inputs"), nb::arg("outputs"),
          "call_into never through the dispatch point (for the dispatch point and its hooks).");

  m.def(
      "push_saved_tensors_hooks",
      [](nb::callable pack, nb::callable unpack) {
        // A packed Python object, released with the GIL held wherever the tape frees it.
        struct Packed {
          nb::object obj;
          ~Packed() {
            nb::gil_scoped_acquire gil;
            obj.reset();
          }
        };
        auto p = std::make_shared<nb::callable>(std::move(pack));
        auto u = std::make_shared<nb::callable>(std::move(unpack));
        eager::SavedValueHooks hooks;
        hooks.pack = [p](const Variable& v) -> std::shared_ptr<void> {
          nb::gil_scoped_acquire gil;
          auto packed = std::make_shared<Packed>();
          packed->obj = (*p)(nb::cast(eager::make_tensor(v)));
          return packed;
        };
        hooks.unpack = [u](const std::shared_ptr<void>& packed) {
          nb::gil_scoped_acquire gil;
          nb::object out = (*u)(static_cast<Packed*>(packed.get())->obj);
          if (!nb::isinstance<EagerTensor>(out)) {
            throw nb::type_error(("saved_tensors_hooks: unpack_hook must return a Tensor, got " +
                                  std::string(nb::inst_name(out).c_str()))
                                     .c_str());
          }
          return nb::cast<TensorPtr>(out)->value;
        };
        eager::push_saved_value_hooks(std::make_shared<eager::SavedValueHooks>(std::move(hooks)));
      },
      nb::arg("pack_hook"), nb::arg("unpack_hook"),
      "Until the matching pop: each value a recorded op saves for its gradient is kept as "
      "pack_hook(tensor), and given back to the backward as unpack_hook(packed).");
  m.def("pop_saved_tensors_hooks", &eager::pop_saved_value_hooks);
  m.def(
      "backward",
      [](nb::handle tensors, nb::handle grads, bool retain_graph) {
        eager::run_backward(tensors_or_none("backward", "tensors", tensors),
                            tensors_or_none("backward", "grad_tensor", grads), retain_graph);
      },
      nb::arg("tensors"), nb::arg("grads").none() = nb::none(), nb::arg("retain_graph") = false);
  m.def(
      "grad",
      [](nb::handle outputs, nb::handle inputs, nb::handle grads, bool retain_graph,
         bool allow_unused) {
        return eager::compute_grads(
            tensors_or_none("grad", "outputs", outputs), tensors_or_none("grad", "inputs", inputs),
            tensors_or_none("grad", "grad_outputs", grads), retain_graph, allow_unused);
      },
      nb::arg("outputs"), nb::arg("inputs"), nb::arg("grads").none() = nb::none(),
      nb::arg("retain_graph") = false, nb::arg("allow_unused") = false);
  m.def(
      "record_callback_node",
      [](std::vector<TensorPtr> inputs, std::vector<TensorPtr> outputs, nb::handle backward,
         std::string label) {
        auto fn = std::make_shared<PyCallable>(backward);
        auto callback = std::make_shared<eager::GradCallback>();
        callback->run = [fn](const std::vector<Variable>& grads) { return (*fn)(grads); };
        callback->release = [fn] { fn->drop(); };
        callback->label = std::move(label);
        eager::record_callback_node(inputs, outputs, std::move(callback));
      },
      nb::arg("inputs"), nb::arg("outputs"), nb::arg("backward"), nb::arg("label"),
      "Makes `outputs` (floating ones) the results of a tape node whose backward is "
      "backward([grad or None per output]) -> [grad or None per input]; gradients reach "
      "the inputs that want one.");
  m.def("is_grad_enabled", &eager::grad_enabled);
  m.def("set_grad_enabled", &eager::set_grad_enabled, nb::arg("on"));
}

}  // namespace skiff::python
