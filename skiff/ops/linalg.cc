// Dense linear algebra on batches of matrices (the last two dims): inverse, determinant,
// slogdet, solve, triangular_solve, cholesky, eigh, qr, svd, and their grad ops.
#include "skiff/kernels/cpu/linalg.h"

#include <algorithm>
#include <string>

#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
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
  const DType dt = ctx.in_dtype("X");
  const Shape x = is_complex(dt) ? ctx.in_shape("X") : square_input(ctx, "eigh");
  SKIFF_CHECK(x.rank() >= 2 && (x.dim(-1) < 0 || x.dim(-2) < 0 || x.dim(-1) == x.dim(-2)),
              "eigh: X must be a batch of square matrices [..., n, n], got ", x);
  const std::string uplo = ctx.attr<std::string>("UPLO");
  SKIFF_CHECK(uplo == "L" || uplo == "U", "eigh: UPLO must be 'L' or 'U', got '", uplo, "'");
  ctx.set_output("Eigenvalues", drop_last(x, 1), real_of(dt));
  ctx.set_output("Eigenvectors", x, ctx.in_dtype("X"));
}

void infer_eig(ShapeContext& ctx) {
  const DType dt = ctx.in_dtype("X");
  SKIFF_CHECK(is_floating(dt) || is_complex(dt),
              "eig: X must be float32, float64, complex64 or "
              "complex128, got ",
              dtype_name(dt));
  const Shape x = ctx.in_shape("X");
  SKIFF_CHECK(x.rank() >= 2 && (x.dim(-1) < 0 || x.dim(-2) < 0 || x.dim(-1) == x.dim(-2)),
              "eig: X must be a batch of square matrices [..., n, n], got ", x);
  const DType out = is_complex(dt) ? dt : complex_of(dt);
  ctx.set_output("Eigenvalues", drop_last(x, 1), out);
  ctx.set_output("Eigenvectors", x, out);
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

// The op's TriangularMode: the value, or its expression for the compiler.
template <typename C>
auto triangular_mode(const C& c) {
  return SKIFF_KERNEL_STRUCT(c, kernels::TriangularMode, attr<bool>(c, "upper"),
                             attr<bool>(c, "transpose"), attr<bool>(c, "unitriangular"));
}

// A flag the binding computes from the op's attrs: itself, or its literal.
template <typename C>
auto flag(const C& c, bool value) {
  return constant(c, value, [](bool v) { return cpp_literal(v); });
}

// ---- bindings ----

template <typename C>
void inverse(C& c) {
  SKIFF_KERNEL_CALL(c, "linalg", kernels::inverse, c.in("X"), c.out("Out"));
}
template <typename C>
void inverse_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "linalg", kernels::inverse_grad, c.in("Out"), c.in("Out@GRAD"),
                    c.out("X@GRAD"));
}
template <typename C>
void determinant(C& c) {
  SKIFF_KERNEL_CALL(c, "linalg", kernels::determinant, c.in("X"), c.out("Out"));
}
template <typename C>
void determinant_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "linalg", kernels::determinant_grad, c.in("X"), c.in("Out"),
                    c.in("Out@GRAD"), c.out("X@GRAD"));
}
template <typename C>
void slogdet(C& c) {
  SKIFF_KERNEL_CALL(c, "linalg", kernels::slogdet, c.in("X"), c.out("Sign"), c.out("LogAbsDet"));
}
template <typename C>
void slogdet_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "linalg", kernels::slogdet_grad, c.in("X"), c.in("LogAbsDet@GRAD"),
                    c.out("X@GRAD"));
}
template <typename C>
void solve(C& c) {
  SKIFF_KERNEL_CALL(c, "linalg", kernels::solve, c.in("X"), c.in("Y"), c.out("Out"));
}
template <typename C>
void solve_grad(C& c) {
  if (!c.has_out("X@GRAD") && !c.has_out("Y@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "linalg", kernels::solve_grad, c.in("X"), c.in("Out"), c.in("Out@GRAD"),
                    c.out("X@GRAD"), c.out("Y@GRAD"));
}
template <typename C>
void triangular_solve(C& c) {
  SKIFF_KERNEL_CALL(c, "linalg", kernels::triangular_solve, c.in("X"), c.in("Y"),
                    triangular_mode(c), c.out("Out"));
}
template <typename C>
void triangular_solve_grad(C& c) {
  if (!c.has_out("X@GRAD") && !c.has_out("Y@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "linalg", kernels::triangular_solve_grad, c.in("X"), c.in("Out"),
                    c.in("Out@GRAD"), triangular_mode(c), c.out("X@GRAD"), c.out("Y@GRAD"));
}
template <typename C>
void cholesky(C& c) {
  SKIFF_KERNEL_CALL(c, "linalg", kernels::cholesky, c.in("X"), attr<bool>(c, "upper"),
                    c.out("Out"));
}
template <typename C>
void cholesky_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "linalg", kernels::cholesky_grad, c.in("Out"), c.in("Out@GRAD"),
                    attr<bool>(c, "upper"), c.out("X@GRAD"));
}
template <typename C>
void eigh(C& c) {
  const bool lower = c.op().template attr_ref<std::string>("UPLO") == "L";
  SKIFF_KERNEL_CALL(c, "linalg", kernels::eigh, c.in("X"), flag(c, lower), c.out("Eigenvalues"),
                    c.out("Eigenvectors"));
}
template <typename C>
void eig(C& c) {
  SKIFF_KERNEL_CALL(c, "linalg", kernels::eig, c.in("X"), c.out("Eigenvalues"),
                    c.out("Eigenvectors"));
}
template <typename C>
void eigh_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "linalg", kernels::eigh_grad, c.in("Eigenvalues"), c.in("Eigenvectors"),
                    c.in_or_null("Eigenvalues@GRAD"), c.in_or_null("Eigenvectors@GRAD"),
                    c.out("X@GRAD"));
}

template <typename C>
void qr(C& c) {
  const bool complete = c.op().template attr_ref<std::string>("mode") == "complete";
  SKIFF_KERNEL_CALL(c, "linalg", kernels::qr, c.in("X"), flag(c, complete), c.out("Q"), c.out("R"));
}
template <typename C>
void qr_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "linalg", kernels::qr_grad, c.in("Q"), c.in("R"), c.in_or_null("Q@GRAD"),
                    c.in_or_null("R@GRAD"), c.out("X@GRAD"));
}

template <typename C>
void svd(C& c) {
  SKIFF_KERNEL_CALL(c, "linalg", kernels::svd, c.in("X"), attr<bool>(c, "full_matrices"),
                    c.out("U"), c.out("S"), c.out("VH"));
}
template <typename C>
void svd_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "linalg", kernels::svd_grad, c.in("U"), c.in("S"), c.in("VH"),
                    c.in_or_null("U@GRAD"), c.in_or_null("S@GRAD"), c.in_or_null("VH@GRAD"),
                    c.out("X@GRAD"));
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
      .bind(kFloats, inverse<KernelContext>, inverse<EmitContext>)
      .grad(inverse_grad_maker);
  r.add("inverse_grad")
      .doc("X@GRAD = -Out^T Out@GRAD Out^T per matrix.")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad)
      .bind(kFloats, inverse_grad<KernelContext>, inverse_grad<EmitContext>);

  r.add("determinant")
      .doc("Out[...] = det(X[...]) by LU factorisation.")
      .input("X", "[..., n, n] float32 or float64")
      .output("Out", "[...] (X's batch dims)")
      .infer_shape(infer_batch_scalar)
      .bind(kFloats, determinant<KernelContext>, determinant<EmitContext>)
      .grad(determinant_grad_maker);
  r.add("determinant_grad")
      .doc("X@GRAD = Out@GRAD * Out * X^-T per matrix (0 for a singular matrix).")
      .input("X", "the forward X")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad)
      .bind(kFloats, determinant_grad<KernelContext>, determinant_grad<EmitContext>);

  r.add("slogdet")
      .doc("Sign = sign(det X), LogAbsDet = log|det X| per matrix (0 and -inf when singular).")
      .input("X", "[..., n, n] float32 or float64")
      .output("Sign", "[...]")
      .output("LogAbsDet", "[...]")
      .infer_shape(infer_slogdet)
      .bind(kFloats, slogdet<KernelContext>, slogdet<EmitContext>)
      .grad(slogdet_grad_maker);
  r.add("slogdet_grad")
      .doc("X@GRAD = LogAbsDet@GRAD * X^-T per matrix (Sign has no gradient).")
      .input("X", "the forward X")
      .input("LogAbsDet@GRAD", "gradient of LogAbsDet")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad)
      .bind(kFloats, slogdet_grad<KernelContext>, slogdet_grad<EmitContext>);

  r.add("solve")
      .doc("Out = X^-1 Y per matrix; a singular X is an error.")
      .input("X", "[..., n, n] float32 or float64")
      .input("Y", "[..., n, k], X's batch dims and dtype")
      .output("Out", "Y's shape")
      .infer_shape(infer_solve)
      .bind(kFloats, solve<KernelContext>, solve<EmitContext>)
      .grad(solve_grad_maker);
  r.add("solve_grad")
      .doc("Y@GRAD = X^-T Out@GRAD, X@GRAD = -Y@GRAD Out^T per matrix.")
      .input("X", "the forward X")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X (\"\" when not needed)")
      .output("Y@GRAD", "gradient of Y (\"\" when not needed)")
      .infer_shape(infer_solve_grads)
      .bind(kFloats, solve_grad<KernelContext>, solve_grad<EmitContext>);

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
      .bind(kFloats, triangular_solve<KernelContext>, triangular_solve<EmitContext>)
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
      .bind(kFloats, triangular_solve_grad<KernelContext>, triangular_solve_grad<EmitContext>);

  r.add("cholesky")
      .doc(
          "Out = L with X = L L^T (or U = L^T with upper) per matrix, reading X's lower "
          "triangle; a matrix that is not positive definite is an error.")
      .input("X", "[..., n, n] float32 or float64, symmetric positive definite")
      .output("Out", "X's shape")
      .attr("upper", false, "return the upper factor U = L^T")
      .infer_shape(infer_square_like_x)
      .bind(kFloats, cholesky<KernelContext>, cholesky<EmitContext>)
      .grad(cholesky_grad_maker);
  r.add("cholesky_grad")
      .doc("The symmetric X@GRAD = sym(L^-T Phi(L^T Out@GRAD) L^-1) per matrix.")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("upper", false, "as in the forward op")
      .infer_shape(infer_x_grad)
      .bind(kFloats, cholesky_grad<KernelContext>, cholesky_grad<EmitContext>);

  r.add("eigh")
      .doc(
          "Eigenvalues (ascending) and eigenvectors (columns) of each symmetric (complex: "
          "Hermitian) matrix of X, read from its lower (UPLO 'L') or upper ('U') triangle.")
      .input("X", "[..., n, n] float32, float64, complex64 or complex128")
      .output("Eigenvalues", "[..., n], the real dtype of X's parts")
      .output("Eigenvectors", "[..., n, n], X's dtype")
      .attr("UPLO", std::string("L"), "'L' or 'U': the triangle read")
      .infer_shape(infer_eigh)
      .bind({DType::kF32, DType::kF64, DType::kC64, DType::kC128}, eigh<KernelContext>,
            eigh<EmitContext>)
      .kernel_dtype_from("X")
      .grad(eigh_grad_maker);
  r.add("eig")
      .doc(
          "Eigenvalues and eigenvectors (columns, unit norm, largest component real) of each "
          "general square matrix of X, in the order the Hessenberg QR iteration finds them "
          "(PaddlePaddle's eig; no gradient).")
      .input("X", "[..., n, n] float32, float64, complex64 or complex128")
      .output("Eigenvalues", "[..., n], complex64 (from 32-bit parts) or complex128")
      .output("Eigenvectors", "[..., n, n], the eigenvalues' dtype")
      .infer_shape(infer_eig)
      .bind({DType::kF32, DType::kF64, DType::kC64, DType::kC128}, eig<KernelContext>,
            eig<EmitContext>)
      .kernel_dtype_from("X");
  r.add("eigh_grad")
      .doc("X@GRAD = V (diag(dw) + F o skew(V^T dV)) V^T, F_ij = 1 / (w_j - w_i).")
      .input("Eigenvalues", "the forward Eigenvalues")
      .input("Eigenvectors", "the forward Eigenvectors")
      .input("Eigenvalues@GRAD", "gradient of Eigenvalues")
      .input("Eigenvectors@GRAD", "gradient of Eigenvectors")
      .output("X@GRAD", "gradient of X")
      .attr("UPLO", std::string("L"), "as in the forward op")
      .infer_shape(infer_eigh_grad)
      .bind(kFloats, eigh_grad<KernelContext>, eigh_grad<EmitContext>)
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
      .bind(kFloats, qr<KernelContext>, qr<EmitContext>)
      .grad(qr_grad_maker);
  r.add("qr_grad")
      .doc("X@GRAD = (dQ + Q S) R^-T, S symmetric from triu(dR R^T - Q^T dQ); needs m >= n.")
      .input("Q", "the forward Q")
      .input("R", "the forward R")
      .input("Q@GRAD", "gradient of Q")
      .input("R@GRAD", "gradient of R")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_qr_grad)
      .bind(kFloats, qr_grad<KernelContext>, qr_grad<EmitContext>)
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
      .bind(kFloats, svd<KernelContext>, svd<EmitContext>)
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
      .bind(kFloats, svd_grad<KernelContext>, svd_grad<EmitContext>)
      .kernel_dtype_from("U");
}

const OpRegistrar kLinalgOps(register_linalg_ops);

}  // namespace skiff
