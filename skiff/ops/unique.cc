// Distinct values: unique (sorted, with first positions, inverse and counts) and
// unique_consecutive (runs of equal neighbours). Their output lengths are known only at
// run time (-1 at build time); neither has a gradient.
#include <string>
#include <vector>

#include "skiff/kernels/cpu/axis.h"
#include "skiff/kernels/cpu/unique.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

constexpr std::initializer_list<DType> kNumeric = {DType::kF32, DType::kF64, DType::kI32,
                                                   DType::kI64};

// The one axis of the `axis` attr, or -1 with *flatten set when the list is empty.
int64_t unique_axis(const char* op, const std::vector<int64_t>& axis, bool* flatten) {
  SKIFF_CHECK(axis.size() <= 1, op, ": axis must be empty (flattened) or one axis, got ",
              kernels::list_str(axis));
  *flatten = axis.empty();
  return axis.empty() ? 0 : axis[0];
}

DType index_dtype(const std::string& op, const std::string& name) {
  const DType dtype = dtype_from_name(name);
  SKIFF_CHECK(dtype == DType::kI32 || dtype == DType::kI64, op,
              ": dtype must be int32 or int64, got ", name);
  return dtype;
}

void infer_unique(ShapeContext& ctx) {
  const std::string& op = ctx.op().type;
  const Shape x = ctx.in_shape("X");
  SKIFF_CHECK(ctx.in_dtype("X") != DType::kBool, op, ": X must be numeric, got bool");
  const DType idx = index_dtype(op, ctx.attr<std::string>("dtype"));
  bool flatten = false;
  const int64_t axis =
      unique_axis(op.c_str(), ctx.attr_ref<std::vector<int64_t>>("axis"), &flatten);
  Shape out{-1};
  int64_t inverse_len = x.known() ? x.numel() : -1;
  if (!flatten) {
    const int a = kernels::resolve_axis(op.c_str(), axis, x);
    out = x;
    out[a] = -1;
    inverse_len = x[a];
  }
  ctx.set_output("Out", out, ctx.in_dtype("X"));
  ctx.set_output("Indices", Shape{-1}, idx);
  ctx.set_output("Index", Shape{inverse_len}, idx);
  ctx.set_output("Counts", Shape{-1}, idx);
}

// unique's and unique_consecutive's attributes as the kernels take them.
struct UniqueAttrs {
  bool flatten = false;
  int64_t axis = 0;
  DType index_dtype = DType::kI64;
};

UniqueAttrs unique_attrs(const OpDesc& op) {
  UniqueAttrs a;
  a.axis = unique_axis(op.type.c_str(), op.attr_ref<std::vector<int64_t>>("axis"), &a.flatten);
  a.index_dtype = index_dtype(op.type, op.attr_ref<std::string>("dtype"));
  return a;
}

template <typename C>
void unique(C& c) {
  const UniqueAttrs a = unique_attrs(c.op());
  SKIFF_KERNEL_CALL(c, "unique", kernels::unique, c.in("X"), constant(c, a.flatten),
                    constant(c, a.axis), constant(c, a.index_dtype, dtype_literal), c.out("Out"),
                    c.out("Indices"), c.out("Index"), c.out("Counts"));
}

template <typename C>
void unique_consecutive(C& c) {
  const UniqueAttrs a = unique_attrs(c.op());
  SKIFF_KERNEL_CALL(c, "unique", kernels::unique_consecutive, c.in("X"), constant(c, a.flatten),
                    constant(c, a.axis), constant(c, a.index_dtype, dtype_literal), c.out("Out"),
                    c.out("Index"), c.out("Counts"));
}

}  // namespace

void register_unique_ops(OpRegistry& r) {
  r.add("unique")
      .doc(
          "Out = the distinct elements of X (flattened) or distinct slices along axis, sorted; "
          "Indices = the first position of each in X, Index = the position in Out of each "
          "element (or slice) of X, Counts = how often each occurs. NaNs are each distinct.")
      .input("X", "any shape; float32, float64, int32 or int64")
      .output("Out", "X's dtype; 1-D [-1] when flattened, else X with the axis dim -1")
      .optional_output("Indices", "`dtype`, [-1]: written when present")
      .optional_output("Index", "`dtype`, [numel of X] or [X's axis dim]: written when present")
      .optional_output("Counts", "`dtype`, [-1]: written when present")
      .attr("axis", std::vector<int64_t>{}, "[] flattens X; [k] finds distinct slices along k")
      .attr("dtype", std::string("int64"), "int32 or int64: the dtype of the index outputs")
      .infer_shape(infer_unique)
      .bind(kNumeric, unique<KernelContext>, unique<EmitContext>)
      .kernel_dtype_from("X");

  r.add("unique_consecutive")
      .doc(
          "Out = X (flattened, or its slices along axis) with each run of equal neighbours "
          "kept once, in order; Index = the run of each element (or slice), Counts = run "
          "lengths.")
      .input("X", "any shape; float32, float64, int32 or int64")
      .output("Out", "X's dtype; 1-D [-1] when flattened, else X with the axis dim -1")
      .optional_output("Index", "`dtype`, [numel of X] or [X's axis dim]: written when present")
      .optional_output("Counts", "`dtype`, [-1]: written when present")
      .attr("axis", std::vector<int64_t>{}, "[] flattens X; [k] merges slices along k")
      .attr("dtype", std::string("int64"), "int32 or int64: the dtype of the index outputs")
      .infer_shape(infer_unique)
      .bind(kNumeric, unique_consecutive<KernelContext>, unique_consecutive<EmitContext>)
      .kernel_dtype_from("X");
}

const OpRegistrar kUniqueOps(register_unique_ops);

}  // namespace skiff
