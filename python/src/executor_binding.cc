// Running programs from Python (runtime/scope.h, runtime/executor.h): skiff._C.Scope
// holds the variables; skiff._C.Executor feeds, runs and fetches, keeping each
// prepared program per (program revision, fetch list), so a repeated run costs only
// the feeds, the kernels and the fetches. Feeds and fetches share memory with numpy.
#include <nanobind/stl/map.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <utility>

#include "python/src/bindings.h"
#include "python/src/program_handle.h"
#include "skiff/eager/eager_tensor.h"
#include "skiff/runtime/executor.h"
#include "skiff/runtime/nan_inf_check.h"
#include "skiff/runtime/scope.h"

namespace skiff::python {

using eager::EagerTensor;
using eager::TensorPtr;

namespace {

// A dense tensor from a skiff Tensor (its value, shared) or an array (`copy`: copied,
// else shared where the layout allows).
Tensor value_from_python(nb::handle h, bool copy) {
  if (nb::isinstance<EagerTensor>(h)) return nb::cast<const EagerTensor&>(h).dense();
  return tensor_from_array(h, copy, "Executor.run: a feed");
}

class PyExecutor {
 public:
  std::vector<TensorPtr> run(ProgramHandle& handle, Scope* scope, nb::dict feeds,
                             const std::vector<std::string>& fetches) {
    Entry& entry = prepared(handle, fetches);
    for (auto [name, value] : feeds)
      feed(*entry.program, scope, nb::cast<std::string>(name), value_from_python(value, false));
    {
      nb::gil_scoped_release no_gil;
      exe_.run(*entry.prepared, scope);
    }
    std::vector<TensorPtr> out;
    out.reserve(fetches.size());
    for (const std::string& name : fetches) {
      const Variable* v = scope->find_var(name);
      SKIFF_CHECK(v && !v->empty(), "fetch '", name, "': the variable holds no value",
                  " (was it computed? temporaries are freed unless fetched)");
      out.push_back(eager::make_tensor(*v));
    }
    return out;
  }

  size_t cached() const { return cache_.size(); }

 private:
  struct Entry {
    std::shared_ptr<const Program> program;  // the program as prepared
    std::shared_ptr<PreparedBlock> prepared;
  };
  using Key = std::pair<uint64_t, std::vector<std::string>>;

  Entry& prepared(ProgramHandle& handle, const std::vector<std::string>& fetches) {
    Key key(handle.revision, fetches);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    // Programs edited between runs leave stale entries: drop them all past a bound.
    if (cache_.size() >= kMaxEntries) cache_.clear();
    Entry e;
    e.program = std::make_shared<const Program>(*handle.ir);
    e.prepared = exe_.prepare(*e.program, fetches);
    return cache_.emplace(std::move(key), std::move(e)).first->second;
  }

  static constexpr size_t kMaxEntries = 64;
  Executor exe_;
  std::map<Key, Entry> cache_;
};

}  // namespace

void define_executor(nb::module_& m) {
  nb::class_<Scope>(m, "Scope", "Variables of running programs (parameters persist here).")
      .def(nb::init<>())
      .def_prop_ro("id", &Scope::id)
      .def("var_names", &Scope::local_names)
      .def(
          "has_var", [](const Scope& s, const std::string& n) { return s.find_var(n) != nullptr; },
          nb::arg("name"))
      .def(
          "get",
          [](const Scope& s, const std::string& n) -> nb::object {
            const Variable* v = s.find_var(n);
            if (!v || v->empty()) return nb::none();
            return nb::cast(eager::make_tensor(*v));
          },
          nb::arg("name"), "The value of `name` as a Tensor sharing its memory, or None.")
      .def(
          "set",
          [](Scope& s, const std::string& n, nb::handle value) {
            s.var(n)->set(value_from_python(value, true));
          },
          nb::arg("name"), nb::arg("value"),
          "Sets `name` to a Tensor's value (shared, copy-on-write) or a copy of an array.")
      .def(
          "erase",
          [](Scope& s, const std::string& n) {
            if (Variable* v = s.find_local(n)) v->clear();
          },
          nb::arg("name"));

  nb::class_<PyExecutor>(m, "Executor", "Runs programs; keeps prepared programs for reuse.")
      .def(nb::init<>())
      .def("run", &PyExecutor::run, nb::arg("program"), nb::arg("scope"), nb::arg("feeds"),
           nb::arg("fetches"),
           "Feeds (checked against block 0's declarations), runs block 0, returns the "
           "fetched values as Tensors sharing memory.")
      .def_prop_ro("num_cached", &PyExecutor::cached);

  m.def("set_check_nan_inf", &set_check_nan_inf, nb::arg("on"),
        "After every kernel, stop at the first output holding NaN or Inf.");
  m.def("check_nan_inf", &check_nan_inf_enabled);
}

}  // namespace skiff::python
