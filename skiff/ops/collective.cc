// Collective ops (Paddle's c_* names): a program's communication between the ranks of
// a data-parallel job, run through the communicator of the op's ring by the calls of
// dist/collective.h, which compiled programs make too (codegen/rules_collective.cc).
// Every rank must run the same collective ops in the same order.
#include "skiff/dist/collective.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

#define SKIFF_ALL_DTYPES \
  { DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool, DType::kBF16 }

int ring(const KernelContext& ctx) { return static_cast<int>(ctx.attr<int64_t>("ring_id")); }

int int_attr(const KernelContext& ctx, const char* name) {
  return static_cast<int>(ctx.attr<int64_t>(name));
}

template <dist::ReduceOp kOp>
void allreduce_kernel(KernelContext& ctx) {
  dist::ring_all_reduce(ring(ctx), ctx.in("X"), kOp, ctx.out("Out"));
}

template <dist::ReduceOp kOp>
void reduce_kernel(KernelContext& ctx) {
  dist::ring_reduce(ring(ctx), ctx.in("X"), int_attr(ctx, "root_id"), kOp, ctx.out("Out"));
}

void broadcast_kernel(KernelContext& ctx) {
  dist::ring_broadcast(ring(ctx), ctx.in("X"), int_attr(ctx, "root"), ctx.out("Out"));
}

void allgather_kernel(KernelContext& ctx) {
  dist::ring_all_gather(ring(ctx), ctx.in("X"), ctx.out("Out"));
}

void reducescatter_kernel(KernelContext& ctx) {
  dist::ring_reduce_scatter(ring(ctx), ctx.in("X"), ctx.out("Out"));
}

void scatter_kernel(KernelContext& ctx) {
  dist::ring_scatter(ring(ctx), ctx.in("X"), int_attr(ctx, "root"), ctx.out("Out"));
}

void alltoall_kernel(KernelContext& ctx) {
  dist::ring_all_to_all(ring(ctx), ctx.in("X"), ctx.out("Out"));
}

void send_kernel(KernelContext& ctx) {
  dist::ring_send(ring(ctx), ctx.in("X"), int_attr(ctx, "peer"));
}

void recv_kernel(KernelContext& ctx) {
  dist::ring_recv(ring(ctx), Shape(ctx.attr_ref<std::vector<int64_t>>("out_shape")),
                  dtype_from_name(ctx.attr<std::string>("dtype")), int_attr(ctx, "peer"),
                  ctx.out("Out"));
}

int64_t nranks(const ShapeContext& ctx) {
  const int64_t n = ctx.attr<int64_t>("nranks");
  SKIFF_CHECK(n >= 1, ctx.op().type, ": nranks must be positive, got ", n);
  return n;
}

// Out's dim 0 is X's times (allgather) or divided by (reduce-scatter, scatter) nranks.
void infer_allgather(ShapeContext& ctx) {
  Shape s = ctx.in_shape("X");
  if (s.rank() == 0) {
    s = Shape{nranks(ctx)};
  } else if (s[0] >= 0) {
    s[0] *= nranks(ctx);
  }
  ctx.set_output("Out", s, ctx.in_dtype("X"));
}

void infer_split_dim0(ShapeContext& ctx) {
  Shape s = ctx.in_shape("X");
  const int64_t n = nranks(ctx);
  SKIFF_CHECK(s.rank() >= 1, ctx.op().type, ": X must have a leading dim to split, got ", s);
  if (s[0] >= 0) {
    SKIFF_CHECK(s[0] % n == 0, ctx.op().type, ": X's leading dim (", s,
                ") must be a multiple of nranks ", n);
    s[0] /= n;
  }
  ctx.set_output("Out", s, ctx.in_dtype("X"));
}

void infer_recv(ShapeContext& ctx) {
  ctx.set_output("Out", Shape(ctx.attr_ref<std::vector<int64_t>>("out_shape")),
                 dtype_from_name(ctx.attr<std::string>("dtype")));
}

void infer_send(ShapeContext&) {}

// The gradient of a collective is another collective on the same ring, applied to
// Out's gradient: a sum's adjoint is a sum (every rank's loss depends on the sum), an
// all-gather's is a reduce-scatter and back, an all-to-all is its own.
template <const char* kGradType>
void collective_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  OpDesc& op =
      g.add(kGradType).set_input("X", {g.out_grad("Out")}).set_output("Out", {g.in_grad("X")});
  op.set_attr("ring_id", g.fwd().attr<int64_t>("ring_id"));
  if (g.fwd().attrs.find("nranks")) op.set_attr("nranks", g.fwd().attr<int64_t>("nranks"));
}

constexpr char kAllreduceSum[] = "c_allreduce_sum";
constexpr char kAllreduceAvg[] = "c_allreduce_avg";
constexpr char kAllgather[] = "c_allgather";
constexpr char kReducescatter[] = "c_reducescatter";
constexpr char kAlltoall[] = "alltoall";

OpBuilder collective(OpRegistry& r, const char* type, const char* doc) {
  return r.add(type)
      .doc(doc)
      .input("X", "the local tensor")
      .output("Out", "the result on this rank")
      .attr("ring_id", int64_t{0}, "which communicator (0: the default group)")
      .kernel_dtype_from("X");
}

}  // namespace

void register_collective_ops(OpRegistry& r) {
  collective(r, "c_allreduce_sum", "Out = the sum over ranks of X.")
      .infer_shape(infer_out_like_x)
      .kernel(SKIFF_ALL_DTYPES, allreduce_kernel<dist::ReduceOp::kSum>)
      .grad(collective_grad_maker<kAllreduceSum>);
  collective(r, "c_allreduce_avg", "Out = the mean over ranks of X.")
      .infer_shape(infer_out_like_x)
      .kernel({DType::kF32, DType::kF64, DType::kBF16}, allreduce_kernel<dist::ReduceOp::kAvg>)
      .grad(collective_grad_maker<kAllreduceAvg>);
  collective(r, "c_allreduce_max", "Out = the elementwise max over ranks of X. Not differentiable.")
      .infer_shape(infer_out_like_x)
      .kernel(SKIFF_ALL_DTYPES, allreduce_kernel<dist::ReduceOp::kMax>);
  collective(r, "c_allreduce_min", "Out = the elementwise min over ranks of X. Not differentiable.")
      .infer_shape(infer_out_like_x)
      .kernel(SKIFF_ALL_DTYPES, allreduce_kernel<dist::ReduceOp::kMin>);
  collective(r, "c_allreduce_prod", "Out = the product over ranks of X. Not differentiable.")
      .infer_shape(infer_out_like_x)
      .kernel(SKIFF_ALL_DTYPES, allreduce_kernel<dist::ReduceOp::kProd>);

  const char* reduce_docs[][2] = {{"c_reduce_sum", "sum"},
                                  {"c_reduce_max", "max"},
                                  {"c_reduce_min", "min"},
                                  {"c_reduce_prod", "product"}};
  KernelFn reduce_kernels[] = {
      reduce_kernel<dist::ReduceOp::kSum>, reduce_kernel<dist::ReduceOp::kMax>,
      reduce_kernel<dist::ReduceOp::kMin>, reduce_kernel<dist::ReduceOp::kProd>};
  for (int i = 0; i < 4; ++i) {
    collective(r, reduce_docs[i][0],
               str_cat("On rank root_id: Out = the ", reduce_docs[i][1],
                       " over ranks of X; elsewhere Out = X. Not differentiable.")
                   .c_str())
        .attr("root_id", int64_t{0}, "the rank that receives the result")
        .infer_shape(infer_out_like_x)
        .kernel(SKIFF_ALL_DTYPES, reduce_kernels[i]);
  }

  collective(r, "c_broadcast", "Out = X of rank root, on every rank. Not differentiable.")
      .attr("root", int64_t{0}, "the rank whose X is sent")
      .infer_shape(infer_out_like_x)
      .kernel(SKIFF_ALL_DTYPES, broadcast_kernel);
  collective(r, "c_allgather",
             "Out = the X of every rank concatenated along dim 0, in rank order (a 0-d X "
             "gives a vector).")
      .attr("nranks", int64_t{1}, "the number of ranks (Out's dim 0 is X's times it)")
      .infer_shape(infer_allgather)
      .kernel(SKIFF_ALL_DTYPES, allgather_kernel)
      .grad(collective_grad_maker<kReducescatter>);
  collective(r, "c_reducescatter",
             "X's dim 0 is nranks * n: Out = the sum over ranks of X's rows [rank*n, "
             "(rank+1)*n).")
      .attr("nranks", int64_t{1}, "the number of ranks")
      .infer_shape(infer_split_dim0)
      .kernel({DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBF16},
              reducescatter_kernel)
      .grad(collective_grad_maker<kAllgather>);
  collective(r, "c_scatter",
             "X (read on rank root) has dim 0 nranks * n: Out = its rows [rank*n, "
             "(rank+1)*n). Other ranks pass a tensor of Out's shape as X. Not differentiable.")
      .attr("root", int64_t{0}, "the rank whose X is split")
      .attr("nranks", int64_t{1}, "the number of ranks")
      .infer_shape(infer_out_like_x)
      .kernel(SKIFF_ALL_DTYPES, scatter_kernel);
  collective(r, "alltoall",
             "X's dim 0 is nranks * n: Out's rows [r*n, (r+1)*n) are rank r's rows [rank*n, "
             "(rank+1)*n) of its X.")
      .infer_shape(infer_out_like_x)
      .kernel(SKIFF_ALL_DTYPES, alltoall_kernel)
      .grad(collective_grad_maker<kAlltoall>);

  r.add("send_v2")
      .doc("Sends X to rank peer, which runs recv_v2 with X's shape and dtype.")
      .input("X", "the tensor to send")
      .attr("ring_id", int64_t{0}, "which communicator")
      .attr("peer", int64_t{0}, "the receiving rank")
      .infer_shape(infer_send)
      .kernel(SKIFF_ALL_DTYPES, send_kernel)
      .kernel_dtype_from("X");
  r.add("recv_v2")
      .doc("Out = the tensor rank peer sends with send_v2.")
      .output("Out", "the received tensor")
      .attr("ring_id", int64_t{0}, "which communicator")
      .attr("peer", int64_t{0}, "the sending rank")
      .required_attr("out_shape", AttrType::kInts, "the sent tensor's shape")
      .attr("dtype", std::string("float32"), "numpy name of the sent tensor's dtype")
      .infer_shape(infer_recv)
      .kernel(SKIFF_ALL_DTYPES, recv_kernel);
}

const OpRegistrar kCollectiveOps(register_collective_ops);

}  // namespace skiff
