// Comparisons and logical ops: bool outputs with numpy broadcasting. Not
// differentiable. `i < n` on one-element tensors runs every loop step, so the
// kernels read no attributes and the one-element path is direct.
#include "skiff/kernels/cpu/compare.h"
#include "skiff/kernels/cpu/elementwise.h"
#include "skiff/ops/binding.h"
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

std::string compare_literal(CompareOp op) {
  static constexpr const char* kNames[] = {"kLess",         "kLessEqual", "kGreater",
                                           "kGreaterEqual", "kEqual",     "kNotEqual"};
  return std::string("kernels::CompareOp::") + kNames[static_cast<int>(op)];
}

std::string logical_literal(LogicalOp op) {
  static constexpr const char* kNames[] = {"kAnd", "kOr", "kXor"};
  return std::string("kernels::LogicalOp::") + kNames[static_cast<int>(op)];
}

template <CompareOp kOp, typename C>
void compare(C& c) {
  SKIFF_KERNEL_CALL(c, "compare", kernels::compare, constant(c, kOp, compare_literal), c.in("X"),
                    c.in("Y"), c.out("Out"));
}

template <LogicalOp kOp, typename C>
void logical(C& c) {
  SKIFF_KERNEL_CALL(c, "compare", kernels::logical, constant(c, kOp, logical_literal), c.in("X"),
                    c.in("Y"), c.out("Out"));
}

template <typename C>
void logical_not(C& c) {
  SKIFF_KERNEL_CALL(c, "compare", kernels::logical_not, c.in("X"), c.out("Out"));
}

template <CompareOp kOp>
void add_compare(OpRegistry& r, const char* type, const char* doc) {
  r.add(type)
      .doc(doc)
      .input("X", "any dtype")
      .input("Y", "same dtype as X; broadcasts with X (numpy rules)")
      .output("Out", "bool, the broadcast shape of X and Y")
      .infer_shape(infer_compare)
      .bind({DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool},
            compare<kOp, KernelContext>, compare<kOp, EmitContext>)
      .kernel_dtype_from("X");
}

template <LogicalOp kOp>
void add_logical(OpRegistry& r, const char* type, const char* doc) {
  r.add(type)
      .doc(doc)
      .input("X", "bool")
      .input("Y", "bool; broadcasts with X (numpy rules)")
      .output("Out", "bool, the broadcast shape of X and Y")
      .infer_shape(infer_logical_binary)
      .bind({DType::kBool}, logical<kOp, KernelContext>, logical<kOp, EmitContext>)
      .kernel_dtype_from("X");
}

}  // namespace

void register_logic_ops(OpRegistry& r) {
  add_compare<CompareOp::kLess>(r, "less_than", "Out = X < Y elementwise.");
  add_compare<CompareOp::kLessEqual>(r, "less_equal", "Out = X <= Y elementwise.");
  add_compare<CompareOp::kGreater>(r, "greater_than", "Out = X > Y elementwise.");
  add_compare<CompareOp::kGreaterEqual>(r, "greater_equal", "Out = X >= Y elementwise.");
  add_compare<CompareOp::kEqual>(r, "equal", "Out = X == Y elementwise.");
  add_compare<CompareOp::kNotEqual>(r, "not_equal", "Out = X != Y elementwise.");

  add_logical<LogicalOp::kAnd>(r, "logical_and", "Out = X and Y elementwise.");
  add_logical<LogicalOp::kOr>(r, "logical_or", "Out = X or Y elementwise.");
  add_logical<LogicalOp::kXor>(r, "logical_xor", "Out = X xor Y elementwise.");

  r.add("logical_not")
      .doc("Out = not X elementwise; Out may name X.")
      .input("X", "bool")
      .output("Out", "bool, same shape as X")
      .infer_shape(infer_logical_not)
      .bind({DType::kBool}, logical_not<KernelContext>, logical_not<EmitContext>)
      .kernel_dtype_from("X");
}

const OpRegistrar kLogicOps(register_logic_ops);

}  // namespace skiff
