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

std::mutex& rings_mutex() {
  static std::mutex m;
  return m;
}

std::map<int, std::shared_ptr<Communicator>>& rings() {
  static std::map<int, std::shared_ptr<Communicator>> r;
  return r;
}

}  // namespace

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
