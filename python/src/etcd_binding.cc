// The etcd client (dist/etcd_client.h) as skiff._C.EtcdClient: the elastic launcher and
// workers keep membership, rendezvous and data-chunk leases in etcd with it. Calls
// release the GIL (they wait on the network).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"
#include "skiff/dist/etcd_client.h"

namespace skiff::python {

void define_etcd(nb::module_& m) {
  using dist::EtcdClient;
  using dist::KeyValue;
  using release = nb::call_guard<nb::gil_scoped_release>;
  nb::class_<KeyValue>(m, "EtcdKeyValue")
      .def_ro("key", &KeyValue::key)
      .def_ro("value", &KeyValue::value)
      .def_ro("create_revision", &KeyValue::create_revision)
      .def_ro("mod_revision", &KeyValue::mod_revision)
      .def_ro("lease", &KeyValue::lease);
  nb::class_<EtcdClient>(m, "EtcdClient", "A client of one etcd endpoint (HOST:PORT).")
      .def(
          "__init__",
          [](EtcdClient* self, const std::string& endpoint, double timeout) {
            new (self) EtcdClient(endpoint, std::chrono::milliseconds(int64_t(timeout * 1000)));
          },
          nb::arg("endpoint"), nb::arg("timeout") = 10.0)
      .def_prop_ro("endpoint", &EtcdClient::endpoint)
      .def("put", &EtcdClient::put, nb::arg("key"), nb::arg("value"), nb::arg("lease") = 0,
           release())
      .def("get", &EtcdClient::get, nb::arg("key"), release())
      .def("get_prefix", &EtcdClient::get_prefix, nb::arg("prefix"), release())
      .def("remove", &EtcdClient::remove, nb::arg("key"), release())
      .def("remove_prefix", &EtcdClient::remove_prefix, nb::arg("prefix"), release())
      .def("create", &EtcdClient::create, nb::arg("key"), nb::arg("value"), nb::arg("lease") = 0,
           release())
      .def("compare_and_swap", &EtcdClient::compare_and_swap, nb::arg("key"), nb::arg("expected"),
           nb::arg("value"), nb::arg("lease") = 0, release())
      .def(
          "wait",
          [](EtcdClient& c, const std::string& key, double timeout) {
            return c.wait(key, std::chrono::milliseconds(int64_t(timeout * 1000)));
          },
          nb::arg("key"), nb::arg("timeout"), release())
      .def("grant_lease", &EtcdClient::grant_lease, nb::arg("ttl"), release())
      .def("keep_alive", &EtcdClient::keep_alive, nb::arg("lease"), release())
      .def("revoke_lease", &EtcdClient::revoke_lease, nb::arg("lease"), release());
}

}  // namespace skiff::python
