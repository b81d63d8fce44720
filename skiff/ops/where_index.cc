// where_index: the coordinates of the nonzero elements (nonzero, boolean-mask indexing).
#include "skiff/kernels/cpu/where_index.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

void infer_where_index(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("Condition");
  SKIFF_CHECK(ctx.in_dtype("Condition") != DType::kBF16,
              "where_index: Condition must not be "
              "bfloat16");
  ctx.set_output("Out", Shape{-1, x.rank()}, DType::kI64);
}

template <typename C>
void where_index(C& c) {
  SKIFF_KERNEL_CALL(c, "where_index", kernels::where_index, c.in("Condition"), c.out("Out"));
}

}  // namespace

void register_where_index_ops(OpRegistry& r) {
  r.add("where_index")
      .doc(
          "Out = the coordinates of the nonzero (true) elements of Condition, one row each, "
          "in row-major order. Out's first dim is known only when the op runs. Not "
          "differentiable.")
      .input("Condition", "any shape; bool or numeric")
      .output("Out", "int64 [number of nonzero elements, rank of Condition]")
      .infer_shape(infer_where_index)
      .bind({DType::kBool, DType::kF32, DType::kF64, DType::kI32, DType::kI64},
            where_index<KernelContext>, where_index<EmitContext>)
      .kernel_dtype_from("Condition");
}

const OpRegistrar kWhereIndexOps(register_where_index_ops);

}  // namespace skiff
