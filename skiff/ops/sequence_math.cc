// Running reductions along an axis and ranges: cumsum (gradient: a cumsum the other way),
// cumprod, logcumsumexp, cummax / cummin (gradient: top_k_grad's scatter) and arange.
#include <cmath>
#include <string>

#include "skiff/kernels/cpu/sequence_math.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// ---- cumsum ----

void infer_cumsum(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.in_dtype("X") != DType::kBool, "cumsum: X must be numeric, got bool");
  ctx.set_output("Out", ctx.in_shape("X"), ctx.in_dtype("X"));
}

template <typename C>
void cumsum(C& c) {
  SKIFF_KERNEL_CALL(c, "sequence_math", kernels::cumsum, c.in("X"), attr<int64_t>(c, "axis"),
                    attr<bool>(c, "exclusive"), attr<bool>(c, "reverse"), c.out("Out"));
}

// Each X[j] reaches the outputs after it (before it when reversed), so its gradient
// is the cumsum of Out@GRAD in the other direction.
void cumsum_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  g.add("cumsum")
      .set_input("X", {g.out_grad("Out")})
      .set_output("Out", {g.in_grad("X")})
      .set_attr("axis", fwd.attr<int64_t>("axis"))
      .set_attr("exclusive", fwd.attr<bool>("exclusive"))
      .set_attr("reverse", !fwd.attr<bool>("reverse"));
}

// ---- cumprod, logcumsumexp, cummax, cummin ----

void infer_numeric_like_x(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.in_dtype("X") != DType::kBool, ctx.op().type, ": X must be numeric, got bool");
  ctx.set_output("Out", ctx.in_shape("X"), ctx.in_dtype("X"));
}

void infer_logcumsumexp(ShapeContext& ctx) {
  SKIFF_CHECK(is_floating(ctx.in_dtype("X")), "logcumsumexp: X must be float32 or float64, got ",
              dtype_name(ctx.in_dtype("X")));
  ctx.set_output("Out", ctx.in_shape("X"), ctx.in_dtype("X"));
}

void infer_cum_extreme(ShapeContext& ctx) {
  infer_numeric_like_x(ctx);
  ctx.set_output("Indices", ctx.in_shape("X"), DType::kI64);
}

template <typename C>
void cumprod(C& c) {
  SKIFF_KERNEL_CALL(c, "sequence_math", kernels::cumprod, c.in("X"), attr<int64_t>(c, "axis"),
                    c.out("Out"));
}

template <typename C>
void logcumsumexp(C& c) {
  SKIFF_KERNEL_CALL(c, "sequence_math", kernels::logcumsumexp, c.in("X"), attr<int64_t>(c, "axis"),
                    c.out("Out"));
}

template <bool kLargest, typename C>
void cum_extreme(C& c) {
  SKIFF_KERNEL_CALL(c, "sequence_math", kernels::cum_extreme, c.in("X"), attr<int64_t>(c, "axis"),
                    constant(c, kLargest), c.out("Out"), c.out("Indices"));
}

template <typename C>
void cumprod_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "sequence_math", kernels::cumprod_grad, c.in("X"), c.in("Out"),
                    c.in("Out@GRAD"), attr<int64_t>(c, "axis"), c.out("X@GRAD"));
}

template <typename C>
void logcumsumexp_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "sequence_math", kernels::logcumsumexp_grad, c.in("X"), c.in("Out"),
                    c.in("Out@GRAD"), attr<int64_t>(c, "axis"), c.out("X@GRAD"));
}

// cumprod and logcumsumexp: "<op>_grad" reads X, Out and Out@GRAD.
void scan_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  g.add(fwd.type + "_grad")
      .set_input("X", {fwd.first_input("X")})
      .set_input("Out", {fwd.first_output("Out")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_attr("axis", fwd.attr<int64_t>("axis"));
}

// Out[i] is X[Indices[i]], so each Out@GRAD[i] goes to X@GRAD[Indices[i]]: top_k's scatter.
void cum_extreme_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  g.add("top_k_grad")
      .set_input("X", {fwd.first_input("X")})
      .set_input("Indices", {fwd.first_output("Indices")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_attr("axis", fwd.attr<int64_t>("axis"));
}

void register_scan_grad(OpRegistry& r, const std::string& type, KernelFn run, EmitFn emit) {
  r.add(type + "_grad")
      .doc("X@GRAD = the gradient of " + type + " through Out for Out@GRAD.")
      .input("X", "the forward X")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("axis", int64_t{-1}, "as in the forward op")
      .infer_shape(infer_x_grad_like_x)
      .bind({DType::kF32, DType::kF64}, run, emit)
      .kernel_dtype_from("X");
}

void register_cumulative_ops(OpRegistry& r) {
  r.add("cumprod")
      .doc("Out[i] = X[0] * ... * X[i] along `axis`; the gradient is exact where X has zeros.")
      .input("X", "any shape; float32, float64, int32 or int64")
      .output("Out", "X's shape and dtype")
      .attr("axis", int64_t{-1}, "the multiplied axis (negative: from the back)")
      .infer_shape(infer_numeric_like_x)
      .bind({DType::kF32, DType::kF64, DType::kI32, DType::kI64}, cumprod<KernelContext>,
            cumprod<EmitContext>)
      .grad(scan_grad_maker);
  register_scan_grad(r, "cumprod", cumprod_grad<KernelContext>, cumprod_grad<EmitContext>);

  r.add("logcumsumexp")
      .doc("Out[i] = log(exp(X[0]) + ... + exp(X[i])) along `axis`, computed stably.")
      .input("X", "any shape; float32 or float64")
      .output("Out", "X's shape and dtype")
      .attr("axis", int64_t{-1}, "the accumulated axis (negative: from the back)")
      .infer_shape(infer_logcumsumexp)
      .bind({DType::kF32, DType::kF64}, logcumsumexp<KernelContext>, logcumsumexp<EmitContext>)
      .grad(scan_grad_maker);
  register_scan_grad(r, "logcumsumexp", logcumsumexp_grad<KernelContext>,
                     logcumsumexp_grad<EmitContext>);

  for (const bool largest : {true, false}) {
    const std::string type = largest ? "cummax" : "cummin";
    r.add(type)
        .doc(std::string("Out[i] = the ") + (largest ? "largest" : "smallest") +
             " of X[0..i] along `axis`, Indices[i] its position (the last one on ties; NaN "
             "wins and stays).")
        .input("X", "any shape; float32, float64, int32 or int64")
        .output("Out", "X's shape and dtype")
        .output("Indices", "int64; X's shape")
        .attr("axis", int64_t{-1}, "the scanned axis (negative: from the back)")
        .infer_shape(infer_cum_extreme)
        .bind({DType::kF32, DType::kF64, DType::kI32, DType::kI64},
              largest ? cum_extreme<true, KernelContext> : cum_extreme<false, KernelContext>,
              largest ? cum_extreme<true, EmitContext> : cum_extreme<false, EmitContext>)
        .kernel_dtype_from("X")
        .grad(cum_extreme_grad_maker);
  }
}

// ---- arange ----

// The value of bound `slot` (a one-element input) or else of attr `attr`.
template <typename C>
auto bound(const C& c, const char* slot, const char* attr_name) {
  if (!c.has_in(slot)) return attr<double>(c, attr_name);
  return SKIFF_KERNEL_VALUE(c, kernels::arange_bound, c.in(slot), constant(c, slot));
}

void infer_arange(ShapeContext& ctx) {
  const DType dtype = dtype_from_name(ctx.attr<std::string>("dtype"));
  SKIFF_CHECK(dtype != DType::kBool, "arange: dtype must be numeric, got bool");
  bool from_inputs = false;
  for (const char* slot : {"Start", "End", "Step"}) {
    if (!ctx.has_input(slot)) continue;
    from_inputs = true;
    const Shape s = ctx.in_shape(slot);
    SKIFF_CHECK(!s.known() || s.numel() == 1, "arange: ", slot,
                " must hold one element, got shape ", s);
  }
  if (from_inputs) {
    ctx.set_output("Out", Shape{-1}, dtype);
    return;
  }
  const double start = ctx.attr<double>("start"), end = ctx.attr<double>("end"),
               step = ctx.attr<double>("step");
  if (!is_floating(dtype)) {
    SKIFF_CHECK(std::floor(start) == start && std::floor(end) == end && std::floor(step) == step,
                "arange: ", dtype_name(dtype), " needs integral start, end and step, got ", start,
                ", ", end, ", ", step);
  }
  ctx.set_output("Out", Shape{kernels::arange_length(start, end, step)}, dtype);
}

template <typename C>
void arange(C& c) {
  SKIFF_KERNEL_CALL(c, "sequence_math", kernels::arange, bound(c, "Start", "start"),
                    bound(c, "End", "end"), bound(c, "Step", "step"), dtype_attr(c, "dtype"),
                    c.out("Out"));
}

}  // namespace

void register_sequence_math_ops(OpRegistry& r) {
  register_cumulative_ops(r);
  r.add("cumsum")
      .doc(
          "Out[i] = X[0] + ... + X[i] along `axis`; exclusive leaves out X[i] itself, reverse "
          "sums from the end.")
      .input("X", "any shape; float32, float64, int32 or int64")
      .output("Out", "X's shape and dtype")
      .attr("axis", int64_t{-1}, "the summed axis (negative: from the back)")
      .attr("exclusive", false, "leave out each element itself")
      .attr("reverse", false, "sum from the last element backwards")
      .infer_shape(infer_cumsum)
      .bind({DType::kF32, DType::kF64, DType::kI32, DType::kI64}, cumsum<KernelContext>,
            cumsum<EmitContext>)
      .grad(cumsum_grad_maker);

  r.add("arange")
      .doc(
          "Out = [start, start + step, ...] up to (not including) end: ceil((end - start) / "
          "step) values, none when step points away from end. The bounds come from the Start, "
          "End and Step inputs where given, else from the attrs.")
      .optional_input("Start", "one-element tensor, overrides the start attr")
      .optional_input("End", "one-element tensor, overrides the end attr")
      .optional_input("Step", "one-element tensor, overrides the step attr")
      .output("Out", "1-D of `dtype`")
      .attr("start", 0.0, "first value")
      .attr("end", 0.0, "bound, not included")
      .attr("step", 1.0, "spacing, non-zero")
      .attr("dtype", std::string("float32"), "float32, float64, int32 or int64")
      .infer_shape(infer_arange)
      .bind({DType::kF32, DType::kF64, DType::kI32, DType::kI64}, arange<KernelContext>,
            arange<EmitContext>);
}

const OpRegistrar kSequenceMathOps(register_sequence_math_ops);

}  // namespace skiff
