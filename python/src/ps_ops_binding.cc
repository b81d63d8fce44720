// skiff._C's part of static-program parameter-server training (passes/ps_split.h,
// ps_ops/ps_connection.h): ps_split rewrites a training program (the ps_split pass, run
// through the pipeline) and its startup program in place, ps_ops_connect hands a PsClient to the
// ps_* ops of this process, ps_ops_geo puts a connection in geo mode.
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <tuple>

#include "python/src/bindings.h"
#include "python/src/program_handle.h"
#include "skiff/passes/pipeline.h"
#include "skiff/passes/ps_split.h"
#include "skiff/ps/client.h"
#include "skiff/ps_ops/ps_connection.h"

namespace skiff::python {
namespace {

// The PsClient of each connection of the ps ops, referenced here so that it lives while
// they may call it. Never destroyed: a static nb::object would be released after the
// interpreter is gone.
std::map<int64_t, nb::object>& connected_clients() {
  static auto* held = new std::map<int64_t, nb::object>();
  return *held;
}

ps::Client* client_of(nb::handle client, const char* function) {
  if (!nb::isinstance<ps::Client>(client))
    throw nb::type_error(str_cat(function, ": client must be a skiff._C.PsClient").c_str());
  return nb::inst_ptr<ps::Client>(client);
}

using DenseValues = nb::ndarray<float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

}  // namespace

void define_ps_ops(nb::module_& m) {
  m.def(
      "ps_split",
      [](ProgramHandle& main, ProgramHandle& startup,
         const std::vector<std::tuple<std::string, std::string, int64_t>>& sparse,
         const std::vector<std::tuple<std::string, std::string>>& dense, const std::string& mode,
         int64_t k_steps) {
        // The ps_split pass (passes/registry.cc) by name, through the pipeline.
        PassOptions options;
        std::vector<std::string> sparse_params, sparse_tables, dense_params, dense_tables;
        std::vector<int64_t> sparse_dims;
        for (const auto& [param, table, dim] : sparse) {
          sparse_params.push_back(param);
          sparse_tables.push_back(table);
          sparse_dims.push_back(dim);
        }
        for (const auto& [param, table] : dense) {
          dense_params.push_back(param);
          dense_tables.push_back(table);
        }
        options.set("sparse_params", sparse_params);
        options.set("sparse_tables", sparse_tables);
        options.set("sparse_dims", sparse_dims);
        options.set("dense_params", dense_params);
        options.set("dense_tables", dense_tables);
        options.set("mode", mode);
        options.set("k_steps", k_steps);
        // Both results first, so that a refused program is left as it was.
        Program trainer = run_pipeline(*main.ir, {pass("ps_split", std::move(options))});
        Program trainer_startup = ps_split_startup(*startup.ir, *main.ir, trainer);
        *main.ir = std::move(trainer);
        *startup.ir = std::move(trainer_startup);
        main.touched();
        startup.touched();
      },
      nb::arg("main"), nb::arg("startup"), nb::arg("sparse"), nb::arg("dense"),
      nb::arg("mode") = "sync", nb::arg("k_steps") = 0,
      "Splits a training program and its startup program in place for parameter-server "
      "training: sparse is [(param, table, dim)], dense [(param, table)]; geo mode syncs "
      "every k_steps steps.");
  m.def(
      "ps_ops_connect",
      [](nb::handle client, const std::map<std::string, int64_t>& table_widths,
         int64_t first_step) {
        ps::Client* c = client_of(client, "ps_ops_connect");
        {
          nb::gil_scoped_release release;  // waits for ps ops running on other threads
          connect_ps_ops(c, table_widths, first_step);
        }
        connected_clients()[0] = nb::borrow(client);
      },
      nb::arg("client"), nb::arg("table_widths"), nb::arg("first_step") = 0,
      "Makes `client` the connection of a split program's ps_* ops (connection 0), with "
      "each table's width (floats per row of a sparse table, in all of a dense one); the "
      "next step is `first_step`.");
  m.def(
      "ps_ops_open",
      [](nb::handle client) {
        const int64_t handle = open_ps_ops_connection(client_of(client, "ps_ops_open"));
        connected_clients()[handle] = nb::borrow(client);
        return handle;
      },
      nb::arg("client"),
      "A new connection of the ps_* ops (their `connection` attr) to `client`, for eager "
      "layers; tables are added with ps_ops_add_table.");
  m.def("ps_ops_add_table", &add_ps_ops_table, nb::arg("connection"), nb::arg("table"),
        nb::arg("width"), "Lets the ops of `connection` use `table` of `width` floats.");
  m.def(
      "ps_ops_disconnect",
      [](int64_t connection) {
        {
          nb::gil_scoped_release release;
          disconnect_ps_ops(connection);
        }
        connected_clients().erase(connection);
      },
      nb::arg("connection") = 0,
      "Forgets a connection of the ps ops (0: the split program's); its ops then fail.");
  m.def(
      "ps_ops_geo",
      [](int64_t connection, int trainers, const std::map<std::string, DenseValues>& bases) {
        std::map<std::string, std::vector<float>> copies;
        for (const auto& [table, values] : bases)
          copies[table].assign(values.data(), values.data() + values.size());
        set_ps_ops_geo(connection, trainers, std::move(copies));
      },
      nb::arg("connection"), nb::arg("trainers"), nb::arg("dense_bases"),
      "Puts a connection of the ps ops in geo mode for a job of `trainers`; dense_bases "
      "maps each dense table to the float32 values the trainer pulled into its parameter.");
  m.def(
      "ps_ops_geo_sync",
      [](int64_t connection, const std::map<std::string, DenseValues>& dense, bool final) {
        std::map<std::string, std::pair<float*, int64_t>> values;
        for (const auto& [table, array] : dense)
          values[table] = {array.data(), static_cast<int64_t>(array.size())};
        nb::gil_scoped_release release;
        ps_ops_geo_sync(connection, values, final);
      },
      nb::arg("connection"), nb::arg("dense"), nb::arg("final") = false,
      "A geo sync of a connection outside its program: dense maps each dense table to the "
      "trainer's float32 values (of the table's width), written in place; final (after the "
      "last step) sends the share of what moved, drops the carries and pulls nothing.");
  m.def("ps_ops_step", &ps_ops_step, nb::arg("connection") = 0,
        "The step a connection's ps ops push gradients for now.");
}

}  // namespace skiff::python
