// reduce_sum and reduce_mean over a list of dims, and their grad ops.
#include "skiff/kernels/cpu/reduce.h"

#include <string>

#include "skiff/ops/dim_reduction.h"

namespace skiff {

namespace {

template <bool kMean>
void infer_reduce(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(kMean ? is_floating(dtype) : dtype != DType::kBool,
              kMean ? "reduce_mean" : "reduce_sum", ": X must be ",
              kMean ? "float32 or float64" : "numeric", ", got ", dtype_name(dtype), x);
  set_reduced_output(ctx, x, dtype);
}

template <bool kMean, typename C>
void reduce(C& c) {
  const auto& x = c.in("X");
  if constexpr (kMean) {
    SKIFF_KERNEL_CALL(c, "reduce", kernels::reduce_mean, x, reduced_axes_of(c, x),
                      attr<bool>(c, "keep_dim"), c.out("Out"));
  } else {
    SKIFF_KERNEL_CALL(c, "reduce", kernels::reduce_sum, x, reduced_axes_of(c, x),
                      attr<bool>(c, "keep_dim"), c.out("Out"));
  }
}

void reduce_grad_maker(GradContext& g) { add_dim_reduction_grad(g); }

template <bool kMean, typename C>
void reduce_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  const auto& x = c.in("X");
  if constexpr (kMean) {
    SKIFF_KERNEL_CALL(c, "reduce", kernels::reduce_mean_grad, c.in("Out@GRAD"), x.shape(),
                      reduced_axes_of(c, x), c.out("X@GRAD"));
  } else {
    SKIFF_KERNEL_CALL(c, "reduce", kernels::reduce_sum_grad, c.in("Out@GRAD"), x.shape(),
                      reduced_axes_of(c, x), c.out("X@GRAD"));
  }
}

template <bool kMean>
void register_reduce(OpRegistry& r, std::initializer_list<DType> dtypes) {
  const std::string type = kMean ? "reduce_mean" : "reduce_sum";
  const std::string what = kMean ? "mean" : "sum";
  with_dim_reduction_attrs(
      r.add(type)
          .doc("Out = the " + what +
               " of X over the dims in `dim` (all dims when `dim` is empty or "
               "reduce_all). Reducing every dim without keep_dim gives a rank-0 Out.")
          .input("X", kMean ? "float32 or float64" : "float32, float64, int32 or int64"))
      .infer_shape(infer_reduce<kMean>)
      .bind(dtypes, reduce<kMean, KernelContext>, reduce<kMean, EmitContext>)
      .grad(reduce_grad_maker);

  with_dim_reduction_grad_slots(
      r.add(type + "_grad")
          .doc("X@GRAD = Out@GRAD broadcast back over the reduced dims" +
               std::string(kMean ? ", divided by their element count." : "."))
          .input("X", "the forward X (for its shape)"))
      .bind({DType::kF32, DType::kF64}, reduce_grad<kMean, KernelContext>,
            reduce_grad<kMean, EmitContext>)
      .kernel_dtype_from("Out@GRAD");
}

}  // namespace

void register_reduce_ops(OpRegistry& r) {
  register_reduce<false>(r, {DType::kF32, DType::kF64, DType::kI32, DType::kI64});
  register_reduce<true>(r, {DType::kF32, DType::kF64});
}

const OpRegistrar kReduceOps(register_reduce_ops);

}  // namespace skiff
