// Dense linear algebra on batches of matrices (the last two dims): inverse, determinant,
// slogdet, solve, triangular_solve, cholesky, eigh, qr, svd, and their grad ops.
#include "skiff/kernels/cpu/linalg.h"

#include <algorithm>
#include <string>

#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

constexpr std::initializer_list<DType> kFloats = {DType::kF32, DType::kF64};

// X's shape after checking it is a float32/float64 batch of square matrices.
Shape square_input(ShapeContext& ctx, const char* op, const char* slot = "X") {
  const Shape x = ctx.in_shape(slot);
  const DType dt = ctx.in_dtype(slot);
  SKIFF_CHECK(dt == DType::kF32 || dt == DType::kF64, op, ": ", slot,
              " must be float32 or float64, got ", dtype_name(dt));
  SKIFF_CHECK(x.rank() >= 2, op, ": ", slot, " must be [..., n, n], got ", x);
  SKIFF_CHECK(x.dim(-1) < 0 || x.dim(-2) < 0 || x.dim(-1) == x.dim(-2), op, ": ", slot,
              " must be a batch of square matrices [..., n, n], got ", x);
  return x;
}

Shape drop_last(const Shape& s, int count) {
  Shape out;
  for (int i = 0; i + count < s.rank(); ++i) out.push_back(s[i]);
  return out;
}

void infer_square_like_x(ShapeContext& ctx) {
  ctx.set_output("Out", square_input(ctx, ctx.op().type.c_str()), ctx.in_dtype("X"));
}

void infer_batch_scalar(ShapeContext& ctx) {
  const Shape x = square_input(ctx, ctx.op().type.c_str());
  ctx.set_output("Out", drop_last(x, 2), ctx.in_dtype("X"));
}

void infer_slogdet(ShapeContext& ctx) {
  const Shape x = square_input(ctx, "slogdet");
  ctx.set_output("Sign", drop_last(x, 2), ctx.in_dtype("X"));
  ctx.set_output("LogAbsDet", drop_last(x, 2), ctx.in_dtype("X"));
}

void infer_solve(ShapeContext& ctx) {
  const char* op = ctx.op().type.c_str();
  const Shape x = square_input(ctx, op);
  const Shape y = ctx.in_shape("Y");
  SKIFF_CHECK(ctx.in_dtype("Y") == ctx.in_dtype("X"), op, ": X and Y must share a dtype, got ",
              dtype_name(ctx.in_dtype("X")), " and ", dtype_name(ctx.in_dtype("Y")));
  SKIFF_CHECK(y.rank() == x.rank(), op, ": Y must be [..., n, k] with X's batch dims, got X ", x,
              " and Y ", y);
  ctx.set_output("Out", y, ctx.in_dtype("Y"));
}

void infer_eigh(ShapeContext& ctx) {
  const Shape x = square_input(ctx, "eigh");
  const std::string uplo = ctx.attr<std::string>("UPLO");
  SKIFF_CHECK(uplo == "L" || uplo == "U", "eigh: UPLO must be 'L' or 'U', got '", uplo, "'");
  ctx.set_output("Eigenvalues", drop_last(x, 1), ctx.in_dtype("X"));
  ctx.set_output("Eigenvectors", x, ctx.in_dtype("X"));
}

void infer_qr(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const DType dt = ctx.in_dtype("X");
  SKIFF_CHECK(dt == DType::kF32 || dt == DType::kF64, "qr: X must be float32 or float64, got ",
              dtype_name(dt));
  SKIFF_CHECK(x.rank() >= 2, "qr: X must be [..., m, n], got ", x);
  const std::string mode = ctx.attr<std::string>("mode");
  SKIFF_CHECK(mode == "reduced" || mode == "complete" || mode == "r",
              "qr: mode must be 'reduced', 'complete' or 'r', got '", mode, "'");
  const int64_t m = x.dim(-2), n = x.dim(-1);
  const int64_t k = m < 0 || n < 0 ? -1 : std::min(m, n);
  const int64_t cols = mode == "complete" ? m : k;
  Shape q = drop_last(x, 2), r = drop_last(x, 2);
  q.push_back(m);
  q.push_back(cols);
  r.push_back(cols);
  r.push_back(n);
  ctx.set_output("Q", q, dt);
  ctx.set_output("R", r, dt);
}

void infer_qr_grad(ShapeContext& ctx) {
  Shape x = drop_last(ctx.in_shape("Q"), 1);
  x.push_back(ctx.in_shape("R").dim(-1));
  ctx.set_output("X@GRAD", x, ctx.in_dtype("Q"));
}

void infer_svd(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const DType dt = ctx.in_dtype("X");
  SKIFF_CHECK(dt == DType::kF32 || dt == DType::kF64, "svd: X must be float32 or float64, got ",
              dtype_name(dt));
  SKIFF_CHECK(x.rank() >= 2, "svd: X must be [..., m, n], got ", x);
  const bool full = ctx.attr<bool>("full_matrices");
  const int64_t m = x.dim(-2), n = x.dim(-1);
  const int64_t k = m < 0 || n < 0 ? -1 : std::min(m, n);
  Shape u = drop_last(x, 2), s = drop_last(x, 2), vh = drop_last(x, 2);
  u.push_back(m);
  u.push_back(full ? m : k);
  s.push_back(k);
  vh.push_back(full ? n : k);
  vh.push_back(n);
  ctx.set_output("U", u, dt);
  ctx.set_output("S", s, dt);
  ctx.set_output("VH", vh, dt);
}

void infer_svd_grad(ShapeContext& ctx) {
  Shape x = drop_last(ctx.in_shape("U"), 1);
  x.push_back(ctx.in_shape("VH").dim(-1));
  ctx.set_output("X@GRAD", x, ctx.in_dtype("U"));
}

void infer_x_grad(ShapeContext& ctx) {
  const char* slot = ctx.has_input("X") ? "X" : "Out";
  ctx.set_output("X@GRAD", ctx.in_shape(slot), ctx.in_dtype(slot));
}

void infer_solve_grads(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("X"), ctx.in_dtype("X"));
  ctx.set_output("Y@GRAD", ctx.in_shape("Out"), ctx.in_dtype("Out"));
}

void infer_eigh_grad(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("Eigenvectors"), ctx.in_dtype("Eigenvectors"));
}

kernels::TriangularMode triangular_mode(const KernelContext& ctx) {
  return {ctx.attr<bool>("upper"), ctx.attr<bool>("transpose"), ctx.attr<bool>("unitriangular")};
}

// ---- kernels ----

void inverse_kernel(KernelContext& ctx) { kernels::inverse(ctx.in("X"), ctx.out("Out")); }
void inverse_grad_kernel(KernelContext& ctx) {
  if (Tensor* dx = ctx.out("X@GRAD")) kernels::inverse_grad(ctx.in("Out"), ctx.in("Out@GRAD"), dx);
}
void determinant_kernel(KernelContext& ctx) { kernels::determinant(ctx.in("X"), ctx.out("Out")); }
void determinant_grad_kernel(KernelContext& ctx) {
  if (Tensor* dx = ctx.out("X@GRAD")) {
    kernels::determinant_grad(ctx.in("X"), ctx.in("Out"), ctx.in("Out@GRAD"), dx);
  }
}
void slogdet_kernel(KernelContext& ctx) {
  kernels::slogdet(ctx.in("X"), ctx.out("Sign"), ctx.out("LogAbsDet"));
}
void slogdet_grad_kernel(KernelContext& ctx) {
  if (Tensor* dx = ctx.out("X@GRAD")) {
    kernels::slogdet_grad(ctx.in("X"), ctx.in("LogAbsDet@GRAD"), dx);
  }
}
void solve_kernel(KernelContext& ctx) { kernels::solve(ctx.in("X"), ctx.in("Y"), ctx.out("Out")); }
void solve_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  Tensor* dy = ctx.out("Y@GRAD");
  if (dx || dy) kernels::solve_grad(ctx.in("X"), ctx.in("Out"), ctx.in("Out@GRAD"), dx, dy);
}
void triangular_solve_kernel(KernelContext& ctx) {
  kernels::triangular_solve(ctx.in("X"), ctx.in("Y"), triangular_mode(ctx), ctx.out("Out"));
}
void triangular_solve_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  Tensor* dy = ctx.out("Y@GRAD");
  if (!dx && !dy) return;
  kernels::triangular_solve_grad(ctx.in("X"), ctx.in("Out"), ctx.in("Out@GRAD"),
                                 triangular_mode(ctx), dx, dy);
}
void cholesky_kernel(KernelContext& ctx) {
  kernels::cholesky(ctx.in("X"), ctx.attr<bool>("upper"), ctx.out("Out"));
}
void cholesky_grad_kernel(KernelContext& ctx) {
  if (Tensor* dx = ctx.out("X@GRAD")) {
    kernels::cholesky_grad(ctx.in("Out"), ctx.in("Out@GRAD"), ctx.attr<bool>("upper"), dx);
  }
}
void eigh_kernel(KernelContext& ctx) {
  kernels::eigh(ctx.in("X"), ctx.attr_ref<std::string>("UPLO") == "L", ctx.out("Eigenvalues"),
                ctx.out("Eigenvectors"));
}
void eigh_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  if (!dx) return;
  const Tensor* dw = ctx.has_in("Eigenvalues@GRAD") ? &ctx.in("Eigenvalues@GRAD") : nullptr;
  const Tensor* dv = ctx.has_in("Eigenvectors@GRAD") ? &ctx.in("Eigenvectors@GRAD") : nullptr;
  kernels::eigh_grad(ctx.in("Eigenvalues"), ctx.in("Eigenvectors"), dw, dv, dx);
}

void qr_kernel(KernelContext& ctx) {
  kernels::qr(ctx.in("X"), ctx.attr_ref<std::string>("mode") == "complete", ctx.out("Q"),
              ctx.out("R"));
}
void qr_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  if (!dx) return;
  const Tensor* dq = ctx.has_in("Q@GRAD") ? &ctx.in("Q@GRAD") : nullptr;
  const Tensor* dr = ctx.has_in("R@GRAD") ? &ctx.in("R@GRAD") : nullptr;
  kernels::qr_grad(ctx.in("Q"), ctx.in("R"), dq, dr, dx);
}

void svd_kernel(KernelContext& ctx) {
  kernels::svd(ctx.in("X"), ctx.attr<bool>("full_matrices"), ctx.out("U"), ctx.out("S"),
               ctx.out("VH"));
}
void svd_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  if (!dx) return;
  const auto grad_of = [&](const char* slot) { return ctx.has_in(slot) ? &ctx.in(slot) : nullptr; };
  kernels::svd_grad(ctx.in("U"), ctx.in("S"), ctx.in("VH"), grad_of("U@GRAD"), grad_of("S@GRAD"),
                    grad_of("VH@GRAD"), dx);
}

// ---- grad makers ----

// The grad op "<type>_grad" with the forward inputs and outputs named in `fwd_in` and
// `fwd_out`, the gradients of `grads_of` and the forward attrs named in `attrs`, writing
// the gradients of X (and Y).
void add_grad_op(GradContext& g, const std::vector<const char*>& fwd_in,
                 const std::vector<const char*>& fwd_out, const std::vector<const char*>& grads_of,
                 bool has_y, const std::vector<const char*>& attrs = {}) {
  if (!g.wants("X") && !(has_y && g.wants("Y"))) return;
  const OpDesc& fwd = g.fwd();
  OpDesc& op = g.add(fwd.type + "_grad");
  for (const char* s : fwd_in) op.set_input(s, {fwd.first_input(s)});
  for (const char* s : fwd_out) op.set_input(s, {fwd.first_output(s)});
  for (const char* s : grads_of) op.set_input(std::string(s) + "@GRAD", {g.out_grad(s)});
  op.set_output("X@GRAD", {g.in_grad("X")});
  if (has_y) op.set_output("Y@GRAD", {g.in_grad("Y")});
  for (const char* a : attrs) {
    if (const Attr* v = fwd.attrs.find(a)) op.set_attr(a, *v);
  }
}

void inverse_grad_maker(GradContext& g) { add_grad_op(g, {}, {"Out"}, {"Out"}, false); }
void determinant_grad_maker(GradContext& g) { add_grad_op(g, {"X"}, {"Out"}, {"Out"}, false); }
void slogdet_grad_maker(GradContext& g) { add_grad_op(g, {"X"}, {}, {"LogAbsDet"}, false); }
void solve_grad_maker(GradContext& g) { add_grad_op(g, {"X"}, {"Out"}, {"Out"}, true); }
void triangular_solve_grad_maker(GradContext& g) {
  add_grad_op(g, {"X"}, {"Out"}, {"Out"}, true, {"upper", "transpose", "unitriangular"});
}
void cholesky_grad_maker(GradContext& g) { add_grad_op(g, {}, {"Out"}, {"Out"}, false, {"upper"}); }
void eigh_grad_maker(GradContext& g) {
  add_grad_op(g, {}, {"Eigenvalues", "Eigenvectors"}, {"Eigenvalues", "Eigenvectors"}, false,
              {"UPLO"});
}

void qr_grad_maker(GradContext& g) { add_grad_op(g, {}, {"Q", "R"}, {"Q", "R"}, false); }

void svd_grad_maker(GradContext& g) {
  add_grad_op(g, {}, {"U", "S", "VH"}, {"U", "S", "VH"}, false);
}

}  // namespace

void register_linalg_ops(OpRegistry& r) {
  r.add("inverse")
      .doc("Out = X^-1 for each matrix of X; a singular matrix is an error.")
      .input("X", "[..., n, n] float32 or float64")
      .output("Out", "X's shape and dtype")
      .infer_shape(infer_square_like_x)
      .kernel(kFloats, inverse_kernel)
      .grad(inverse_grad_maker);
  r.add("inverse_grad")
      .doc("X@GRAD = -Out^T Out@GRAD Out^T per matrix.")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad)
      .kernel(kFloats, inverse_grad_kernel);

  r.add("determinant")
      .doc("Out[...] = det(X[...]) by LU factorisation.")
      .input("X", "[..., n, n] float32 or float64")
      .output("Out", "[...] (X's batch dims)")
      .infer_shape(infer_batch_scalar)
      .kernel(kFloats, determinant_kernel)
      .grad(determinant_grad_maker);
  r.add("determinant_grad")
      .doc("X@GRAD = Out@GRAD * Out * X^-T per matrix (0 for a singular matrix).")
      .input("X", "the forward X")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad)
      .kernel(kFloats, determinant_grad_kernel);

  r.add("slogdet")
      .doc("Sign = sign(det X), LogAbsDet = log|det X| per matrix (0 and -inf when singular).")
      .input("X", "[..., n, n] float32 or float64")
      .output("Sign", "[...]")
      .output("LogAbsDet", "[...]")
      .infer_shape(infer_slogdet)
      .kernel(kFloats, slogdet_kernel)
      .grad(slogdet_grad_maker);
  r.add("slogdet_grad")
      .doc("X@GRAD = LogAbsDet@GRAD * X^-T per matrix (Sign has no gradient).")
      .input("X", "the forward X")
      .input("LogAbsDet@GRAD", "gradient of LogAbsDet")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad)
      .kernel(kFloats, slogdet_grad_kernel);

  r.add("solve")
      .doc("Out = X^-1 Y per matrix; a singular X is an error.")
      .input("X", "[..., n, n] float32 or float64")
      .input("Y", "[..., n, k], X's batch dims and dtype")
      .output("Out", "Y's shape")
      .infer_shape(infer_solve)
      .kernel(kFloats, solve_kernel)
      .grad(solve_grad_maker);
  r.add("solve_grad")
      .doc("Y@GRAD = X^-T Out@GRAD, X@GRAD = -Y@GRAD Out^T per matrix.")
      .input("X", "the forward X")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X (\"\" when not needed)")
      .output("Y@GRAD", "gradient of Y (\"\" when not needed)")
      .infer_shape(infer_solve_grads)
      .kernel(kFloats, solve_grad_kernel);

  r.add("triangular_solve")
      .doc(
          "Out = op(X)^-1 Y per matrix, op(X) = X or X^T, reading only X's upper or lower "
          "triangle (its diagonal as ones when unitriangular); a zero diagonal is an error.")
      .input("X", "[..., n, n] float32 or float64, triangular")
      .input("Y", "[..., n, k], X's batch dims and dtype")
      .output("Out", "Y's shape")
      .attr("upper", true, "read X's upper triangle, else its lower one")
      .attr("transpose", false, "solve with X^T")
      .attr("unitriangular", false, "take X's diagonal as ones")
      .infer_shape(infer_solve)
      .kernel(kFloats, triangular_solve_kernel)
      .grad(triangular_solve_grad_maker);
  r.add("triangular_solve_grad")
      .doc(
          "Y@GRAD = op(X)^-T Out@GRAD; X@GRAD = -Y@GRAD Out^T (transposed for transpose), "
          "kept on the triangle the forward read.")
      .input("X", "the forward X")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X (\"\" when not needed)")
      .output("Y@GRAD", "gradient of Y (\"\" when not needed)")
      .attr("upper", true, "as in the forward op")
      .attr("transpose", false, "as in the forward op")
      .attr("unitriangular", false, "as in the forward op")
      .infer_shape(infer_solve_grads)
      .kernel(kFloats, triangular_solve_grad_kernel);

  r.add("cholesky")
      .doc(
          "Out = L with X = L L^T (or U = L^T with upper) per matrix, reading X's lower "
          "triangle; a matrix that is not positive definite is an error.")
      .input("X", "[..., n, n] float32 or float64, symmetric positive definite")
      .output("Out", "X's shape")
      .attr("upper", false, "return the upper factor U = L^T")
      .infer_shape(infer_square_like_x)
      .kernel(kFloats, cholesky_kernel)
      .grad(cholesky_grad_maker);
  r.add("cholesky_grad")
      .doc("The symmetric X@GRAD = sym(L^-T Phi(L^T Out@GRAD) L^-1) per matrix.")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("upper", false, "as in the forward op")
      .infer_shape(infer_x_grad)
      .kernel(kFloats, cholesky_grad_kernel);

  r.add("eigh")
      .doc(
          "Eigenvalues (ascending) and eigenvectors (columns) of each symmetric matrix of X, "
          "read from its lower (UPLO 'L') or upper ('U') triangle.")
      .input("X", "[..., n, n] float32 or float64")
      .output("Eigenvalues", "[..., n]")
      .output("Eigenvectors", "[..., n, n]")
      .attr("UPLO", std::string("L"), "'L' or 'U': the triangle read")
      .infer_shape(infer_eigh)
      .kernel(kFloats, eigh_kernel)
      .kernel_dtype_from("X")
      .grad(eigh_grad_maker);
  r.add("eigh_grad")
      .doc("X@GRAD = V (diag(dw) + F o skew(V^T dV)) V^T, F_ij = 1 / (w_j - w_i).")
      .input("Eigenvalues", "the forward Eigenvalues")
      .input("Eigenvectors", "the forward Eigenvectors")
      .input("Eigenvalues@GRAD", "gradient of Eigenvalues")
      .input("Eigenvectors@GRAD", "gradient of Eigenvectors")
      .output("X@GRAD", "gradient of X")
      .attr("UPLO", std::string("L"), "as in the forward op")
      .infer_shape(infer_eigh_grad)
      .kernel(kFloats, eigh_grad_kernel)
      .kernel_dtype_from("Eigenvectors");

  r.add("qr")
      .doc(
          "The Householder QR factorisation X = Q R per matrix [m, n], k = min(m, n): Q "
          "[..., m, k], R [..., k, n] upper triangular; Q [..., m, m], R [..., m, n] for mode "
          "'complete'; mode 'r' gives the reduced factors (callers keep R).")
      .input("X", "[..., m, n] float32 or float64")
      .output("Q", "[..., m, k] (or [..., m, m]) with orthonormal columns")
      .output("R", "[..., k, n] (or [..., m, n]) upper triangular")
      .attr("mode", std::string("reduced"), "'reduced', 'complete' or 'r'")
      .infer_shape(infer_qr)
      .kernel(kFloats, qr_kernel)
      .grad(qr_grad_maker);
  r.add("qr_grad")
      .doc("X@GRAD = (dQ + Q S) R^-T, S symmetric from triu(dR R^T - Q^T dQ); needs m >= n.")
      .input("Q", "the forward Q")
      .input("R", "the forward R")
      .input("Q@GRAD", "gradient of Q")
      .input("R@GRAD", "gradient of R")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_qr_grad)
      .kernel(kFloats, qr_grad_kernel)
      .kernel_dtype_from("Q");

  r.add("svd")
      .doc(
          "The singular value decomposition X = U diag(S) VH per matrix [m, n], k = min(m, n), "
          "S descending: U [..., m, k], S [..., k], VH [..., k, n] (U [..., m, m] and VH "
          "[..., n, n] with full_matrices).")
      .input("X", "[..., m, n] float32 or float64")
      .output("U", "left singular vectors (columns)")
      .output("S", "singular values, descending")
      .output("VH", "right singular vectors (rows)")
      .attr("full_matrices", false, "return square U and VH")
      .infer_shape(infer_svd)
      .kernel(kFloats, svd_kernel)
      .grad(svd_grad_maker);
  r.add("svd_grad")
      .doc(
          "X@GRAD from the reduced factors and the gradients given (full_matrices=False; "
          "distinct nonzero singular values when U or VH has a gradient).")
      .input("U", "the forward U")
      .input("S", "the forward S")
      .input("VH", "the forward VH")
      .input("U@GRAD", "gradient of U")
      .input("S@GRAD", "gradient of S")
      .input("VH@GRAD", "gradient of VH")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_svd_grad)
      .kernel(kFloats, svd_grad_kernel)
      .kernel_dtype_from("U");
}

}  // namespace skiff
