// Reductions by value: reduce_max, reduce_min, reduce_prod over a list of dims (with grad
// ops), argmax and argmin along an axis, and top_k (with its grad op).
#include <string>

#include "skiff/kernels/cpu/reduce_extreme.h"
#include "skiff/kernels/cpu/top_k.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/dim_reduction.h"

namespace skiff {

namespace {

constexpr std::initializer_list<DType> kNumeric = {DType::kF32, DType::kF64, DType::kI32,
                                                   DType::kI64};
constexpr std::initializer_list<DType> kFloating = {DType::kF32, DType::kF64};

// ---- reduce_max, reduce_min, reduce_prod ----

enum class Reduction { kMax, kMin, kProd };

const char* reduction_name(Reduction kind) {
  switch (kind) {
    case Reduction::kMax:
      return "reduce_max";
    case Reduction::kMin:
      return "reduce_min";
    case Reduction::kProd:
      return "reduce_prod";
  }
  return "?";
}

void infer_reduce(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(dtype != DType::kBool, ctx.op().type, ": X must be numeric, got bool", x);
  set_reduced_output(ctx, x, dtype);
}

std::string extreme_literal(kernels::Extreme e) {
  return e == kernels::Extreme::kMax ? "kernels::Extreme::kMax" : "kernels::Extreme::kMin";
}

template <Reduction kKind, typename C>
void reduce(C& c) {
  const auto& x = c.in("X");
  if constexpr (kKind == Reduction::kProd) {
    SKIFF_KERNEL_CALL(c, "reduce_extreme", kernels::reduce_prod, x, reduced_axes_of(c, x),
                      attr<bool>(c, "keep_dim"), c.out("Out"));
  } else {
    constexpr kernels::Extreme kExtreme =
        kKind == Reduction::kMax ? kernels::Extreme::kMax : kernels::Extreme::kMin;
    SKIFF_KERNEL_CALL(c, "reduce_extreme", kernels::reduce_extreme,
                      constant(c, kExtreme, extreme_literal), x, reduced_axes_of(c, x),
                      attr<bool>(c, "keep_dim"), c.out("Out"));
  }
}

template <Reduction kKind>
void reduce_grad_maker(GradContext& g) {
  OpDesc* op = add_dim_reduction_grad(g);
  if (op && kKind != Reduction::kProd) op->set_input("Out", {g.fwd().first_output("Out")});
}

template <Reduction kKind, typename C>
void reduce_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  const auto& x = c.in("X");
  if constexpr (kKind == Reduction::kProd) {
    SKIFF_KERNEL_CALL(c, "reduce_extreme", kernels::reduce_prod_grad, x, c.in("Out@GRAD"),
                      reduced_axes_of(c, x), c.out("X@GRAD"));
  } else {
    SKIFF_KERNEL_CALL(c, "reduce_extreme", kernels::reduce_extreme_grad, x, c.in("Out"),
                      c.in("Out@GRAD"), reduced_axes_of(c, x), c.out("X@GRAD"));
  }
}

template <Reduction kKind>
void register_reduce(OpRegistry& r, const char* what, const char* derivative) {
  const std::string type = reduction_name(kKind);
  with_dim_reduction_attrs(
      r.add(type)
          .doc(std::string("Out = the ") + what +
               " of X over the dims in `dim` (all dims when `dim` is empty or reduce_all). "
               "Reducing every dim without keep_dim gives a rank-0 Out.")
          .input("X", "float32, float64, int32 or int64"))
      .infer_shape(infer_reduce)
      .bind(kNumeric, reduce<kKind, KernelContext>, reduce<kKind, EmitContext>)
      .grad(reduce_grad_maker<kKind>);

  OpBuilder grad = r.add(type + "_grad");
  with_dim_reduction_grad_slots(
      grad.doc(std::string("X@GRAD = ") + derivative + ".").input("X", "the forward X"))
      .bind(kFloating, reduce_grad<kKind, KernelContext>, reduce_grad<kKind, EmitContext>)
      .kernel_dtype_from("X");
  if (kKind != Reduction::kProd) grad.input("Out", "the forward Out");
}

// ---- argmax, argmin ----

void infer_arg_extreme(ShapeContext& ctx) {
  const char* op = ctx.op().type.c_str();
  const Shape x = ctx.in_shape("X");
  SKIFF_CHECK(ctx.in_dtype("X") != DType::kBool, op, ": X must be numeric, got bool", x);
  ctx.set_output("Out",
                 kernels::arg_extreme_shape(op, x, ctx.attr<int64_t>("axis"),
                                            ctx.attr<bool>("keepdims"), ctx.attr<bool>("flatten")),
                 DType::kI64);
}

template <bool kLargest, typename C>
void arg_extreme(C& c) {
  SKIFF_KERNEL_CALL(c, "reduce_extreme", kernels::arg_extreme, c.in("X"),
                    constant(c, kLargest, [](bool b) { return cpp_literal(b); }),
                    attr<int64_t>(c, "axis"), attr<bool>(c, "keepdims"), attr<bool>(c, "flatten"),
                    c.out("Out"));
}

template <bool kLargest>
void register_arg_extreme(OpRegistry& r) {
  const std::string what = kLargest ? "largest" : "smallest";
  r.add(kLargest ? "argmax" : "argmin")
      .doc("Out = the index of the first " + what +
           " element of X along `axis` (of the flattened X with flatten); the first NaN "
           "if there is one. Not differentiable.")
      .input("X", "float32, float64, int32 or int64")
      .output("Out", "int64; X without the axis (1 with keepdims); rank 0 with flatten")
      .attr("axis", int64_t{-1}, "the axis to search; negative counts from the back")
      .attr("keepdims", false, "keep the axis as size 1")
      .attr("flatten", false, "search the whole of X as one vector")
      .infer_shape(infer_arg_extreme)
      .bind(kNumeric, arg_extreme<kLargest, KernelContext>, arg_extreme<kLargest, EmitContext>)
      .kernel_dtype_from("X");
}

// ---- top_k ----

void infer_top_k(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(dtype != DType::kBool, "top_k: X must be numeric, got bool", x);
  const Shape out = kernels::top_k_shape(x, ctx.attr<int64_t>("k"), ctx.attr<int64_t>("axis"));
  ctx.set_output("Out", out, dtype);
  ctx.set_output("Indices", out, DType::kI64);
}

template <typename C>
void top_k(C& c) {
  SKIFF_KERNEL_CALL(c, "top_k", kernels::top_k, c.in("X"), attr<int64_t>(c, "k"),
                    attr<int64_t>(c, "axis"), attr<bool>(c, "largest"), attr<bool>(c, "sorted"),
                    c.out("Out"), c.out("Indices"));
}

void top_k_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  g.add("top_k_grad")
      .set_input("X", {fwd.first_input("X")})
      .set_input("Indices", {fwd.first_output("Indices")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_attr("axis", fwd.attr<int64_t>("axis"));
}

template <typename C>
void top_k_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "top_k", kernels::top_k_grad, c.in("Indices"), c.in("Out@GRAD"),
                    c.in("X").shape(), attr<int64_t>(c, "axis"), c.out("X@GRAD"));
}

void register_top_k(OpRegistry& r) {
  r.add("top_k")
      .doc(
          "Out, Indices = the k largest (or smallest) elements of X along `axis` and their "
          "positions; ties go to the lower index, NaN ranks above every number.")
      .input("X", "float32, float64, int32 or int64")
      .output("Out", "X's dtype; X's shape with the axis dim set to k")
      .output("Indices", "int64; Out's shape")
      .attr("k", int64_t{1}, "how many elements to select, in [0, the axis dim]")
      .attr("axis", int64_t{-1}, "the axis to select along; negative counts from the back")
      .attr("largest", true, "select the largest (else the smallest) elements")
      .attr("sorted", true, "order the selection best first (else by position)")
      .infer_shape(infer_top_k)
      .bind(kNumeric, top_k<KernelContext>, top_k<EmitContext>)
      .kernel_dtype_from("X")
      .grad(top_k_grad_maker);
  r.add("top_k_grad")
      .doc("X@GRAD = Out@GRAD scattered to Indices along the axis, 0 elsewhere.")
      .input("X", "the forward X (for its shape)")
      .input("Indices", "the forward Indices")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("axis", int64_t{-1}, "as in the forward op")
      .infer_shape(infer_x_grad_like_x)
      .bind(kFloating, top_k_grad<KernelContext>, top_k_grad<EmitContext>)
      .kernel_dtype_from("X");
}

}  // namespace

void register_reduce_extreme_ops(OpRegistry& r) {
  register_reduce<Reduction::kMax>(
      r, "max (NaN if any element is NaN)",
      "Out@GRAD at the elements equal to Out, split equally among ties; 0 elsewhere");
  register_reduce<Reduction::kMin>(
      r, "min (NaN if any element is NaN)",
      "Out@GRAD at the elements equal to Out, split equally among ties; 0 elsewhere");
  register_reduce<Reduction::kProd>(
      r, "product (1 over no elements; integers wrap on overflow)",
      "Out@GRAD * the product of the other elements of the group (exact with zeros)");
  register_arg_extreme<true>(r);
  register_arg_extreme<false>(r);
  register_top_k(r);
}

const OpRegistrar kReduceExtremeOps(register_reduce_extreme_ops);

}  // namespace skiff
