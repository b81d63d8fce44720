// Binary elementwise ops with broadcasting (elementwise_add, _sub, _mul, _div, _max,
// _min), their grad ops, and scale.
#include <cctype>

#include "skiff/kernels/cpu/elementwise.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/fuse_activation.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

using kernels::BinaryOp;

// The axis only matters when the shapes differ; equal shapes (the hot path of small
// recurrent models) skip the attribute lookup.
int broadcast_axis(const KernelContext& c, const Tensor& x, const Tensor& y) {
  return x.shape() == y.shape() ? -1 : c.attr<int>("axis");
}
Expr broadcast_axis(const EmitContext& c, const Expr& x, const Expr& y) {
  const int64_t axis = c.op().attr<int64_t>("axis");
  if (axis == -1) return {"-1"};
  return {x.text + ".shape() == " + y.text + ".shape() ? -1 : " + cpp_literal(axis)};
}

// "kernels::BinaryOp::kAdd": each enumerator is k and its capitalised name.
std::string binary_op_literal(BinaryOp op) {
  std::string name = kernels::binary_op_name(op);
  name[0] = static_cast<char>(std::toupper(name[0]));
  return "kernels::BinaryOp::k" + name;
}

// An activation an elementwise op may apply to its result (fuse_activation): its kernel
// enumerator, and that enumerator as generated code spells it.
struct FusableActivation {
  kernels::Activation kind;
  const char* literal;
};

// The fused activation `name` names; throws naming the op and the choices. Literal names:
// each test is a length compare and a load or two (ir/attr.h, name_is).
FusableActivation fusable_activation(const OpDesc& op, const std::string& name) {
  if (name_is(name, "tanh")) return {kernels::Activation::kTanh, "kernels::Activation::kTanh"};
  if (name_is(name, "relu")) return {kernels::Activation::kRelu, "kernels::Activation::kRelu"};
  if (name_is(name, "sigmoid"))
    return {kernels::Activation::kSigmoid, "kernels::Activation::kSigmoid"};
  fail(op.type, ": fuse_activation '", name, "' is not one of relu, tanh, sigmoid (or \"\")");
}

}  // namespace

bool is_fusable_activation(const std::string& name) {
  return name_is(name, "tanh") || name_is(name, "relu") || name_is(name, "sigmoid");
}

namespace {

template <BinaryOp kOp, typename C>
void binary(C& c) {
  const auto& x = c.in("X");
  const auto& y = c.in("Y");
  const std::string& fused = c.op().template attr_ref<std::string>("fuse_activation");
  if (__builtin_expect(fused.empty(), 1)) {
    SKIFF_KERNEL_CALL(c, "elementwise", kernels::elementwise_binary,
                      constant(c, kOp, binary_op_literal), x, y, c.out("Out"),
                      broadcast_axis(c, x, y));
    return;
  }
  const FusableActivation act = fusable_activation(c.op(), fused);
  SKIFF_KERNEL_CALL(
      c, "elementwise", kernels::elementwise_binary_activation, constant(c, kOp, binary_op_literal),
      x, y, constant(c, act.kind, [&](kernels::Activation) { return std::string(act.literal); }),
      c.out("Out"), broadcast_axis(c, x, y));
}

template <BinaryOp kOp, typename C>
void binary_grad(C& c) {
  if (!c.has_out("X@GRAD") && !c.has_out("Y@GRAD")) return;
  const auto& x = c.in("X");
  const auto& y = c.in("Y");
  SKIFF_KERNEL_CALL(c, "elementwise", kernels::elementwise_binary_grad,
                    constant(c, kOp, binary_op_literal), x, y, in_or_empty(c, "Out"),
                    c.in("Out@GRAD"), c.out("X@GRAD"), c.out("Y@GRAD"), broadcast_axis(c, x, y));
}

void infer_binary(ShapeContext& ctx) {
  const DType x = ctx.in_dtype("X"), y = ctx.in_dtype("Y");
  SKIFF_CHECK(x == y, "X is ", dtype_name(x), " but Y is ", dtype_name(y),
              "; both need the same dtype");
  const std::string fused = ctx.op().attr_or<std::string>("fuse_activation", "");
  if (!fused.empty()) {
    fusable_activation(ctx.op(), fused);
    SKIFF_CHECK(x == DType::kF32 || x == DType::kF64, "fuse_activation '", fused,
                "' needs float32 or float64 operands, got ", dtype_name(x));
  }
  ctx.set_output(
      "Out", kernels::broadcast_shape(ctx.in_shape("X"), ctx.in_shape("Y"), ctx.attr<int>("axis")),
      x);
}

// Emits <type>_grad; only div reads the forward output.
void binary_grad_maker(GradContext& g) {
  if (!g.wants("X") && !g.wants("Y")) return;
  const OpDesc& fwd = g.fwd();
  SKIFF_CHECK(fwd.attr_or<std::string>("fuse_activation", "").empty(), fwd.type,
              " with fuse_activation '", fwd.attr<std::string>("fuse_activation"),
              "' has no gradient: the executor fuses activations into programs already "
              "differentiated, where nothing reads the sum before the activation");
  OpDesc& op = g.add(fwd.type + "_grad");
  op.set_input("X", {fwd.first_input("X")}).set_input("Y", {fwd.first_input("Y")});
  if (fwd.type == "elementwise_div") op.set_input("Out", {fwd.first_output("Out")});
  op.set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_output("Y@GRAD", {g.in_grad("Y")})
      .set_attr("axis", fwd.attr<int64_t>("axis"));
}

constexpr const char* kAxisDoc =
    "-1: numpy broadcasting; >= 0: the lower-rank input's dims align with the other's "
    "dims starting at this axis (PaddlePaddle rule)";

constexpr std::initializer_list<DType> kOrderedDTypes = {DType::kF32, DType::kF64, DType::kI32,
                                                         DType::kI64, DType::kBF16};
constexpr std::initializer_list<DType> kArithmeticDTypes = {
    DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBF16, DType::kC64, DType::kC128};
constexpr std::initializer_list<DType> kOrderedGradDTypes = {DType::kF32, DType::kF64,
                                                             DType::kBF16};
constexpr std::initializer_list<DType> kArithmeticGradDTypes = {
    DType::kF32, DType::kF64, DType::kBF16, DType::kC64, DType::kC128};

template <BinaryOp kOp>
void register_binary(OpRegistry& r, const char* type, const char* formula) {
  const std::string name = type;
  // add, sub, mul and div take complex operands too (the gradients are Paddle's: the
  // conjugate of the derivative times Out@GRAD).
  constexpr bool kComplex = kOp != BinaryOp::kMax && kOp != BinaryOp::kMin;
  const std::initializer_list<DType> dtypes = kComplex ? kArithmeticDTypes : kOrderedDTypes;
  const std::initializer_list<DType> grad_dtypes =
      kComplex ? kArithmeticGradDTypes : kOrderedGradDTypes;
  r.add(name)
      .doc(std::string(formula) +
           ", elementwise with broadcasting. Integer division truncates toward zero; bfloat16 "
           "computes in float32 and rounds once.")
      .input("X", kComplex ? "any shape; float32, float64, int32, int64, bfloat16, complex64 or "
                             "complex128"
                           : "any shape; float32, float64, int32, int64 or bfloat16")
      .input("Y", "broadcastable with X; X's dtype")
      .output("Out", "the broadcast shape of X and Y")
      .attr("axis", int64_t{-1}, kAxisDoc)
      .attr("fuse_activation", std::string(),
            "\"\", or relu, tanh or sigmoid applied to Out (float32, float64): set where the "
            "executor runs `act(X op Y)` as one op; such an op has no gradient")
      .infer_shape(infer_binary)
      .bind(dtypes, binary<kOp, KernelContext>, binary<kOp, EmitContext>)
      .grad(binary_grad_maker)
      .writes_in_place();

  r.add(name + "_grad")
      .doc("Gradients of " + name +
           ": Out@GRAD summed over the dims each input was "
           "broadcast along.")
      .input("X", "the forward X")
      .input("Y", "the forward Y")
      .optional_input("Out", "the forward Out (read by elementwise_div_grad)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X (\"\" when not needed)")
      .output("Y@GRAD", "gradient of Y (\"\" when not needed)")
      .attr("axis", int64_t{-1}, kAxisDoc)
      .infer_shape(infer_x_y_grads_like_x_y)
      .bind(grad_dtypes, binary_grad<kOp, KernelContext>, binary_grad<kOp, EmitContext>)
      .kernel_dtype_from("X");
}

template <typename C>
void scale(C& c) {
  SKIFF_KERNEL_CALL(c, "elementwise", kernels::scale, c.in("X"), attr<double>(c, "scale"),
                    attr<double>(c, "bias"), attr<bool>(c, "bias_after_scale"), c.out("Out"));
}

// d(scale * X + b)/dX = scale: the gradient is a scale op with the same factor.
void scale_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("scale")
      .set_input("X", {g.out_grad("Out")})
      .set_output("Out", {g.in_grad("X")})
      .set_attr("scale", g.fwd().attr<double>("scale"))
      .set_attr("bias", 0.0)
      .set_attr("bias_after_scale", true);
}

}  // namespace

void register_elementwise_ops(OpRegistry& r) {
  register_binary<BinaryOp::kAdd>(r, "elementwise_add", "Out = X + Y");
  register_binary<BinaryOp::kSub>(r, "elementwise_sub", "Out = X - Y");
  register_binary<BinaryOp::kMul>(r, "elementwise_mul", "Out = X * Y");
  register_binary<BinaryOp::kDiv>(r, "elementwise_div", "Out = X / Y");
  register_binary<BinaryOp::kMax>(r, "elementwise_max",
                                  "Out = max(X, Y) (NaN if either is; gradient ties go to X)");
  register_binary<BinaryOp::kMin>(r, "elementwise_min",
                                  "Out = min(X, Y) (NaN if either is; gradient ties go to X)");

  r.add("scale")
      .doc(
          "Out = scale * X + bias, or scale * (X + bias) when bias_after_scale is false. "
          "On integers a fractional scale or bias is applied in float64 and truncated.")
      .input("X", "any shape; float32, float64, int32 or int64")
      .output("Out", "X's shape and dtype")
      .attr("scale", 1.0, "the factor")
      .attr("bias", 0.0, "the offset")
      .attr("bias_after_scale", true, "add bias after scaling (else before)")
      .infer_shape(infer_out_like_x)
      .bind({DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kC64, DType::kC128},
            scale<KernelContext>, scale<EmitContext>)
      .grad(scale_grad_maker)
      .writes_in_place();
}

const OpRegistrar kElementwiseOps(register_elementwise_ops);

}  // namespace skiff
