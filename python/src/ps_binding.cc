// skiff._C's part of the parameter server (ps/server.h, ps/client.h): PsServer and
// PsClient, which skiff.distributed.ps builds on. Network calls run without the GIL.
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"
#include "skiff/ps/client.h"
#include "skiff/ps/server.h"

namespace skiff::python {
namespace {

using Release = nb::call_guard<nb::gil_scoped_release>;
using Ids = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Rows = nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Values = nb::ndarray<const float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// A new float32 numpy array of `shape`, filled by `fill(data)` without the GIL.
template <typename Fill>
nb::object new_floats(std::vector<size_t> shape, Fill&& fill) {
  size_t count = 1;
  for (size_t d : shape) count *= d;
  auto* data = new float[count];
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<float*>(p); });
  {
    nb::gil_scoped_release release;
    fill(data);
  }
  return nb::ndarray<nb::numpy, float>(data, shape.size(), shape.data(), owner).cast();
}

// The fields of an initializer or optimizer given as a dict ({"kind": "uniform", ...}).
template <typename Config>
Config config_from(const nb::dict& fields, const char* what);

template <>
ps::InitializerConfig config_from(const nb::dict& fields, const char*) {
  ps::InitializerConfig c;
  for (auto [key, value] : fields) {
    const std::string k = nb::cast<std::string>(key);
    if (k == "kind")
      c.kind = nb::cast<std::string>(value);
    else if (k == "low")
      c.low = nb::cast<float>(value);
    else if (k == "high")
      c.high = nb::cast<float>(value);
    else if (k == "mean")
      c.mean = nb::cast<float>(value);
    else if (k == "std")
      c.std = nb::cast<float>(value);
    else if (k == "value")
      c.value = nb::cast<float>(value);
    else if (k == "seed")
      c.seed = nb::cast<uint64_t>(value);
    else
      fail("PsClient.create_table: unknown initializer field '", k, "'");
  }
  return c;
}

template <>
ps::OptimizerConfig config_from(const nb::dict& fields, const char*) {
  ps::OptimizerConfig c;
  for (auto [key, value] : fields) {
    const std::string k = nb::cast<std::string>(key);
    if (k == "kind")
      c.kind = nb::cast<std::string>(value);
    else if (k == "lr")
      c.lr = nb::cast<float>(value);
    else if (k == "beta1")
      c.beta1 = nb::cast<float>(value);
    else if (k == "beta2")
      c.beta2 = nb::cast<float>(value);
    else if (k == "epsilon")
      c.epsilon = nb::cast<float>(value);
    else if (k == "initial_g2sum")
      c.initial_g2sum = nb::cast<float>(value);
    else
      fail("PsClient.create_table: unknown optimizer field '", k, "'");
  }
  return c;
}

ps::Mode mode_of(const std::string& name) {
  if (name == "async") return ps::Mode::kAsync;
  if (name == "sync") return ps::Mode::kSync;
  if (name == "geo") return ps::Mode::kGeo;
  fail("PsClient.create_table: mode '", name, "' (async, sync or geo)");
}

}  // namespace

void define_ps(nb::module_& m) {
  nb::class_<ps::Server>(m, "PsServer")
      .def(
          "__init__",
          [](ps::Server* self, const std::string& address, int shard, int shards,
             const std::string& checkpoint_dir, double checkpoint_secs, const std::string& load_dir,
             const std::vector<std::string>& load_tables) {
            new (self) ps::Server(ps::ServerOptions{address, shard, shards, checkpoint_dir,
                                                    checkpoint_secs, load_dir, load_tables});
          },
          nb::arg("address") = "127.0.0.1:0", nb::arg("shard") = 0, nb::arg("shards") = 1,
          nb::arg("checkpoint_dir") = "", nb::arg("checkpoint_secs") = 30.0,
          nb::arg("load_dir") = "", nb::arg("load_tables") = std::vector<std::string>(), Release())
      .def_prop_ro("port", &ps::Server::port)
      .def("wait", &ps::Server::wait, Release())
      .def("shutdown", &ps::Server::shutdown, Release());

  nb::class_<ps::Client>(m, "PsClient")
      .def(nb::init<std::vector<std::string>, int, double, double, double>(), nb::arg("endpoints"),
           nb::arg("trainer"), nb::arg("connect_secs") = 10.0, nb::arg("call_secs") = 0.0,
           nb::arg("recover_secs") = 60.0, Release())
      .def_prop_ro("servers", &ps::Client::servers)
      .def(
          "create_table",
          [](ps::Client& c, const std::string& name, bool dense, int dim, int64_t size,
             const nb::dict& init, const nb::dict& optimizer, int admit_count,
             double admit_probability, double ttl_secs, const std::string& mode, int trainers,
             double barrier_timeout) {
            ps::TableSpec spec;
            spec.name = name;
            spec.dense = dense;
            spec.dim = dim;
            spec.size = size;
            spec.init = config_from<ps::InitializerConfig>(init, "initializer");
            spec.optimizer = config_from<ps::OptimizerConfig>(optimizer, "optimizer");
            spec.admit_count = admit_count;
            spec.admit_probability = admit_probability;
            spec.ttl_secs = ttl_secs;
            nb::gil_scoped_release release;
            c.create_table(spec, mode_of(mode), trainers, barrier_timeout);
          },
          nb::arg("name"), nb::arg("dense") = false, nb::arg("dim") = 0, nb::arg("size") = 0,
          nb::arg("init") = nb::dict(), nb::arg("optimizer") = nb::dict(),
          nb::arg("admit_count") = 0, nb::arg("admit_probability") = 0.0, nb::arg("ttl_secs") = 0.0,
          nb::arg("mode") = "async", nb::arg("trainers") = 1, nb::arg("barrier_timeout") = 300.0)
      .def(
          "pull_sparse",
          [](ps::Client& c, const std::string& table, const Ids& ids, int dim) {
            return new_floats({ids.shape(0), static_cast<size_t>(dim)}, [&](float* out) {
              c.pull_sparse(table, ids.data(), ids.shape(0), out);
            });
          },
          nb::arg("table"), nb::arg("ids"), nb::arg("dim"))
      .def(
          "push_sparse",
          [](ps::Client& c, const std::string& table, const Ids& ids, const Rows& values,
             int64_t step) {
            SKIFF_CHECK(values.shape(0) == ids.shape(0), "PsClient.push_sparse '", table,
                        "': ", ids.shape(0), " ids but ", values.shape(0), " rows");
            c.push_sparse(table, ids.data(), ids.shape(0), values.data(), step);
          },
          nb::arg("table"), nb::arg("ids"), nb::arg("values"), nb::arg("step") = 0, Release())
      .def(
          "pull_dense",
          [](ps::Client& c, const std::string& table, int64_t size) {
            return new_floats({static_cast<size_t>(size)},
                              [&](float* out) { c.pull_dense(table, out); });
          },
          nb::arg("table"), nb::arg("size"))
      .def(
          "push_dense",
          [](ps::Client& c, const std::string& table, const Values& values, int64_t step) {
            c.push_dense(table, values.data(), step);
          },
          nb::arg("table"), nb::arg("values"), nb::arg("step") = 0, Release())
      .def(
          "assign_dense",
          [](ps::Client& c, const std::string& table, const Values& values) {
            c.assign_dense(table, values.data());
          },
          nb::arg("table"), nb::arg("values"), Release())
      .def("barrier", &ps::Client::barrier, nb::arg("step"), Release())
      .def("save", &ps::Client::save, nb::arg("folder"), Release())
      .def("load", &ps::Client::load, nb::arg("folder"), Release())
      .def("shrink", &ps::Client::shrink, nb::arg("untouched_secs") = 0.0, Release())
      .def("info",
           [](ps::Client& c) {
             std::vector<ps::TableInfo> tables;
             {
               nb::gil_scoped_release release;
               tables = c.info();
             }
             nb::list out;
             for (const ps::TableInfo& t : tables) {
               nb::dict d;
               d["name"] = t.name;
               d["rows"] = t.rows;
               d["pulls"] = t.pulls;
               d["pushes"] = t.pushes;
               d["dropped_unadmitted"] = t.dropped_unadmitted;
               d["evicted"] = t.evicted;
               out.append(d);
             }
             return out;
           })
      .def("progress",
           [](ps::Client& c) {
             std::vector<ps::ServerProgress> servers;
             {
               nb::gil_scoped_release release;
               servers = c.progress();
             }
             nb::list out;
             for (const ps::ServerProgress& p : servers) {
               nb::dict d;
               d["endpoint"] = p.endpoint;
               d["incarnation"] = p.incarnation;
               d["checkpointing"] = p.checkpointing;
               d["checkpoints"] = p.checkpoints;
               d["restored"] = p.restored;
               d["applied_step"] = p.applied_step;
               d["pushes_applied"] = p.pushes_applied;
               d["pushes_sent"] = p.pushes_sent;
               d["recoveries"] = p.recoveries;
               d["unacknowledged"] = p.unacknowledged;
               out.append(d);
             }
             return out;
           })
      .def("stop_servers", &ps::Client::stop_servers, Release());
}

}  // namespace skiff::python
