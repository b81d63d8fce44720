// Tensor creation: constants, fills shaped like another variable, seeded random values.
#include "skiff/kernels/cpu/fill.h"
#include "skiff/kernels/cpu/random.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// A known shape from the "shape" attr, checked at build time.
Shape known_shape_attr(const ShapeContext& ctx) {
  Shape s(ctx.attr_ref<std::vector<int64_t>>("shape"));
  for (int64_t d : s) SKIFF_CHECK(d >= 0, "shape attr must have non-negative dims, got ", s);
  return s;
}

void infer_from_shape_and_dtype(ShapeContext& ctx) {
  ctx.set_output("Out", known_shape_attr(ctx), dtype_from_name(ctx.attr<std::string>("dtype")));
}

void infer_random(ShapeContext& ctx) {
  DType dtype = dtype_from_name(ctx.attr<std::string>("dtype"));
  SKIFF_CHECK(is_floating(dtype), "dtype must be float32 or float64, got ", dtype_name(dtype));
  ctx.set_output("Out", known_shape_attr(ctx), dtype);
}

void infer_fill_any_like(ShapeContext& ctx) {
  std::string name = ctx.attr<std::string>("dtype");
  DType dtype = name.empty() ? ctx.in_dtype("X") : dtype_from_name(name);
  ctx.set_output("Out", ctx.in_shape("X"), dtype);
}

void infer_like_x(ShapeContext& ctx) {
  const VarDesc& x = ctx.in_var("X");
  ctx.set_output("Out", x.shape, x.dtype, 0, x.kind);
}

template <typename C>
void fill_constant(C& c) {
  SKIFF_KERNEL_CALL(c, "fill", kernels::fill_constant, shape_attr(c, "shape"),
                    dtype_attr(c, "dtype"), attr<double>(c, "value"), c.out("Out"));
}

// Out's dtype: the dtype attr, or X's when it is empty.
DType fill_dtype(const KernelContext& c, const Tensor& x) {
  const std::string& name = c.attr_ref<std::string>("dtype");
  return name.empty() ? x.dtype() : dtype_from_name(name);
}
Expr fill_dtype(const EmitContext& c, const TensorExpr& x) {
  const std::string& name = c.op().attr_ref<std::string>("dtype");
  return name.empty() ? x.dtype() : Expr{dtype_literal(dtype_from_name(name))};
}

template <typename C>
void fill_any_like(C& c) {
  const auto& x = c.in("X");
  SKIFF_KERNEL_CALL(c, "fill", kernels::fill_constant, x.shape(), fill_dtype(c, x),
                    attr<double>(c, "value"), c.out("Out"));
}

void fill_zeros_like_kernel(KernelContext& ctx) {
  const Variable* x = ctx.in_var("X");
  if (const TensorArray* arr = x ? x->array() : nullptr) {
    kernels::zeros_like(*arr, ctx.out_var("Out")->mutable_array());
    return;
  }
  kernels::zeros_like(ctx.in("X"), ctx.out("Out"));
}

template <typename C>
void uniform_random(C& c) {
  SKIFF_KERNEL_CALL(c, "random", kernels::uniform_random, shape_attr(c, "shape"),
                    dtype_attr(c, "dtype"), attr<double>(c, "min"), attr<double>(c, "max"),
                    attr<int64_t>(c, "seed"), c.out("Out"));
}

template <typename C>
void gaussian_random(C& c) {
  SKIFF_KERNEL_CALL(c, "random", kernels::gaussian_random, shape_attr(c, "shape"),
                    dtype_attr(c, "dtype"), attr<double>(c, "mean"), attr<double>(c, "std"),
                    attr<int64_t>(c, "seed"), c.out("Out"));
}

template <typename C>
void truncated_gaussian_random(C& c) {
  SKIFF_KERNEL_CALL(c, "random", kernels::truncated_gaussian_random, shape_attr(c, "shape"),
                    dtype_attr(c, "dtype"), attr<double>(c, "mean"), attr<double>(c, "std"),
                    attr<double>(c, "a"), attr<double>(c, "b"), attr<int64_t>(c, "seed"),
                    c.out("Out"));
}

template <typename C>
void randint(C& c) {
  SKIFF_KERNEL_CALL(c, "random", kernels::randint, shape_attr(c, "shape"), dtype_attr(c, "dtype"),
                    attr<int64_t>(c, "low"), attr<int64_t>(c, "high"), attr<int64_t>(c, "seed"),
                    c.out("Out"));
}

template <typename C>
void randperm(C& c) {
  SKIFF_KERNEL_CALL(c, "random", kernels::randperm, attr<int64_t>(c, "n"), dtype_attr(c, "dtype"),
                    attr<int64_t>(c, "seed"), c.out("Out"));
}

void infer_randint(ShapeContext& ctx) {
  DType dtype = dtype_from_name(ctx.attr<std::string>("dtype"));
  SKIFF_CHECK(dtype == DType::kI32 || dtype == DType::kI64, "dtype must be int32 or int64, got ",
              dtype_name(dtype));
  SKIFF_CHECK(ctx.attr<int64_t>("low") < ctx.attr<int64_t>("high"), "high (",
              ctx.attr<int64_t>("high"), ") must be above low (", ctx.attr<int64_t>("low"), ")");
  ctx.set_output("Out", known_shape_attr(ctx), dtype);
}

void infer_randperm(ShapeContext& ctx) {
  const int64_t n = ctx.attr<int64_t>("n");
  SKIFF_CHECK(n >= 0, "n must be non-negative, got ", n);
  DType dtype = dtype_from_name(ctx.attr<std::string>("dtype"));
  SKIFF_CHECK(dtype == DType::kI32 || dtype == DType::kI64 || is_floating(dtype),
              "dtype must be int32, int64, float32 or float64, got ", dtype_name(dtype));
  ctx.set_output("Out", Shape{n}, dtype);
}

constexpr const char* kSeedDoc =
    "0: draw from the process-wide generator (see set_global_seed); otherwise a fresh "
    "generator started from this seed (the same values every time)";

}  // namespace

void register_creation_ops(OpRegistry& r) {
  r.add("fill_constant")
      .doc("Out = a tensor of the given shape and dtype with every element = value.")
      .output("Out", "the filled tensor")
      .required_attr("shape", AttrType::kInts, "dims of Out (all known)")
      .attr("value", 0.0, "the fill value (integral for integer dtypes)")
      .attr("dtype", std::string("float32"), "numpy name of Out's dtype")
      .infer_shape(infer_from_shape_and_dtype)
      .bind(kDataDTypes, fill_constant<KernelContext>, fill_constant<EmitContext>);

  r.add("fill_any_like")
      .doc("Out = a tensor shaped like X with every element = value.")
      .input("X", "gives the shape (and the dtype unless dtype is set)")
      .output("Out", "same shape as X")
      .attr("value", 0.0, "the fill value (integral for integer dtypes)")
      .attr("dtype", std::string(""), "numpy name of Out's dtype; \"\" for X's dtype")
      .infer_shape(infer_fill_any_like)
      .bind(kDataDTypes, fill_any_like<KernelContext>, fill_any_like<EmitContext>)
      // Out does not depend on X's values: X's gradient through it is zero (no grad op),
      // so zeros_like(x) of a trained x lies on no gradient path.
      .grad([](GradContext&) {});

  r.add("fill_zeros_like")
      .doc(
          "Out = zeros shaped like X. For a tensor array X, an array of the same length "
          "with zeros shaped like each entry (entries without a value stay empty).")
      .input("X", "a tensor or a tensor array")
      .output("Out", "same kind, dtype and shape as X")
      .infer_shape(infer_like_x)
      .kernel(kDataDTypes, fill_zeros_like_kernel);

  r.add("uniform_random")
      .doc("Out = values uniform in [min, max), drawn as PaddlePaddle's CPU kernel draws them.")
      .output("Out", "the random tensor")
      .required_attr("shape", AttrType::kInts, "dims of Out (all known)")
      .attr("min", -1.0, "lower bound (inclusive)")
      .attr("max", 1.0, "upper bound (exclusive)")
      .attr("seed", int64_t{0}, kSeedDoc)
      .attr("dtype", std::string("float32"), "float32 or float64")
      .infer_shape(infer_random)
      .bind({DType::kF32, DType::kF64}, uniform_random<KernelContext>, uniform_random<EmitContext>);

  r.add("gaussian_random")
      .doc("Out = normal values, drawn as PaddlePaddle's CPU kernel draws them.")
      .output("Out", "the random tensor")
      .required_attr("shape", AttrType::kInts, "dims of Out (all known)")
      .attr("mean", 0.0, "mean of the distribution")
      .attr("std", 1.0, "standard deviation (non-negative)")
      .attr("seed", int64_t{0}, kSeedDoc)
      .attr("dtype", std::string("float32"), "float32 or float64")
      .infer_shape(infer_random)
      .bind({DType::kF32, DType::kF64}, gaussian_random<KernelContext>,
            gaussian_random<EmitContext>);

  r.add("randint")
      .doc("Out = integers uniform in [low, high), drawn as PaddlePaddle's CPU kernel draws them.")
      .output("Out", "the random tensor")
      .required_attr("shape", AttrType::kInts, "dims of Out (all known)")
      .required_attr("low", AttrType::kInt, "lower bound (inclusive)")
      .required_attr("high", AttrType::kInt, "upper bound (exclusive), above low")
      .attr("seed", int64_t{0}, kSeedDoc)
      .attr("dtype", std::string("int64"), "int32 or int64")
      .infer_shape(infer_randint)
      .bind({DType::kI32, DType::kI64}, randint<KernelContext>, randint<EmitContext>);

  r.add("randperm")
      .doc("Out = a random permutation of 0 .. n - 1 (a shuffle, as PaddlePaddle's CPU kernel).")
      .output("Out", "[n]")
      .required_attr("n", AttrType::kInt, "length of the permutation (non-negative)")
      .attr("seed", int64_t{0}, kSeedDoc)
      .attr("dtype", std::string("int64"), "int32, int64, float32 or float64")
      .infer_shape(infer_randperm)
      .bind({DType::kI32, DType::kI64, DType::kF32, DType::kF64}, randperm<KernelContext>,
            randperm<EmitContext>);

  r.add("truncated_gaussian_random")
      .doc(
          "Out = normal values of the given mean and std restricted to [a, b] (the density "
          "renormalised there, as PaddlePaddle's truncated_gaussian_random), by the inverse "
          "CDF of seeded uniform draws.")
      .output("Out", "the random tensor")
      .required_attr("shape", AttrType::kInts, "dims of Out (all known)")
      .attr("mean", 0.0, "mean of the untruncated distribution")
      .attr("std", 1.0, "standard deviation of the untruncated distribution (non-negative)")
      .attr("a", -2.0, "lower bound of the values")
      .attr("b", 2.0, "upper bound of the values (above a)")
      .attr("seed", int64_t{0}, kSeedDoc)
      .attr("dtype", std::string("float32"), "float32 or float64")
      .infer_shape(infer_random)
      .bind({DType::kF32, DType::kF64}, truncated_gaussian_random<KernelContext>,
            truncated_gaussian_random<EmitContext>);
}

const OpRegistrar kCreationOps(register_creation_ops);

}  // namespace skiff
