// Emitter rules of the collective ops (ops/collective.cc, ops/model_parallel.cc): the calls of
// dist/collective.h that the ops' kernels make, on the communicator of the op's ring. A model with
// them joins the job it is launched in when a context is made (dist/parallel_env.h), so it needs a
// target that links libskiff (and libskiff_dist): x86-64.
#include <cstdint>
#include <string>

#include "skiff/codegen/op_rules.h"
#include "skiff/dist/communicator.h"

namespace skiff::codegen {

namespace {

// "dist::ring_<call>(ring, X" for an op with an input X; notes that the model communicates.
std::string ring_call(OpEmitter& e, const char* call) {
  e.use_communicator();
  return std::string("dist::ring_") + call + "(" + OpEmitter::lit(e.attr<int64_t>("ring_id")) +
         ", " + e.in("X");
}

std::string reduce_op_lit(dist::ReduceOp op) {
  static const char* const kNames[] = {"kSum", "kMax", "kMin", "kProd", "kAvg"};
  return std::string("dist::ReduceOp::") + kNames[static_cast<int>(op)];
}

template <dist::ReduceOp kOp>
void emit_allreduce(OpEmitter& e) {
  e.line(ring_call(e, "all_reduce") + ", " + reduce_op_lit(kOp) + ", " + e.out("Out") + ");");
}

template <dist::ReduceOp kOp>
void emit_reduce(OpEmitter& e) {
  e.line(ring_call(e, "reduce") + ", " + OpEmitter::lit(e.attr<int64_t>("root_id")) + ", " +
         reduce_op_lit(kOp) + ", " + e.out("Out") + ");");
}

// broadcast and scatter: from rank `root`.
template <const char* kCall>
void emit_from_root(OpEmitter& e) {
  e.line(ring_call(e, kCall) + ", " + OpEmitter::lit(e.attr<int64_t>("root")) + ", " +
         e.out("Out") + ");");
}

template <const char* kCall>
void emit_x_to_out(OpEmitter& e) {
  e.line(ring_call(e, kCall) + ", " + e.out("Out") + ");");
}

void emit_send(OpEmitter& e) {
  e.line(ring_call(e, "send") + ", " + OpEmitter::lit(e.attr<int64_t>("peer")) + ");");
}

void emit_recv(OpEmitter& e) {
  e.use_communicator();
  e.line("dist::ring_recv(" + OpEmitter::lit(e.attr<int64_t>("ring_id")) + ", " +
         OpEmitter::shape_lit(Shape(e.attr<std::vector<int64_t>>("out_shape"))) + ", " +
         OpEmitter::dtype_lit(dtype_from_name(e.attr<std::string>("dtype"))) + ", " +
         OpEmitter::lit(e.attr<int64_t>("peer")) + ", " + e.out("Out") + ");");
}

// The tensor-parallel ops (ops/model_parallel.cc).
void emit_identity(OpEmitter& e) { e.line(e.out_ref("Out") + ".copy_from(" + e.in("X") + ");"); }

void emit_split_last(OpEmitter& e) {
  e.line("dist::split_last(" + e.in("X") + ", " + OpEmitter::lit(e.attr<int64_t>("rank")) + ", " +
         OpEmitter::lit(e.attr<int64_t>("nranks")) + ", " + e.out("Out") + ");");
}

constexpr char kBroadcast[] = "broadcast";
constexpr char kScatter[] = "scatter";
constexpr char kAllGather[] = "all_gather";
constexpr char kReduceScatter[] = "reduce_scatter";
constexpr char kAllToAll[] = "all_to_all";
constexpr char kAllGatherLast[] = "all_gather_last";

}  // namespace

void add_collective_rules(RuleTable& t) {
  using dist::ReduceOp;
  t["c_allreduce_sum"] = emit_allreduce<ReduceOp::kSum>;
  t["c_allreduce_avg"] = emit_allreduce<ReduceOp::kAvg>;
  t["c_allreduce_max"] = emit_allreduce<ReduceOp::kMax>;
  t["c_allreduce_min"] = emit_allreduce<ReduceOp::kMin>;
  t["c_allreduce_prod"] = emit_allreduce<ReduceOp::kProd>;
  t["c_reduce_sum"] = emit_reduce<ReduceOp::kSum>;
  t["c_reduce_max"] = emit_reduce<ReduceOp::kMax>;
  t["c_reduce_min"] = emit_reduce<ReduceOp::kMin>;
  t["c_reduce_prod"] = emit_reduce<ReduceOp::kProd>;
  t["c_broadcast"] = emit_from_root<kBroadcast>;
  t["c_scatter"] = emit_from_root<kScatter>;
  t["c_allgather"] = emit_x_to_out<kAllGather>;
  t["c_reducescatter"] = emit_x_to_out<kReduceScatter>;
  t["alltoall"] = emit_x_to_out<kAllToAll>;
  t["c_identity"] = emit_identity;
  t["mp_allreduce_sum"] = emit_allreduce<ReduceOp::kSum>;
  t["c_split"] = emit_split_last;
  t["c_concat"] = emit_x_to_out<kAllGatherLast>;
  t["send_v2"] = emit_send;
  t["recv_v2"] = emit_recv;
}

}  // namespace skiff::codegen
