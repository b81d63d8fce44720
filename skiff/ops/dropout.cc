// dropout and dropout_grad (Paddle's upscale_in_train / downgrade_in_infer modes).
#include "skiff/kernels/cpu/dropout.h"

#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

void check_attrs(const char* op, double p, const std::string& implementation) {
  SKIFF_CHECK(p >= 0.0 && p <= 1.0, op, ": dropout_prob must lie in [0, 1], got ", p);
  kernels::dropout_mode(implementation);
}

void infer_dropout(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(is_floating(dtype), "dropout: X must be float32 or float64, got ", dtype_name(dtype),
              x);
  check_attrs("dropout", ctx.attr<double>("dropout_prob"),
              ctx.attr_ref<std::string>("dropout_implementation"));
  SKIFF_CHECK(ctx.attr<bool>("is_test") || ctx.has_output("Mask"),
              "dropout: training (is_test false) needs the Mask output");
  ctx.set_output("Out", x, dtype);
  ctx.set_output("Mask", x, DType::kBool);
}

// The seed attr as the kernel's uint64_t (its bits unchanged): the value, or its literal
// for the compiler, so a compiled model draws the mask the interpreter draws.
template <typename C>
auto seed_of(const C& c) {
  return constant(c, static_cast<uint64_t>(c.op().template attr<int64_t>("seed")),
                  [](uint64_t seed) { return std::to_string(seed) + "u"; });
}

template <typename C>
void dropout(C& c) {
  SKIFF_KERNEL_CALL(c, "dropout", kernels::dropout, c.in("X"), attr<double>(c, "dropout_prob"),
                    attr<bool>(c, "is_test"), seed_of(c),
                    SKIFF_KERNEL_VALUE(c, kernels::dropout_mode,
                                       attr_ref<std::string>(c, "dropout_implementation")),
                    c.out("Out"), c.out("Mask"));
}

void dropout_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  OpDesc& op = g.add("dropout_grad")
                   .set_input("Out@GRAD", {g.out_grad("Out")})
                   .set_output("X@GRAD", {g.in_grad("X")});
  const std::string mask = fwd.first_output("Mask");
  if (!mask.empty()) op.set_input("Mask", {mask});
  op.set_attr("dropout_prob", fwd.attr<double>("dropout_prob"))
      .set_attr("is_test", fwd.attr<bool>("is_test"))
      .set_attr("dropout_implementation", fwd.attr<std::string>("dropout_implementation"));
}

void infer_dropout_grad(ShapeContext& ctx) {
  check_attrs("dropout_grad", ctx.attr<double>("dropout_prob"),
              ctx.attr_ref<std::string>("dropout_implementation"));
  ctx.set_output("X@GRAD", ctx.in_shape("Out@GRAD"), ctx.in_dtype("Out@GRAD"));
}

template <typename C>
void dropout_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  const bool no_mask = c.op().template attr<bool>("is_test") && !c.has_in("Mask");
  SKIFF_KERNEL_CALL(c, "dropout", kernels::dropout_grad, no_mask ? no_tensor(c) : c.in("Mask"),
                    c.in("Out@GRAD"), attr<double>(c, "dropout_prob"), attr<bool>(c, "is_test"),
                    SKIFF_KERNEL_VALUE(c, kernels::dropout_mode,
                                       attr_ref<std::string>(c, "dropout_implementation")),
                    c.out("X@GRAD"));
}

}  // namespace

void register_dropout_ops(OpRegistry& r) {
  r.add("dropout")
      .doc(
          "Training: Out = X * Mask, divided by (1 - dropout_prob) in upscale_in_train mode, where "
          "Mask keeps each element with probability 1 - dropout_prob. Inference (is_test): Out = "
          "X (upscale_in_train) or X * (1 - dropout_prob) (downgrade_in_infer).")
      .input("X", "float32 or float64, any shape")
      .output("Out", "X's shape and dtype")
      .optional_output("Mask", "bool, X's shape: the kept elements (all true at inference)")
      .attr("dropout_prob", 0.5, "probability of dropping an element, in [0, 1]")
      .attr("is_test", false, "inference: no elements are dropped")
      .attr("seed", int64_t{0},
            "0: draw from the global generator (set_global_seed); otherwise the same mask on "
            "every run")
      .attr("dropout_implementation", std::string("upscale_in_train"),
            "\"upscale_in_train\" or \"downgrade_in_infer\"")
      .infer_shape(infer_dropout)
      .bind({DType::kF32, DType::kF64}, dropout<KernelContext>, dropout<EmitContext>)
      .kernel_dtype_from("X")
      .grad(dropout_grad_maker);

  r.add("dropout_grad")
      .doc(
          "X@GRAD = Out@GRAD * Mask (divided by 1 - dropout_prob in upscale_in_train mode) in "
          "training; Out@GRAD, or Out@GRAD * (1 - dropout_prob) in downgrade_in_infer mode, at "
          "inference.")
      .optional_input("Mask", "the forward Mask (needed in training)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("dropout_prob", 0.5, "as in the forward op")
      .attr("is_test", false, "as in the forward op")
      .attr("dropout_implementation", std::string("upscale_in_train"), "as in the forward op")
      .infer_shape(infer_dropout_grad)
      .bind({DType::kF32, DType::kF64}, dropout_grad<KernelContext>, dropout_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");
}

const OpRegistrar kDropoutOps(register_dropout_ops);

}  // namespace skiff
