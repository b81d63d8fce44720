// Comparisons and logical ops: bool outputs with numpy broadcasting. Not
// differentiable. `i < n` on one-element tensors runs every loop step, so the
// kernels read no attributes and the one-element path is direct.
#include "skiff/kernels/cpu/compare.h"
#include "skiff/kernels/cpu/elementwise.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

using kernels::CompareOp;
using kernels::LogicalOp;

void infer_compare(ShapeContext& ctx) {
  DType x = ctx.in_dtype("X"), y = ctx.in_dtype("Y");
  SKIFF_CHECK(x == y, "cannot compare ", dtype_name(x), " X with ", dtype_name(y),
              " Y: cast one of them first");
  ctx.set_output("Out", kernels::broadcast_shape(ctx.in_shape("X"), ctx.in_shape("Y")),
                 DType::kBool);
}

void infer_logical_binary(ShapeContext& ctx) {
  DType x = ctx.in_dtype("X"), y = ctx.in_dtype("Y");
  SKIFF_CHECK(x == DType::kBool && y == DType::kBool, "logical ops take bool X and Y, got ",
              dtype_name(x), " and ", dtype_name(y));
  ctx.set_output("Out", kernels::broadcast_shape(ctx.in_shape("X"), ctx.in_shape("Y")),
                 DType::kBool);
}

void infer_logical_not(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.in_dtype("X") == DType::kBool, "logical_not takes a bool X, got ",
              dtype_name(ctx.in_dtype("X")));
  ctx.set_output("Out", ctx.in_shape("X"), DType::kBool);
}

template <CompareOp kOp>
void compare_kernel(KernelContext& ctx) {
  kernels::compare(kOp, ctx.in("X"), ctx.in("Y"), ctx.out("Out"));
}

template <LogicalOp kOp>
void logical_kernel(KernelContext& ctx) {
  kernels::logical(kOp, ctx.in("X"), ctx.in("Y"), ctx.out("Out"));
}

void logical_not_kernel(KernelContext& ctx) { kernels::logical_not(ctx.in("X"), ctx.out("Out")); }

void add_compare(OpRegistry& r, const char* type, const char* doc, void (*kernel)(KernelContext&)) {
  r.add(type)
      .doc(doc)
      .input("X", "any dtype")
      .input("Y", "same dtype as X; broadcasts with X (numpy rules)")
      .output("Out", "bool, the broadcast shape of X and Y")
      .infer_shape(infer_compare)
      .kernel({DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool}, kernel)
      .kernel_dtype_from("X");
}

void add_logical(OpRegistry& r, const char* type, const char* doc, void (*kernel)(KernelContext&)) {
  r.add(type)
      .doc(doc)
      .input("X", "bool")
      .input("Y", "bool; broadcasts with X (numpy rules)")
      .output("Out", "bool, the broadcast shape of X and Y")
      .infer_shape(infer_logical_binary)
      .kernel({DType::kBool}, kernel)
      .kernel_dtype_from("X");
}

}  // namespace

void register_logic_ops(OpRegistry& r) {
  add_compare(r, "less_than", "Out = X < Y elementwise.", compare_kernel<CompareOp::kLess>);
  add_compare(r, "less_equal", "Out = X <= Y elementwise.", compare_kernel<CompareOp::kLessEqual>);
  add_compare(r, "greater_than", "Out = X > Y elementwise.", compare_kernel<CompareOp::kGreater>);
  add_compare(r, "greater_equal", "Out = X >= Y elementwise.",
              compare_kernel<CompareOp::kGreaterEqual>);
  add_compare(r, "equal", "Out = X == Y elementwise.", compare_kernel<CompareOp::kEqual>);
  add_compare(r, "not_equal", "Out = X != Y elementwise.", compare_kernel<CompareOp::kNotEqual>);

  add_logical(r, "logical_and", "Out = X and Y elementwise.", logical_kernel<LogicalOp::kAnd>);
  add_logical(r, "logical_or", "Out = X or Y elementwise.", logical_kernel<LogicalOp::kOr>);
  add_logical(r, "logical_xor", "Out = X xor Y elementwise.", logical_kernel<LogicalOp::kXor>);

  r.add("logical_not")
      .doc("Out = not X elementwise; Out may name X.")
      .input("X", "bool")
      .output("Out", "bool, same shape as X")
      .infer_shape(infer_logical_not)
      .kernel({DType::kBool}, logical_not_kernel)
      .kernel_dtype_from("X");
}

}  // namespace skiff
