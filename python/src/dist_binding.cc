// Communicators (dist/communicator.h, dist/gloo_communicator.h) and the background
// all-reduce of gradient buckets (dist/async_all_reduce.h) for skiff.distributed. The
// collectives work on a Tensor's memory in place or return a new Tensor, and release
// the GIL while they wait for the peers.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>

#include "python/src/bindings.h"
#include "skiff/dist/async_all_reduce.h"
#include "skiff/dist/gloo_communicator.h"
#include "skiff/eager/backward.h"
#include "skiff/eager/eager_tensor.h"

namespace skiff::python {

namespace {

using dist::Communicator;
using eager::EagerTensor;
using eager::TensorPtr;

// Runs `fn(comm)` on ring `ring_id` without the GIL.
template <typename Fn>
auto on_ring(int ring_id, Fn&& fn) {
  std::shared_ptr<Communicator> comm = dist::communicator(ring_id);
  nb::gil_scoped_release release;
  return fn(*comm);
}

// A collective that makes a new tensor from `x`.
template <typename Fn>
TensorPtr to_new(EagerTensor& x, int ring_id, Fn&& fn) {
  const Tensor& in = x.dense();
  Tensor out;
  on_ring(ring_id, [&](Communicator& c) { fn(c, in, &out); });
  return eager::make_tensor(std::move(out));
}

// The dense value to write in place, copied first when its memory is shared (a gradient
// passed through an add is the same tensor for both inputs: reducing it in place twice
// would be wrong).
Tensor& exclusive(EagerTensor& t) {
  Tensor& d = own_dense(t);
  if (d.storage().use_count() > 1) d = d.clone();
  return d;
}

}  // namespace

void define_dist(nb::module_& m) {
  nb::exception<dist::CommError>(m, "CommunicationError", error_type());

  m.def(
      "connect_gloo",
      [](dist::EtcdClient& etcd, const std::string& prefix, int rank, int size, int ring_id,
         const std::string& hostname, double timeout) {
        dist::GlooOptions options;
        options.hostname = hostname;
        options.timeout = std::chrono::milliseconds(int64_t(timeout * 1000));
        std::shared_ptr<Communicator> comm;
        {
          nb::gil_scoped_release release;
          comm = dist::connect_gloo(etcd, prefix, rank, size, options);
        }
        dist::set_communicator(ring_id, std::move(comm));
      },
      nb::arg("etcd"), nb::arg("prefix"), nb::arg("rank"), nb::arg("size"), nb::arg("ring_id") = 0,
      nb::arg("hostname") = "127.0.0.1", nb::arg("timeout") = 30.0,
      "Connects this rank to its peers through etcd and makes it ring `ring_id`.");
  m.def(
      "use_single_process_communicator",
      [](int ring_id) { dist::set_communicator(ring_id, dist::single_process_communicator()); },
      nb::arg("ring_id"), "Makes ring `ring_id` a world of this one process.");
  m.def("rendezvous_prefix", &dist::rendezvous_prefix, nb::arg("job_id"), nb::arg("epoch"),
        nb::arg("ring"), "The etcd prefix under which a ring of a membership epoch meets.");
  m.def(
      "drop_communicator", [](int ring_id) { dist::set_communicator(ring_id, nullptr); },
      nb::arg("ring_id"));
  m.def(
      "communicator_shape",
      [](int ring_id) -> nb::object {
        std::shared_ptr<Communicator> c = dist::find_communicator(ring_id);
        if (!c) return nb::none();
        return nb::make_tuple(c->rank(), c->size());
      },
      nb::arg("ring_id"), "(rank, size) of ring `ring_id`, or None.");
  m.def(
      "set_comm_timeout",
      [](int ring_id, double timeout) {
        dist::communicator(ring_id)->set_timeout(
            std::chrono::milliseconds(int64_t(timeout * 1000)));
      },
      nb::arg("ring_id"), nb::arg("timeout"));

  m.def(
      "comm_all_reduce",
      [](EagerTensor& x, const std::string& op, int ring_id) {
        Tensor& t = own_dense(x);
        on_ring(ring_id, [&](Communicator& c) { c.all_reduce(t, dist::reduce_op_from_name(op)); });
      },
      nb::arg("x"), nb::arg("op"), nb::arg("ring_id"));
  m.def(
      "comm_broadcast",
      [](EagerTensor& x, int root, int ring_id) {
        Tensor& t = own_dense(x);
        on_ring(ring_id, [&](Communicator& c) { c.broadcast(t, root); });
      },
      nb::arg("x"), nb::arg("root"), nb::arg("ring_id"));
  m.def(
      "comm_reduce",
      [](EagerTensor& x, int root, const std::string& op, int ring_id) {
        Tensor& t = own_dense(x);
        on_ring(ring_id,
                [&](Communicator& c) { c.reduce(t, root, dist::reduce_op_from_name(op)); });
      },
      nb::arg("x"), nb::arg("root"), nb::arg("op"), nb::arg("ring_id"));
  m.def(
      "comm_all_gather",
      [](EagerTensor& x, int ring_id) {
        const Tensor& in = x.dense();
        Tensor stacked;
        on_ring(ring_id, [&](Communicator& c) { c.all_gather(in, &stacked); });
        // One tensor per rank, each a copy of its part (any dtype).
        std::vector<TensorPtr> parts;
        const size_t bytes = in.nbytes();
        for (int64_t r = 0; r < stacked.dim(0); ++r) {
          Tensor part = Tensor::empty(in.shape(), in.dtype());
          if (bytes) {
            std::memcpy(part.raw_data(), static_cast<const char*>(stacked.raw_data()) + r * bytes,
                        bytes);
          }
          parts.push_back(eager::make_tensor(std::move(part)));
        }
        return parts;
      },
      nb::arg("x"), nb::arg("ring_id"), "Every rank's x, in rank order.");
  m.def(
      "comm_reduce_scatter",
      [](EagerTensor& x, const std::string& op, int ring_id) {
        dist::ReduceOp rop = dist::reduce_op_from_name(op);
        return to_new(x, ring_id, [&](Communicator& c, const Tensor& in, Tensor* out) {
          c.reduce_scatter(in, out, rop);
        });
      },
      nb::arg("x"), nb::arg("op"), nb::arg("ring_id"));
  m.def(
      "comm_scatter",
      [](EagerTensor& x, int root, int ring_id) {
        return to_new(x, ring_id, [&](Communicator& c, const Tensor& in, Tensor* out) {
          c.scatter(in, out, root);
        });
      },
      nb::arg("x"), nb::arg("root"), nb::arg("ring_id"));
  m.def(
      "comm_all_to_all",
      [](EagerTensor& x, int ring_id) {
        return to_new(x, ring_id, [](Communicator& c, const Tensor& in, Tensor* out) {
          c.all_to_all(in, out);
        });
      },
      nb::arg("x"), nb::arg("ring_id"));
  m.def(
      "comm_send",
      [](EagerTensor& x, int peer, int ring_id) {
        const Tensor& t = x.dense();
        on_ring(ring_id, [&](Communicator& c) { c.send(t, peer); });
      },
      nb::arg("x"), nb::arg("peer"), nb::arg("ring_id"));
  m.def(
      "comm_recv",
      [](EagerTensor& x, int peer, int ring_id) {
        Tensor& t = own_dense(x);
        on_ring(ring_id, [&](Communicator& c) { c.recv(t, peer); });
      },
      nb::arg("x"), nb::arg("peer"), nb::arg("ring_id"));
  m.def(
      "comm_barrier", [](int ring_id) { on_ring(ring_id, [](Communicator& c) { c.barrier(); }); },
      nb::arg("ring_id"));

  nb::class_<dist::AsyncAllReduce>(m, "AsyncAllReduce",
                                   "All-reduces groups of tensors on a background thread, in "
                                   "the order submitted.")
      .def(
          "__init__",
          [](dist::AsyncAllReduce* self, int ring_id, const std::string& op) {
            new (self)
                dist::AsyncAllReduce(dist::communicator(ring_id), dist::reduce_op_from_name(op));
          },
          nb::arg("ring_id"), nb::arg("op"))
      .def(
          "submit",
          [](dist::AsyncAllReduce& r, const std::vector<TensorPtr>& tensors) {
            std::vector<Tensor> group;
            for (const TensorPtr& t : tensors) group.push_back(exclusive(*t));
            r.submit(std::move(group));
          },
          nb::arg("tensors"))
      .def("wait", &dist::AsyncAllReduce::wait, nb::call_guard<nb::gil_scoped_release>());

  m.def(
      "register_grad_ready_hook",
      [](EagerTensor& t, nb::callable fn) {
        int id = t.grad_ready_hooks.empty() ? 0 : t.grad_ready_hooks.rbegin()->first + 1;
        auto py = std::make_shared<nb::callable>(std::move(fn));
        t.grad_ready_hooks[id] = [py](EagerTensor& tensor) {
          nb::gil_scoped_acquire gil;
          (*py)(nb::cast(tensor.shared_from_this()));
        };
        return id;
      },
      nb::arg("tensor"), nb::arg("hook"),
      "Calls hook(tensor) once each backward has accumulated all of tensor's gradient; "
      "returns an id for remove_grad_ready_hook.");
  m.def(
      "remove_grad_ready_hook", [](EagerTensor& t, int id) { t.grad_ready_hooks.erase(id); },
      nb::arg("tensor"), nb::arg("id"));
  m.def(
      "queue_backward_callback",
      [](nb::callable fn) {
        auto py = std::make_shared<nb::callable>(std::move(fn));
        eager::queue_backward_callback([py] {
          nb::gil_scoped_acquire gil;
          (*py)();
        });
      },
      nb::arg("fn"), "Runs fn() when the backward now running ends.");
}

}  // namespace skiff::python
