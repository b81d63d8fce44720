// reduce_sum and reduce_mean over a list of dims, and their grad ops.
#include "skiff/kernels/cpu/reduce.h"

#include <string>
#include <vector>

#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// The reduced axes of a rank-`rank` input under the op's dim / reduce_all attrs.
template <typename Ctx>
uint32_t axes_of(const Ctx& ctx, int rank) {
  return kernels::reduce_axes(rank, ctx.template attr_ref<std::vector<int64_t>>("dim"),
                              ctx.template attr<bool>("reduce_all"));
}

template <bool kMean>
void infer_reduce(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(kMean ? is_floating(dtype) : dtype != DType::kBool,
              kMean ? "reduce_mean" : "reduce_sum", ": X must be ",
              kMean ? "float32 or float64" : "numeric", ", got ", dtype_name(dtype), x);
  ctx.set_output(
      "Out", kernels::reduced_shape(x, axes_of(ctx, x.rank()), ctx.attr<bool>("keep_dim")), dtype);
}

template <bool kMean>
void reduce_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.in("X");
  const uint32_t axes = axes_of(ctx, x.rank());
  const bool keep_dim = ctx.attr<bool>("keep_dim");
  if (kMean) {
    kernels::reduce_mean(x, axes, keep_dim, ctx.out("Out"));
  } else {
    kernels::reduce_sum(x, axes, keep_dim, ctx.out("Out"));
  }
}

template <bool kMean>
void reduce_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  g.add(fwd.type + "_grad")
      .set_input("X", {fwd.first_input("X")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_attr("dim", fwd.attr<std::vector<int64_t>>("dim"))
      .set_attr("keep_dim", fwd.attr<bool>("keep_dim"))
      .set_attr("reduce_all", fwd.attr<bool>("reduce_all"));
}

void infer_reduce_grad(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("X"), ctx.in_dtype("X"));
}

template <bool kMean>
void reduce_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  if (!dx) return;
  const Shape x_shape = ctx.in("X").shape();
  const uint32_t axes = axes_of(ctx, x_shape.rank());
  if (kMean) {
    kernels::reduce_mean_grad(ctx.in("Out@GRAD"), x_shape, axes, dx);
  } else {
    kernels::reduce_sum_grad(ctx.in("Out@GRAD"), x_shape, axes, dx);
  }
}

template <bool kMean>
void register_reduce(OpRegistry& r, std::initializer_list<DType> dtypes) {
  const std::string type = kMean ? "reduce_mean" : "reduce_sum";
  const std::string what = kMean ? "mean" : "sum";
  r.add(type)
      .doc("Out = the " + what +
           " of X over the dims in `dim` (all dims when `dim` is empty or "
           "reduce_all). Reducing every dim without keep_dim gives a rank-0 Out.")
      .input("X", kMean ? "float32 or float64" : "float32, float64, int32 or int64")
      .output("Out", "X's dtype; X's shape without the reduced dims (1s with keep_dim)")
      .attr("dim", std::vector<int64_t>{}, "dims to reduce; negative ones count from the back")
      .attr("keep_dim", false, "keep reduced dims as size 1")
      .attr("reduce_all", false, "reduce every dim, whatever `dim` says")
      .infer_shape(infer_reduce<kMean>)
      .kernel(dtypes, reduce_kernel<kMean>)
      .grad(reduce_grad_maker<kMean>);

  r.add(type + "_grad")
      .doc("X@GRAD = Out@GRAD broadcast back over the reduced dims" +
           std::string(kMean ? ", divided by their element count." : "."))
      .input("X", "the forward X (for its shape)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("dim", std::vector<int64_t>{}, "as in the forward op")
      .attr("keep_dim", false, "as in the forward op")
      .attr("reduce_all", false, "as in the forward op")
      .infer_shape(infer_reduce_grad)
      .kernel({DType::kF32, DType::kF64}, reduce_grad_kernel<kMean>)
      .kernel_dtype_from("Out@GRAD");
}

}  // namespace

void register_reduce_ops(OpRegistry& r) {
  register_reduce<false>(r, {DType::kF32, DType::kF64, DType::kI32, DType::kI64});
  register_reduce<true>(r, {DType::kF32, DType::kF64});
}

}  // namespace skiff
