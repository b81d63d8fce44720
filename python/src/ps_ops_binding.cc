// skiff._C's part of static-program parameter-server training (passes/ps_split.h,
// ps_ops/ps_connection.h): ps_split rewrites a training program and its startup program
// in place, ps_ops_connect hands a PsClient to the ps_* ops of this process.
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <tuple>

#include "python/src/bindings.h"
#include "python/src/program_handle.h"
#include "skiff/passes/ps_split.h"
#include "skiff/ps/client.h"
#include "skiff/ps_ops/ps_connection.h"

namespace skiff::python {
namespace {

// The PsClient the ps ops use, referenced here so that it lives while they may call it.
// Never destroyed: a static nb::object would be released after the interpreter is gone.
nb::object& connected_client() {
  static nb::object* held = new nb::object();
  return *held;
}

PsSplitMode split_mode(const std::string& mode) {
  if (mode == "sync") return PsSplitMode::kSync;
  if (mode == "async") return PsSplitMode::kAsync;
  fail("ps_split: mode '", mode, "' (static programs train in 'sync' or 'async' mode)");
}

}  // namespace

void define_ps_ops(nb::module_& m) {
  m.def(
      "ps_split",
      [](ProgramHandle& main, ProgramHandle& startup,
         const std::vector<std::tuple<std::string, std::string, int64_t>>& sparse,
         const std::vector<std::tuple<std::string, std::string>>& dense, const std::string& mode) {
        PsSplitOptions options;
        for (const auto& [param, table, dim] : sparse)
          options.sparse.push_back({param, table, dim});
        for (const auto& [param, table] : dense) options.dense.push_back({param, table});
        options.mode = split_mode(mode);
        // Both results first, so that a refused program is left as it was.
        Program trainer = ps_split(*main.ir, options);
        Program trainer_startup = ps_split_startup(*startup.ir, *main.ir, trainer);
        *main.ir = std::move(trainer);
        *startup.ir = std::move(trainer_startup);
        main.touched();
        startup.touched();
      },
      nb::arg("main"), nb::arg("startup"), nb::arg("sparse"), nb::arg("dense"),
      nb::arg("mode") = "sync",
      "Splits a training program and its startup program in place for parameter-server "
      "training: sparse is [(param, table, dim)], dense [(param, table)].");
  m.def(
      "ps_ops_connect",
      [](nb::handle client, const std::map<std::string, int64_t>& table_widths,
         int64_t first_step) {
        if (!nb::isinstance<ps::Client>(client))
          throw nb::type_error("ps_ops_connect: client must be a skiff._C.PsClient");
        ps::Client* c = nb::inst_ptr<ps::Client>(client);
        {
          nb::gil_scoped_release release;  // waits for ps ops running on other threads
          connect_ps_ops(c, table_widths, first_step);
        }
        connected_client() = nb::borrow(client);
      },
      nb::arg("client"), nb::arg("table_widths"), nb::arg("first_step") = 0,
      "Makes `client` the connection of the ps_* ops, with each table's width (floats per "
      "row of a sparse table, in all of a dense one); the next step is `first_step`.");
  m.def(
      "ps_ops_disconnect",
      [] {
        {
          nb::gil_scoped_release release;
          disconnect_ps_ops();
        }
        connected_client() = nb::object();
      },
      "Forgets the ps ops' connection (they then fail until ps_ops_connect).");
  m.def("ps_ops_step", &ps_ops_step, "The step the ps ops push gradients for now.");
}

}  // namespace skiff::python
