// The tensor-parallel ops (Paddle's names): the communication of a layer split over the
// ranks of a model-parallel ring, each with the gradient that keeps the split model equal
// to the whole one. Every rank of the ring computes the same loss from the replicated
// parts, so:
//   c_identity        Out = X (a replicated input entering a split layer); its gradient
//                     is summed over the ranks (each rank's part of the layer sent some).
//   mp_allreduce_sum  Out = the sum over ranks of X (partial products leaving a split
//                     layer); its gradient goes back unchanged.
//   c_split           Out = this rank's part of X's last axis; gradient: gathered.
//   c_concat          Out = every rank's X joined along the last axis; gradient: split.
#include "skiff/dist/collective.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

#define SKIFF_MP_DTYPES \
  { DType::kF32, DType::kF64, DType::kBF16 }

int ring(const KernelContext& ctx) { return static_cast<int>(ctx.attr<int64_t>("ring_id")); }

int int_attr(const KernelContext& ctx, const char* name) {
  return static_cast<int>(ctx.attr<int64_t>(name));
}

void identity_kernel(KernelContext& ctx) { ctx.out("Out")->copy_from(ctx.in("X")); }

void allreduce_sum_kernel(KernelContext& ctx) {
  dist::ring_all_reduce(ring(ctx), ctx.in("X"), dist::ReduceOp::kSum, ctx.out("Out"));
}

void split_kernel(KernelContext& ctx) {
  dist::split_last(ctx.in("X"), int_attr(ctx, "rank"), int_attr(ctx, "nranks"), ctx.out("Out"));
}

void concat_kernel(KernelContext& ctx) {
  dist::ring_all_gather_last(ring(ctx), ctx.in("X"), ctx.out("Out"));
}

// The last axis of X divided (c_split) or multiplied (c_concat) by nranks.
template <bool kSplit>
void infer_last_axis(ShapeContext& ctx) {
  Shape s = ctx.in_shape("X");
  const std::string& type = ctx.op().type;
  SKIFF_CHECK(s.rank() >= 1, type, ": X must have an axis to ", kSplit ? "split" : "join",
              ", got a scalar");
  const int64_t n = ctx.attr<int64_t>("nranks");
  const int64_t rank = ctx.attr<int64_t>("rank");
  SKIFF_CHECK(n >= 1 && rank >= 0 && rank < n, type, ": rank ", rank, " is not in [0, nranks ", n,
              ")");
  int64_t& last = s[s.rank() - 1];
  if (last >= 0) {
    SKIFF_CHECK(!kSplit || last % n == 0, type, ": X's last axis (", ctx.in_shape("X"),
                ") is not divisible by nranks ", n);
    last = kSplit ? last / n : last * n;
  }
  ctx.set_output("Out", s, ctx.in_dtype("X"));
}

// The gradient op `kType` on the same ring (and rank, nranks where the op has them).
template <const char* kType>
void grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  OpDesc& op = g.add(kType).set_input("X", {g.out_grad("Out")}).set_output("Out", {g.in_grad("X")});
  op.set_attr("ring_id", g.fwd().attr<int64_t>("ring_id"));
  if (g.fwd().attrs.find("nranks")) {
    op.set_attr("rank", g.fwd().attr<int64_t>("rank"));
    op.set_attr("nranks", g.fwd().attr<int64_t>("nranks"));
  }
}

constexpr char kAllreduceSum[] = "c_allreduce_sum";
constexpr char kIdentity[] = "c_identity";
constexpr char kSplit[] = "c_split";
constexpr char kConcat[] = "c_concat";

OpBuilder mp_op(OpRegistry& r, const char* type, const char* doc) {
  return r.add(type)
      .doc(doc)
      .input("X", "this rank's tensor")
      .output("Out", "the result on this rank")
      .attr("ring_id", int64_t{0}, "the model-parallel group's communicator")
      .kernel_dtype_from("X");
}

}  // namespace

void register_model_parallel_ops(OpRegistry& r) {
  mp_op(r, "c_identity",
        "Out = X; X's gradient is the sum over the ranks of Out's (X enters a split layer).")
      .infer_shape(infer_out_like_x)
      .kernel(SKIFF_MP_DTYPES, identity_kernel)
      .grad(grad_maker<kAllreduceSum>);
  mp_op(r, "mp_allreduce_sum",
        "Out = the sum over ranks of X; X's gradient is Out's (the sum leaves a split layer "
        "into a part every rank computes alike).")
      .infer_shape(infer_out_like_x)
      .kernel(SKIFF_MP_DTYPES, allreduce_sum_kernel)
      .grad(grad_maker<kIdentity>);
  mp_op(r, "c_split",
        "Out = part `rank` of nranks equal parts of X's last axis; X's gradient gathers "
        "every rank's part.")
      .attr("rank", int64_t{0}, "this rank in the ring")
      .attr("nranks", int64_t{1}, "the ranks of the ring")
      .infer_shape(infer_last_axis<true>)
      .kernel(SKIFF_MP_DTYPES, split_kernel)
      .grad(grad_maker<kConcat>);
  mp_op(r, "c_concat",
        "Out = every rank's X joined along the last axis in rank order; X's gradient is "
        "this rank's part of Out's.")
      .attr("rank", int64_t{0}, "this rank in the ring")
      .attr("nranks", int64_t{1}, "the ranks of the ring")
      .infer_shape(infer_last_axis<false>)
      .kernel(SKIFF_MP_DTYPES, concat_kernel)
      .grad(grad_maker<kSplit>);
}

const OpRegistrar kModelParallelOps(register_model_parallel_ops);

}  // namespace skiff
