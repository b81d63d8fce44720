// Running sums and ranges: cumsum (gradient: a cumsum the other way) and arange.
#include <cmath>
#include <string>

#include "skiff/kernels/cpu/sequence_math.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// ---- cumsum ----

void infer_cumsum(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.in_dtype("X") != DType::kBool, "cumsum: X must be numeric, got bool");
  ctx.set_output("Out", ctx.in_shape("X"), ctx.in_dtype("X"));
}

void cumsum_kernel(KernelContext& ctx) {
  kernels::cumsum(ctx.in("X"), ctx.attr<int64_t>("axis"), ctx.attr<bool>("exclusive"),
                  ctx.attr<bool>("reverse"), ctx.out("Out"));
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

// ---- arange ----

// The value of bound `slot` (a one-element input) or else of attr `attr`.
double bound(const KernelContext& ctx, const char* slot, const char* attr) {
  if (!ctx.has_in(slot)) return ctx.attr<double>(attr);
  const Tensor& t = ctx.in(slot);
  SKIFF_CHECK(t.numel() == 1, "arange: ", slot, " must hold one element, got ", t.type_str());
  return t.item<double>();
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

// The kernel is chosen by Out's dtype, which is T.
template <typename T>
void arange_kernel(KernelContext& ctx) {
  kernels::arange(bound(ctx, "Start", "start"), bound(ctx, "End", "end"),
                  bound(ctx, "Step", "step"), dtype_of<T>, ctx.out("Out"));
}

}  // namespace

void register_sequence_math_ops(OpRegistry& r) {
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
      .kernel({DType::kF32, DType::kF64, DType::kI32, DType::kI64}, cumsum_kernel)
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
      .kernel({DType::kF32}, arange_kernel<float>)
      .kernel({DType::kF64}, arange_kernel<double>)
      .kernel({DType::kI32}, arange_kernel<int32_t>)
      .kernel({DType::kI64}, arange_kernel<int64_t>);
}

}  // namespace skiff
