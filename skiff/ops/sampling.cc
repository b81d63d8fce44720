// Sampling ops: draws from distributions whose parameters are tensors (multinomial,
// poisson, standard_gamma; kernels/cpu/sampling.h).
#include "skiff/kernels/cpu/sampling.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

constexpr const char* kSeedDoc =
    "0: draw from the process-wide generator (see set_global_seed); otherwise a fresh "
    "generator started from this seed (the same values every time)";

void infer_multinomial(ShapeContext& ctx) {
  const Shape& x = ctx.in_shape("X");
  SKIFF_CHECK(x.rank() == 1 || x.rank() == 2, "X must be [C] or [N, C], got ", x);
  SKIFF_CHECK(is_floating(ctx.in_dtype("X")), "X must be float32 or float64, got ",
              dtype_name(ctx.in_dtype("X")));
  const int64_t k = ctx.attr<int64_t>("num_samples");
  SKIFF_CHECK(k >= 1, "num_samples must be positive, got ", k);
  const int64_t c = x[x.rank() - 1];
  SKIFF_CHECK(ctx.attr<bool>("replacement") || c < 0 || k <= c, k,
              " samples without replacement from ", c, " categories");
  ctx.set_output("Out", x.rank() == 2 ? Shape{x[0], k} : Shape{k}, DType::kI64);
}

void infer_like_floating_x(ShapeContext& ctx) {
  SKIFF_CHECK(is_floating(ctx.in_dtype("X")), "X must be float32 or float64, got ",
              dtype_name(ctx.in_dtype("X")));
  ctx.set_output("Out", ctx.in_shape("X"), ctx.in_dtype("X"));
}

template <typename C>
void multinomial(C& c) {
  SKIFF_KERNEL_CALL(c, "sampling", kernels::multinomial, c.in("X"), attr<int64_t>(c, "num_samples"),
                    attr<bool>(c, "replacement"), attr<int64_t>(c, "seed"), c.out("Out"));
}

template <typename C>
void poisson(C& c) {
  SKIFF_KERNEL_CALL(c, "sampling", kernels::poisson, c.in("X"), attr<int64_t>(c, "seed"),
                    c.out("Out"));
}

template <typename C>
void standard_gamma(C& c) {
  SKIFF_KERNEL_CALL(c, "sampling", kernels::standard_gamma, c.in("X"), attr<int64_t>(c, "seed"),
                    c.out("Out"));
}

}  // namespace

void register_sampling_ops(OpRegistry& r) {
  r.add("multinomial")
      .doc(
          "Out = category indices drawn from each row of the non-negative weights X (the "
          "first category whose normalised cumulative weight reaches a uniform draw; "
          "without replacement a drawn category leaves the row).")
      .input("X", "weights [C] or [N, C]: finite, non-negative, a positive sum per row")
      .output("Out", "int64 [num_samples] or [N, num_samples]")
      .attr("num_samples", int64_t{1}, "draws per row")
      .attr("replacement", false, "whether a category may be drawn again")
      .attr("seed", int64_t{0}, kSeedDoc)
      .infer_shape(infer_multinomial)
      .bind({DType::kF32, DType::kF64}, multinomial<KernelContext>, multinomial<EmitContext>)
      .kernel_dtype_from("X");

  r.add("poisson")
      .doc("Out = Poisson(X) counts, in X's dtype.")
      .input("X", "rates: non-negative and finite")
      .output("Out", "same shape and dtype as X")
      .attr("seed", int64_t{0}, kSeedDoc)
      .infer_shape(infer_like_floating_x)
      .bind({DType::kF32, DType::kF64}, poisson<KernelContext>, poisson<EmitContext>)
      // The counts move in jumps as the rates change: zero gradient (as Paddle's).
      .grad([](GradContext&) {});

  r.add("standard_gamma")
      .doc("Out = Gamma(X, 1) draws, in X's dtype (not differentiable).")
      .input("X", "shapes (concentrations): positive and finite")
      .output("Out", "same shape and dtype as X")
      .attr("seed", int64_t{0}, kSeedDoc)
      .infer_shape(infer_like_floating_x)
      .bind({DType::kF32, DType::kF64}, standard_gamma<KernelContext>, standard_gamma<EmitContext>);
}

const OpRegistrar kSamplingOps(register_sampling_ops);

}  // namespace skiff
