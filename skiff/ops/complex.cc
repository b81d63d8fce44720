// Complex numbers: complex (from real and imaginary parts), real, imag, conj, as_complex,
// as_real, angle and abs of complex values. Gradients follow Paddle: the gradient of a
// real loss by z = a + ib is dL/da + i dL/db, so each grad op multiplies Out@GRAD by the
// conjugate of the derivative.
#include <string>
#include <vector>

#include "skiff/kernels/cpu/complex.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

constexpr std::initializer_list<DType> kReal = {DType::kF32, DType::kF64};
constexpr std::initializer_list<DType> kRealAndComplex = {DType::kF32, DType::kF64, DType::kC64,
                                                          DType::kC128};

void check_real_dtype(const ShapeContext& ctx, const char* slot) {
  const DType t = ctx.in_dtype(slot);
  SKIFF_CHECK(t == DType::kF32 || t == DType::kF64, ctx.op().type, ": ", slot,
              " must be float32 or float64, got ", dtype_name(t));
}

void check_complex_dtype(const ShapeContext& ctx, const char* slot) {
  SKIFF_CHECK(is_complex(ctx.in_dtype(slot)), ctx.op().type, ": ", slot,
              " must be complex64 or complex128, got ", dtype_name(ctx.in_dtype(slot)));
}

void infer_complex(ShapeContext& ctx) {
  check_real_dtype(ctx, "X");
  check_real_dtype(ctx, "Y");
  SKIFF_CHECK(ctx.in_dtype("X") == ctx.in_dtype("Y"), "complex: X is ",
              dtype_name(ctx.in_dtype("X")), " but Y is ", dtype_name(ctx.in_dtype("Y")));
  SKIFF_CHECK(shapes_compatible(ctx.in_shape("X"), ctx.in_shape("Y")), "complex: X ",
              ctx.in_shape("X"), " and Y ", ctx.in_shape("Y"), " need one shape");
  ctx.set_output("Out", ctx.in_shape("X"), complex_of(ctx.in_dtype("X")));
}

// Out: X's shape, the dtype of X's parts (real, imag, angle, abs).
void infer_part(ShapeContext& ctx) {
  if (ctx.op().type != "angle") check_complex_dtype(ctx, "X");
  ctx.set_output("Out", ctx.in_shape("X"), real_of(ctx.in_dtype("X")));
}

// X@GRAD (complex) from a real Out@GRAD.
void infer_part_grad(ShapeContext& ctx) {
  check_real_dtype(ctx, "Out@GRAD");
  ctx.set_output("X@GRAD", ctx.in_shape("Out@GRAD"), complex_of(ctx.in_dtype("Out@GRAD")));
}

void infer_as_complex(ShapeContext& ctx) {
  check_real_dtype(ctx, "X");
  Shape s = ctx.in_shape("X");
  SKIFF_CHECK(s.rank() >= 1 && (s[s.rank() - 1] == 2 || s[s.rank() - 1] < 0),
              "as_complex: X's last dim must be 2 (real, imaginary), got shape ", s);
  ctx.set_output("Out", Shape(std::vector<int64_t>(s.begin(), s.end() - 1)),
                 complex_of(ctx.in_dtype("X")));
}

void infer_as_real(ShapeContext& ctx) {
  check_complex_dtype(ctx, "X");
  Shape s = ctx.in_shape("X");
  s.push_back(2);
  ctx.set_output("Out", s, real_of(ctx.in_dtype("X")));
}

// ---- bindings ----

template <typename C>
void complex_op(C& c) {
  SKIFF_KERNEL_CALL(c, "complex", kernels::complex_from_parts, c.in("X"), c.in("Y"), c.out("Out"));
}
template <typename C>
void real_op(C& c) {
  SKIFF_KERNEL_CALL(c, "complex", kernels::complex_real, c.in("X"), c.out("Out"));
}
template <typename C>
void imag_op(C& c) {
  SKIFF_KERNEL_CALL(c, "complex", kernels::complex_imag, c.in("X"), c.out("Out"));
}
template <typename C>
void real_grad_op(C& c) {
  SKIFF_KERNEL_CALL(c, "complex", kernels::real_grad, c.in("Out@GRAD"), c.out("X@GRAD"));
}
template <typename C>
void imag_grad_op(C& c) {
  SKIFF_KERNEL_CALL(c, "complex", kernels::imag_grad, c.in("Out@GRAD"), c.out("X@GRAD"));
}
template <typename C>
void conj_op(C& c) {
  SKIFF_KERNEL_CALL(c, "complex", kernels::conj, c.in("X"), c.out("Out"));
}
template <typename C>
void as_complex_op(C& c) {
  SKIFF_KERNEL_CALL(c, "complex", kernels::as_complex, c.in("X"), c.out("Out"));
}
template <typename C>
void as_real_op(C& c) {
  SKIFF_KERNEL_CALL(c, "complex", kernels::as_real, c.in("X"), c.out("Out"));
}
template <typename C>
void angle_op(C& c) {
  SKIFF_KERNEL_CALL(c, "complex", kernels::angle, c.in("X"), c.out("Out"));
}
template <typename C>
void angle_grad_op(C& c) {
  SKIFF_KERNEL_CALL(c, "complex", kernels::angle_grad, c.in("X"), c.in("Out@GRAD"),
                    c.out("X@GRAD"));
}
template <typename C>
void abs_op(C& c) {
  SKIFF_KERNEL_CALL(c, "complex", kernels::complex_abs, c.in("X"), c.out("Out"));
}
template <typename C>
void abs_grad_op(C& c) {
  SKIFF_KERNEL_CALL(c, "complex", kernels::complex_abs_grad, c.in("X"), c.in("Out@GRAD"),
                    c.out("X@GRAD"));
}

// ---- grad makers ----

// X@GRAD = <op>(Out@GRAD): an op of one input whose gradient is a forward op of the
// incoming gradient (complex -> real, real -> as_real's inverse, ...).
template <const char* kGradOp>
void unary_grad_maker(GradContext& g) {
  const std::string dx = g.in_grad("X");
  if (dx.empty()) return;
  g.add(kGradOp).set_input("X", {g.out_grad("Out")}).set_output("Out", {dx});
}

// real: X@GRAD = (dOut, 0); imag: (0, dOut).
template <const char* kGradOp>
void part_grad_maker(GradContext& g) {
  const std::string dx = g.in_grad("X");
  if (dx.empty()) return;
  g.add(kGradOp).set_input("Out@GRAD", {g.out_grad("Out")}).set_output("X@GRAD", {dx});
}

// X@GRAD = f(X, Out@GRAD) (angle, abs).
template <const char* kGradOp>
void x_grad_maker(GradContext& g) {
  const std::string dx = g.in_grad("X");
  if (dx.empty()) return;
  g.add(kGradOp)
      .set_input("X", {g.fwd().first_input("X")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {dx});
}

// complex: X@GRAD = Re(dOut), Y@GRAD = Im(dOut).
void complex_grad_maker(GradContext& g) {
  const std::string dx = g.in_grad("X"), dy = g.in_grad("Y");
  if (!dx.empty()) g.add("real").set_input("X", {g.out_grad("Out")}).set_output("Out", {dx});
  if (!dy.empty()) g.add("imag").set_input("X", {g.out_grad("Out")}).set_output("Out", {dy});
}

constexpr char kConj[] = "conj";
constexpr char kAsReal[] = "as_real";
constexpr char kAsComplex[] = "as_complex";
constexpr char kRealGrad[] = "real_grad";
constexpr char kImagGrad[] = "imag_grad";
constexpr char kAngleGrad[] = "angle_grad";
constexpr char kAbsGrad[] = "complex_abs_grad";

}  // namespace

void register_complex_ops(OpRegistry& r) {
  r.add("complex")
      .doc("Out = X + i Y elementwise (float32 parts give complex64, float64 complex128).")
      .input("X", "the real parts; float32 or float64")
      .input("Y", "the imaginary parts; X's shape and dtype")
      .output("Out", "X's shape; complex64 or complex128")
      .infer_shape(infer_complex)
      .bind(kComplexDTypes, complex_op<KernelContext>, complex_op<EmitContext>)
      .grad(complex_grad_maker);

  r.add("real")
      .doc("Out = the real part of X.")
      .input("X", "complex64 or complex128")
      .output("Out", "X's shape; float32 for complex64, float64 for complex128")
      .infer_shape(infer_part)
      .bind(kComplexDTypes, real_op<KernelContext>, real_op<EmitContext>)
      .kernel_dtype_from("X")
      .grad(part_grad_maker<kRealGrad>);
  r.add("real_grad")
      .doc("X@GRAD = Out@GRAD + 0i.")
      .input("Out@GRAD", "float32 or float64")
      .output("X@GRAD", "Out@GRAD's shape, complex")
      .infer_shape(infer_part_grad)
      .bind(kReal, real_grad_op<KernelContext>, real_grad_op<EmitContext>)
      .kernel_dtype_from("Out@GRAD");

  r.add("imag")
      .doc("Out = the imaginary part of X.")
      .input("X", "complex64 or complex128")
      .output("Out", "X's shape; float32 for complex64, float64 for complex128")
      .infer_shape(infer_part)
      .bind(kComplexDTypes, imag_op<KernelContext>, imag_op<EmitContext>)
      .kernel_dtype_from("X")
      .grad(part_grad_maker<kImagGrad>);
  r.add("imag_grad")
      .doc("X@GRAD = 0 + i Out@GRAD.")
      .input("Out@GRAD", "float32 or float64")
      .output("X@GRAD", "Out@GRAD's shape, complex")
      .infer_shape(infer_part_grad)
      .bind(kReal, imag_grad_op<KernelContext>, imag_grad_op<EmitContext>)
      .kernel_dtype_from("Out@GRAD");

  r.add("conj")
      .doc("Out = the complex conjugate of X (a copy of a real X).")
      .input("X", "float32, float64, complex64 or complex128")
      .output("Out", "X's shape and dtype")
      .infer_shape(infer_out_like_x)
      .bind(kRealAndComplex, conj_op<KernelContext>, conj_op<EmitContext>)
      .grad(unary_grad_maker<kConj>);

  r.add("as_complex")
      .doc("Out = the pairs along X's last dim (size 2) as complex numbers (real, imaginary).")
      .input("X", "[..., 2]; float32 or float64")
      .output("Out", "X's shape without its last dim; complex64 or complex128")
      .infer_shape(infer_as_complex)
      .bind(kComplexDTypes, as_complex_op<KernelContext>, as_complex_op<EmitContext>)
      .grad(unary_grad_maker<kAsReal>);

  r.add("as_real")
      .doc("Out = X's complex numbers as pairs (real, imaginary) along a new last dim.")
      .input("X", "complex64 or complex128")
      .output("Out", "X's shape + [2]; float32 or float64")
      .infer_shape(infer_as_real)
      .bind(kComplexDTypes, as_real_op<KernelContext>, as_real_op<EmitContext>)
      .kernel_dtype_from("X")
      .grad(unary_grad_maker<kAsComplex>);

  r.add("angle")
      .doc(
          "Out = the argument of X in (-pi, pi] (atan2(Im X, Re X)); for real X, pi where X < "
          "0 and 0 elsewhere.")
      .input("X", "float32, float64, complex64 or complex128")
      .output("Out", "X's shape; the real dtype of X's parts")
      .infer_shape(infer_part)
      .bind(kRealAndComplex, angle_op<KernelContext>, angle_op<EmitContext>)
      .kernel_dtype_from("X")
      .grad(x_grad_maker<kAngleGrad>);
  r.add("angle_grad")
      .doc("X@GRAD = Out@GRAD (-Im X + i Re X) / |X|^2 (0 where X is 0; zeros for real X).")
      .input("X", "the forward X")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "X's shape and dtype")
      .infer_shape(infer_x_grad_like_x)
      .bind(kRealAndComplex, angle_grad_op<KernelContext>, angle_grad_op<EmitContext>)
      .kernel_dtype_from("X");

  r.add("complex_abs")
      .doc("Out = |X| for complex X (the real modulus).")
      .input("X", "complex64 or complex128")
      .output("Out", "X's shape; float32 or float64")
      .infer_shape(infer_part)
      .bind(kComplexDTypes, abs_op<KernelContext>, abs_op<EmitContext>)
      .kernel_dtype_from("X")
      .grad(x_grad_maker<kAbsGrad>);
  r.add("complex_abs_grad")
      .doc("X@GRAD = Out@GRAD X / |X| (0 where X is 0).")
      .input("X", "the forward X")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "X's shape and dtype")
      .infer_shape(infer_x_grad_like_x)
      .bind(kComplexDTypes, abs_grad_op<KernelContext>, abs_grad_op<EmitContext>)
      .kernel_dtype_from("X");
}

const OpRegistrar kComplexOps(register_complex_ops);

}  // namespace skiff
