// accuracy: the fraction of samples whose label is among their top-k classes, from
// scores or from top-k indices (PaddlePaddle's accuracy op). Not differentiable.
#include "skiff/kernels/cpu/metric.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

bool is_int(DType t) { return t == DType::kI64 || t == DType::kI32; }

void infer_accuracy(ShapeContext& ctx) {
  const bool has_indices = ctx.has_input("Indices");
  SKIFF_CHECK(has_indices || ctx.has_input("Out"),
              "accuracy needs Out (scores [N, C]) or Indices (top-k classes [N, k])");
  const VarDesc& by = ctx.in_var(has_indices ? "Indices" : "Out");
  SKIFF_CHECK(by.shape.rank() == 2 && (has_indices ? is_int(by.dtype) : is_floating(by.dtype)),
              "accuracy: ", has_indices ? "Indices" : "Out", " ('", by.name, "') must be ",
              has_indices ? "int64 [N, k]" : "float32/float64 [N, C]", ", got ",
              dtype_name(by.dtype), by.shape);
  const VarDesc& label = ctx.in_var("Label");
  SKIFF_CHECK(is_int(label.dtype) &&
                  (label.shape.rank() == 1 || (label.shape.rank() == 2 && label.shape[1] == 1)),
              "accuracy: Label ('", label.name, "') must be int64 [N, 1], got ",
              dtype_name(label.dtype), label.shape);
  SKIFF_CHECK(ctx.attr<int64_t>("k") >= 1, "accuracy: k must be >= 1, got ",
              ctx.attr<int64_t>("k"));
  ctx.set_output("Accuracy", Shape{1}, DType::kF32);
  ctx.set_output("Correct", Shape{1}, DType::kI32);
  ctx.set_output("Total", Shape{1}, DType::kI32);
}

template <typename C>
void accuracy(C& c) {
  if (c.has_in("Indices")) {
    SKIFF_KERNEL_CALL(c, "metric", kernels::accuracy_from_indices, c.in("Indices"), c.in("Label"),
                      c.out("Accuracy"), c.out("Correct"), c.out("Total"));
  } else {
    SKIFF_KERNEL_CALL(c, "metric", kernels::accuracy_from_scores, c.in("Out"), c.in("Label"),
                      attr<int64_t>(c, "k"), c.out("Accuracy"), c.out("Correct"), c.out("Total"));
  }
}

}  // namespace

void register_metric_ops(OpRegistry& r) {
  r.add("accuracy")
      .doc(
          "Accuracy = Correct / Total, where a sample is correct when its Label is among its "
          "top k classes: the columns of Indices when given, else the k best scores of Out "
          "(ties go to the smaller class index). Not differentiable.")
      .optional_input("Out", "scores [N, C], float32 or float64 (used when Indices is absent)")
      .optional_input("Indices", "int64 top-k class ids [N, k] (e.g. from top_k)")
      .input("Label", "int64 (or int32) class ids [N, 1] or [N]")
      .output("Accuracy", "float32 [1]")
      .optional_output("Correct", "int32 [1]: the number of correct samples")
      .optional_output("Total", "int32 [1]: the number of samples")
      .attr("k", int64_t{1}, "how many best-scoring classes of Out count (ignored with Indices)")
      .infer_shape(infer_accuracy)
      .bind({DType::kF32}, accuracy<KernelContext>, accuracy<EmitContext>);
}

const OpRegistrar kMetricOps(register_metric_ops);

}  // namespace skiff
