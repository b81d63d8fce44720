// The LU factorisation (lu: the packed factors, pivots and infos as LAPACK returns them), its
// unpacking (lu_unpack: P, L, U) and the matrix exponential (matrix_exp), with their grad ops.
#include <algorithm>

#include "skiff/kernels/cpu/linalg_lu.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

constexpr std::initializer_list<DType> kFloats = {DType::kF32, DType::kF64};

// X's shape after checking it is a float32/float64 batch of [m, n] matrices.
Shape matrix_input(ShapeContext& ctx, const char* op) {
  const Shape x = ctx.in_shape("X");
  const DType dt = ctx.in_dtype("X");
  SKIFF_CHECK(dt == DType::kF32 || dt == DType::kF64, op, ": X must be float32 or float64, got ",
              dtype_name(dt));
  SKIFF_CHECK(x.rank() >= 2, op, ": X must be [..., m, n], got ", x);
  return x;
}

// s without its last `count` dims, then `dims`.
Shape reshaped(const Shape& s, int count, std::initializer_list<int64_t> dims) {
  Shape out;
  for (int i = 0; i + count < s.rank(); ++i) out.push_back(s[i]);
  for (int64_t d : dims) out.push_back(d);
  return out;
}

int64_t min_dim(int64_t m, int64_t n) { return m < 0 || n < 0 ? -1 : std::min(m, n); }

void infer_lu(ShapeContext& ctx) {
  const Shape x = matrix_input(ctx, "lu");
  const int64_t k = min_dim(x.dim(-2), x.dim(-1));
  ctx.set_output("Out", x, ctx.in_dtype("X"));
  ctx.set_output("Pivots", reshaped(x, 2, {k}), DType::kI32);
  ctx.set_output("Infos", reshaped(x, 2, {}), DType::kI32);
}

void infer_lu_unpack(ShapeContext& ctx) {
  const Shape x = matrix_input(ctx, "lu_unpack");
  SKIFF_CHECK(ctx.in_dtype("Pivots") == DType::kI32,
              "lu_unpack: Pivots must be int32 (as lu returns them), got ",
              dtype_name(ctx.in_dtype("Pivots")));
  const int64_t m = x.dim(-2), n = x.dim(-1), k = min_dim(m, n);
  ctx.set_output("Pmat", reshaped(x, 2, {m, m}), ctx.in_dtype("X"));
  ctx.set_output("L", reshaped(x, 2, {m, k}), ctx.in_dtype("X"));
  ctx.set_output("U", reshaped(x, 2, {k, n}), ctx.in_dtype("X"));
}

void infer_matrix_exp(ShapeContext& ctx) {
  const Shape x = matrix_input(ctx, "matrix_exp");
  SKIFF_CHECK(x.dim(-1) < 0 || x.dim(-2) < 0 || x.dim(-1) == x.dim(-2),
              "matrix_exp: X must be a batch of square matrices [..., n, n], got ", x);
  ctx.set_output("Out", x, ctx.in_dtype("X"));
}

void infer_x_grad_from(ShapeContext& ctx, const char* slot) {
  ctx.set_output("X@GRAD", ctx.in_shape(slot), ctx.in_dtype(slot));
}

// ---- bindings ----

template <typename C>
void lu(C& c) {
  SKIFF_KERNEL_CALL(c, "linalg_lu", kernels::lu, c.in("X"), attr<bool>(c, "pivot"), c.out("Out"),
                    c.out("Pivots"), c.out("Infos"));
}
template <typename C>
void lu_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "linalg_lu", kernels::lu_grad, c.in("Out"), c.in("Pivots"), c.in("Out@GRAD"),
                    c.out("X@GRAD"));
}
template <typename C>
void lu_unpack(C& c) {
  SKIFF_KERNEL_CALL(c, "linalg_lu", kernels::lu_unpack, c.in("X"), c.in("Pivots"), c.out("Pmat"),
                    c.out("L"), c.out("U"));
}
template <typename C>
void lu_unpack_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "linalg_lu", kernels::lu_unpack_grad, c.in("X"), c.in_or_null("L@GRAD"),
                    c.in_or_null("U@GRAD"), c.out("X@GRAD"));
}
template <typename C>
void matrix_exp(C& c) {
  SKIFF_KERNEL_CALL(c, "linalg_lu", kernels::matrix_exp, c.in("X"), c.out("Out"));
}
template <typename C>
void matrix_exp_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "linalg_lu", kernels::matrix_exp_grad, c.in("X"), c.in("Out@GRAD"),
                    c.out("X@GRAD"));
}

// ---- grad makers ----

void lu_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  g.add("lu_grad")
      .set_input("Out", {fwd.first_output("Out")})
      .set_input("Pivots", {fwd.first_output("Pivots")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")});
}

void lu_unpack_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  OpDesc& op = g.add("lu_unpack_grad");
  op.set_input("X", {g.fwd().first_input("X")});
  for (const char* s : {"L", "U"}) op.set_input(std::string(s) + "@GRAD", {g.out_grad(s)});
  op.set_output("X@GRAD", {g.in_grad("X")});
}

void matrix_exp_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("matrix_exp_grad")
      .set_input("X", {g.fwd().first_input("X")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")});
}

}  // namespace

void register_linalg_lu_ops(OpRegistry& r) {
  r.add("lu")
      .doc(
          "X = P L U per [m, n] matrix, k = min(m, n), as LAPACK's getrf: Out packs L's "
          "strictly lower part (its diagonal is ones) and U's upper part; Pivots [..., k] the "
          "1-based row swapped with row i at step i; Infos [...] 0 or the 1-based index of the "
          "first zero pivot.")
      .input("X", "[..., m, n] float32 or float64")
      .output("Out", "X's shape: the packed factors")
      .output("Pivots", "[..., k] int32")
      .output("Infos", "[...] int32")
      .attr("pivot", true, "pivot by the largest magnitude in each column (else no row swaps)")
      .infer_shape(infer_lu)
      .bind(kFloats, lu<KernelContext>, lu<EmitContext>)
      .kernel_dtype_from("X")
      .grad(lu_grad_maker);
  r.add("lu_grad")
      .doc("X@GRAD from the packed factors and the gradient of Out (L's and U's parts of it).")
      .input("Out", "the forward Out")
      .input("Pivots", "the forward Pivots")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape([](ShapeContext& ctx) { infer_x_grad_from(ctx, "Out"); })
      .bind(kFloats, lu_grad<KernelContext>, lu_grad<EmitContext>)
      .kernel_dtype_from("Out");

  r.add("lu_unpack")
      .doc(
          "Pmat [..., m, m] (the permutation P, X's dtype), L [..., m, k] (unit lower) and U "
          "[..., k, n] (upper) from lu's packed factors X and Pivots: X = P L U.")
      .input("X", "[..., m, n] float32 or float64: lu's Out")
      .input("Pivots", "[..., k] int32: lu's Pivots, each in [1, m]")
      .output("Pmat", "[..., m, m]")
      .output("L", "[..., m, k]")
      .output("U", "[..., k, n]")
      .infer_shape(infer_lu_unpack)
      .bind(kFloats, lu_unpack<KernelContext>, lu_unpack<EmitContext>)
      .kernel_dtype_from("X")
      .grad(lu_unpack_grad_maker);
  r.add("lu_unpack_grad")
      .doc("X@GRAD = the strictly lower part of L@GRAD plus the upper part of U@GRAD.")
      .input("X", "the forward X")
      .input("L@GRAD", "gradient of L")
      .input("U@GRAD", "gradient of U")
      .output("X@GRAD", "gradient of X")
      .infer_shape([](ShapeContext& ctx) { infer_x_grad_from(ctx, "X"); })
      .bind(kFloats, lu_unpack_grad<KernelContext>, lu_unpack_grad<EmitContext>)
      .kernel_dtype_from("X");

  r.add("matrix_exp")
      .doc("Out = exp(X) per square matrix (scaling and squaring of a Pade approximant).")
      .input("X", "[..., n, n] float32 or float64")
      .output("Out", "X's shape and dtype")
      .infer_shape(infer_matrix_exp)
      .bind(kFloats, matrix_exp<KernelContext>, matrix_exp<EmitContext>)
      .grad(matrix_exp_grad_maker);
  r.add("matrix_exp_grad")
      .doc("X@GRAD = the upper right block of exp([[X^T, Out@GRAD], [0, X^T]]) per matrix.")
      .input("X", "the forward X")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape([](ShapeContext& ctx) { infer_x_grad_from(ctx, "X"); })
      .bind(kFloats, matrix_exp_grad<KernelContext>, matrix_exp_grad<EmitContext>)
      .kernel_dtype_from("X");
}

const OpRegistrar kLinalgLuOps(register_linalg_lu_ops);

}  // namespace skiff
