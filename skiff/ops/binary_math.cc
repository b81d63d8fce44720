// Broadcast elementwise power, floored remainder, floored division and the two-argument
// arctangent (elementwise_pow, elementwise_mod, elementwise_floordiv, atan2), the grad ops
// of all but floordiv, whose gradients are zeros; and the integer ops bitwise_and/or/xor/not,
// bitwise_left_shift/right_shift, gcd and lcm (no gradients); the float special functions
// gammainc and gammaincc (gradients for Y only) and nextafter (no gradient).
#include <string>

#include "skiff/kernels/cpu/binary_math.h"
#include "skiff/kernels/cpu/elementwise.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

using kernels::BinaryMath;

constexpr std::initializer_list<DType> kNumeric = {DType::kF32, DType::kF64, DType::kI32,
                                                   DType::kI64};

void infer_binary(ShapeContext& ctx) {
  const DType x = ctx.in_dtype("X"), y = ctx.in_dtype("Y");
  SKIFF_CHECK(x == y, ctx.op().type, ": X is ", dtype_name(x), " but Y is ", dtype_name(y),
              "; both need the same dtype");
  SKIFF_CHECK(x != DType::kBool && x != DType::kBF16, ctx.op().type,
              ": X and Y must be float32, float64, int32 or int64, got ", dtype_name(x));
  const std::string& type = ctx.op().type;
  const bool floats_only =
      type == "atan2" || type == "gammainc" || type == "gammaincc" || type == "nextafter";
  SKIFF_CHECK(!floats_only || x == DType::kF32 || x == DType::kF64, type,
              ": X and Y must be float32 or float64, got ", dtype_name(x));
  ctx.set_output("Out", kernels::broadcast_shape(ctx.in_shape("X"), ctx.in_shape("Y")), x);
}

std::string binary_math_literal(BinaryMath f) {
  static const char* const kNames[] = {
      "kPow",   "kMod",    "kFloorDiv",  "kAtan2",      "kBitAnd",
      "kBitOr", "kBitXor", "kShiftLeft", "kShiftRight", "kShiftRightLogical",
      "kGcd",   "kLcm",    "kGammainc",  "kGammaincc",  "kNextafter"};
  return std::string("kernels::BinaryMath::") + kNames[static_cast<int>(f)];
}

template <BinaryMath kF, typename C>
void binary(C& c) {
  SKIFF_KERNEL_CALL(c, "binary_math", kernels::binary_math, constant(c, kF, binary_math_literal),
                    c.in("X"), c.in("Y"), c.out("Out"));
}

template <BinaryMath kF, typename C>
void binary_grad(C& c) {
  SKIFF_KERNEL_CALL(c, "binary_math", kernels::binary_math_grad,
                    constant(c, kF, binary_math_literal), c.in("X"), c.in("Y"),
                    c.has_in("Out") ? c.in("Out") : no_tensor(c), c.in("Out@GRAD"), c.out("X@GRAD"),
                    c.out("Y@GRAD"));
}

// pow's grad op reads the forward Out (for dY = Out log X); mod's does not.
void binary_grad_maker(GradContext& g) {
  if (!g.wants("X") && !g.wants("Y")) return;
  const OpDesc& fwd = g.fwd();
  OpDesc& op = g.add(fwd.type + "_grad");
  op.set_input("X", {fwd.first_input("X")}).set_input("Y", {fwd.first_input("Y")});
  if (fwd.type == "elementwise_pow") op.set_input("Out", {fwd.first_output("Out")});
  op.set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_output("Y@GRAD", {g.in_grad("Y")});
}

// gammainc/gammaincc differentiate the bound Y only, as Paddle.
void gamma_grad_maker(GradContext& g) {
  if (!g.wants("Y")) return;
  const OpDesc& fwd = g.fwd();
  g.add(fwd.type + "_grad")
      .set_input("X", {fwd.first_input("X")})
      .set_input("Y", {fwd.first_input("Y")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("Y@GRAD", {g.in_grad("Y")});
}

// floordiv is piecewise constant: zero gradients for both inputs.
void zero_grad_maker(GradContext& g) {
  for (const char* slot : {"X", "Y"}) {
    if (!g.wants(slot)) continue;
    g.add("fill_zeros_like")
        .set_input("X", {g.fwd().first_input(slot)})
        .set_output("Out", {g.in_grad(slot)});
  }
}

template <BinaryMath kF>
void register_binary(OpRegistry& r, const char* formula, const char* gradient) {
  const std::string type = kernels::binary_math_op(kF);
  const bool floats_only = !kernels::is_integer_math(kF) && kF != BinaryMath::kPow &&
                           kF != BinaryMath::kMod && kF != BinaryMath::kFloorDiv;
  OpBuilder op = r.add(type);
  op.doc(std::string(formula) + ", elementwise with numpy broadcasting.")
      .input("X", floats_only ? "any shape; float32 or float64"
                              : "any shape; float32, float64, int32 or int64")
      .input("Y", "broadcastable with X; X's dtype")
      .output("Out", "the broadcast shape of X and Y, their dtype")
      .infer_shape(infer_binary);
  if (floats_only) {
    op.bind({DType::kF32, DType::kF64}, binary<kF, KernelContext>, binary<kF, EmitContext>);
  } else {
    op.bind(kNumeric, binary<kF, KernelContext>, binary<kF, EmitContext>);
  }
  if (kF == BinaryMath::kNextafter) return;  // no gradient, as Paddle
  if (!gradient) {
    op.grad(zero_grad_maker);
    return;
  }
  const bool gamma = kF == BinaryMath::kGammainc || kF == BinaryMath::kGammaincc;
  op.grad(gamma ? gamma_grad_maker : binary_grad_maker);
  r.add(type + "_grad")
      .doc(std::string(gradient) + ", summed over the dims each input was broadcast along.")
      .input("X", "the forward X")
      .input("Y", "the forward Y")
      .optional_input("Out", "the forward Out (read by elementwise_pow_grad)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X (\"\" when not needed)")
      .output("Y@GRAD", "gradient of Y (\"\" when not needed)")
      .infer_shape(infer_x_y_grads_like_x_y)
      .bind({DType::kF32, DType::kF64}, binary_grad<kF, KernelContext>,
            binary_grad<kF, EmitContext>)
      .kernel_dtype_from("X");
}

void infer_integer(ShapeContext& ctx) {
  const std::string& type = ctx.op().type;
  const DType x = ctx.in_dtype("X"), y = ctx.in_dtype("Y");
  SKIFF_CHECK(x == y, type, ": X is ", dtype_name(x), " but Y is ", dtype_name(y),
              "; both need the same dtype");
  const bool bool_ok = type == "bitwise_and" || type == "bitwise_or" || type == "bitwise_xor";
  SKIFF_CHECK(x == DType::kI32 || x == DType::kI64 || (bool_ok && x == DType::kBool), type,
              ": X and Y must be int32 or int64", bool_ok ? " or bool" : "", ", got ",
              dtype_name(x));
  ctx.set_output("Out", kernels::broadcast_shape(ctx.in_shape("X"), ctx.in_shape("Y")), x);
}

template <typename C>
void right_shift(C& c) {
  const BinaryMath f = c.op().template attr<bool>("is_arithmetic") ? BinaryMath::kShiftRight
                                                                   : BinaryMath::kShiftRightLogical;
  SKIFF_KERNEL_CALL(c, "binary_math", kernels::binary_math, constant(c, f, binary_math_literal),
                    c.in("X"), c.in("Y"), c.out("Out"));
}

template <typename C>
void bitwise_not(C& c) {
  SKIFF_KERNEL_CALL(c, "binary_math", kernels::bitwise_not, c.in("X"), c.out("Out"));
}

void infer_bitwise_not(ShapeContext& ctx) {
  const DType x = ctx.in_dtype("X");
  SKIFF_CHECK(x == DType::kI32 || x == DType::kI64 || x == DType::kBool,
              "bitwise_not: X must be int32, int64 or bool, got ", dtype_name(x));
  ctx.set_output("Out", ctx.in_shape("X"), x);
}

// One integer op: slots, shape inference, kernels; no grad maker (integers have none).
OpBuilder register_integer(OpRegistry& r, BinaryMath f, const char* formula, KernelFn kernel,
                           EmitFn emit) {
  const bool with_bool =
      f == BinaryMath::kBitAnd || f == BinaryMath::kBitOr || f == BinaryMath::kBitXor;
  OpBuilder op = r.add(kernels::binary_math_op(f));
  op.doc(std::string(formula) + ", elementwise with numpy broadcasting; no gradient.")
      .input("X", with_bool ? "any shape; int32, int64 or bool" : "any shape; int32 or int64")
      .input("Y", "broadcastable with X; X's dtype")
      .output("Out", "the broadcast shape of X and Y, their dtype")
      .infer_shape(infer_integer);
  if (with_bool) {
    op.bind({DType::kI32, DType::kI64, DType::kBool}, kernel, emit);
  } else {
    op.bind({DType::kI32, DType::kI64}, kernel, emit);
  }
  return op;
}

void register_integer_ops(OpRegistry& r) {
  register_integer(r, BinaryMath::kBitAnd, "Out = X & Y (bool: logical and)",
                   binary<BinaryMath::kBitAnd, KernelContext>,
                   binary<BinaryMath::kBitAnd, EmitContext>);
  register_integer(r, BinaryMath::kBitOr, "Out = X | Y (bool: logical or)",
                   binary<BinaryMath::kBitOr, KernelContext>,
                   binary<BinaryMath::kBitOr, EmitContext>);
  register_integer(r, BinaryMath::kBitXor, "Out = X ^ Y (bool: logical xor)",
                   binary<BinaryMath::kBitXor, KernelContext>,
                   binary<BinaryMath::kBitXor, EmitContext>);
  register_integer(r, BinaryMath::kShiftLeft, "Out = X << Y; 0 where Y < 0 or Y >= the bit width",
                   binary<BinaryMath::kShiftLeft, KernelContext>,
                   binary<BinaryMath::kShiftLeft, EmitContext>)
      .attr("is_arithmetic", true, "accepted for symmetry: left shifts are the same either way");
  register_integer(r, BinaryMath::kShiftRight,
                   "Out = X >> Y, keeping the sign (is_arithmetic) or as unsigned bits; "
                   "where Y < 0 or Y >= the bit width: -1 for negative X when arithmetic, else 0",
                   right_shift<KernelContext>, right_shift<EmitContext>)
      .attr("is_arithmetic", true, "true: sign-extending shift; false: zeros shifted in");
  register_integer(r, BinaryMath::kGcd, "Out = the greatest common divisor of |X| and |Y|",
                   binary<BinaryMath::kGcd, KernelContext>, binary<BinaryMath::kGcd, EmitContext>);
  register_integer(r, BinaryMath::kLcm, "Out = |X * Y| / gcd(X, Y), 0 where X or Y is 0",
                   binary<BinaryMath::kLcm, KernelContext>, binary<BinaryMath::kLcm, EmitContext>);
  r.add("bitwise_not")
      .doc("Out = ~X (bool: logical not), elementwise; no gradient.")
      .input("X", "any shape; int32, int64 or bool")
      .output("Out", "X's shape and dtype")
      .infer_shape(infer_bitwise_not)
      .bind({DType::kI32, DType::kI64, DType::kBool}, bitwise_not<KernelContext>,
            bitwise_not<EmitContext>);
}

}  // namespace

void register_binary_math_ops(OpRegistry& r) {
  register_binary<BinaryMath::kPow>(
      r, "Out = X ** Y (integers: exact; a negative integer power is an error)",
      "X@GRAD = Y * X^(Y-1) * Out@GRAD, Y@GRAD = Out * log(X) * Out@GRAD");
  register_binary<BinaryMath::kMod>(
      r, "Out = X - floor(X / Y) * Y, with the sign of Y like Python's % (integers: Y != 0)",
      "X@GRAD = Out@GRAD, Y@GRAD = -floor(X / Y) * Out@GRAD");
  register_binary<BinaryMath::kFloorDiv>(
      r, "Out = floor(X / Y) like Python's // (integers: Y != 0); zero gradients", nullptr);
  register_binary<BinaryMath::kAtan2>(
      r, "Out = atan2(X, Y): the angle of the point (Y, X), in (-pi, pi]",
      "X@GRAD = Y / (X^2 + Y^2) * Out@GRAD, Y@GRAD = -X / (X^2 + Y^2) * Out@GRAD");
  register_binary<BinaryMath::kGammainc>(
      r, "Out = P(X, Y), the regularized lower incomplete gamma function of a = X >= 0 at Y >= 0",
      "Y@GRAD = Y^(X-1) e^-Y / gamma(X) * Out@GRAD (X has none)");
  register_binary<BinaryMath::kGammaincc>(
      r, "Out = Q(X, Y) = 1 - P(X, Y), the regularized upper incomplete gamma function",
      "Y@GRAD = -Y^(X-1) e^-Y / gamma(X) * Out@GRAD (X has none)");
  register_binary<BinaryMath::kNextafter>(
      r, "Out = the next representable value after X toward Y (Y itself where X == Y)", nullptr);
  register_integer_ops(r);
}

const OpRegistrar kBinaryMathOps(register_binary_math_ops);

}  // namespace skiff
