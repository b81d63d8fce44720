#include "skiff/dist/communicator.h"

#include <map>
#include <mutex>

namespace skiff::dist {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kProd:
      return "prod";
    case ReduceOp::kAvg:
      return "avg";
  }
  return "?";
}

ReduceOp reduce_op_from_name(const std::string& name) {
  for (ReduceOp op :
       {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin, ReduceOp::kProd, ReduceOp::kAvg}) {
    if (name == reduce_op_name(op)) return op;
  }
  fail("unknown reduce op '", name, "' (expected sum, max, min, prod or avg)");
}

namespace {

class SingleProcessCommunicator : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void set_timeout(std::chrono::milliseconds) override {}

  void all_reduce(Tensor& x, ReduceOp op) override {
    SKIFF_CHECK(op != ReduceOp::kAvg || is_floating(x.dtype()),
                "all_reduce: avg needs a floating dtype, got ", dtype_name(x.dtype()));
  }
  void broadcast(Tensor&, int root) override { check_root("broadcast", root); }
  void reduce(Tensor&, int root, ReduceOp) override { check_root("reduce", root); }
  void all_gather(const Tensor& x, Tensor* out) override {
    std::vector<int64_t> dims = x.shape().vec();
    dims.insert(dims.begin(), 1);
    *out = x.clone();
    out->reshape(Shape(dims));
  }
  void reduce_scatter(const Tensor& x, Tensor* out, ReduceOp) override { *out = x.clone(); }
  void scatter(const Tensor& x, Tensor* out, int root) override {
    check_root("scatter", root);
    *out = x.clone();
  }
  void all_to_all(const Tensor& x, Tensor* out) override { *out = x.clone(); }
  void send(const Tensor&, int peer) override { no_peer("send", peer); }
  void recv(Tensor&, int peer) override { no_peer("recv", peer); }
  void barrier() override {}

 private:
  static void check_root(const char* what, int root) {
    SKIFF_CHECK(root == 0, what, ": root ", root, " is not a rank of a world of one process");
  }
  [[noreturn]] static void no_peer(const char* what, int peer) {
    fail(what, ": no peer ", peer, " in a world of one process");
  }
};

std::mutex& rings_mutex() {
  static std::mutex m;
  return m;
}

std::map<int, std::shared_ptr<Communicator>>& rings() {
  static std::map<int, std::shared_ptr<Communicator>> r;
  return r;
}

}  // namespace

std::shared_ptr<Communicator> single_process_communicator() {
  return std::make_shared<SingleProcessCommunicator>();
}

std::string rendezvous_prefix(const std::string& job_id, int epoch, int ring) {
  return str_cat("/skiff/", job_id, "/rendezvous/epoch", epoch, "/ring", ring, "/");
}

std::shared_ptr<Communicator> find_communicator(int ring_id) {
  std::lock_guard<std::mutex> lock(rings_mutex());
  auto it = rings().find(ring_id);
  return it == rings().end() ? nullptr : it->second;
}

std::shared_ptr<Communicator> communicator(int ring_id) {
  std::shared_ptr<Communicator> c = find_communicator(ring_id);
  SKIFF_CHECK(c != nullptr, "no communicator for ring ", ring_id,
              ": call skiff.distributed.init_parallel_env() (or new_group) first");
  return c;
}

void set_communicator(int ring_id, std::shared_ptr<Communicator> comm) {
  std::lock_guard<std::mutex> lock(rings_mutex());
  if (comm) {
    rings()[ring_id] = std::move(comm);
  } else {
    rings().erase(ring_id);
  }
}

}  // namespace skiff::dist
