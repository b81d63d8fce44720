// Discrete Fourier transforms over a set of axes, as Paddle's ops: fft_c2c (complex to
// complex), fft_r2c (real to complex, optionally one-sided) and fft_c2r (a Hermitian half
// to real), with their gradients. The attrs: axes, normalization ("backward", "forward",
// "ortho": which direction divides by N, or both by sqrt(N)) and forward (the sign of the
// exponent).
#include <string>
#include <vector>

#include "skiff/kernels/cpu/axis.h"
#include "skiff/kernels/cpu/fft.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

using Ints = std::vector<int64_t>;

constexpr std::initializer_list<DType> kReal = {DType::kF32, DType::kF64};

constexpr const char* kAxesDoc = "the axes to transform, each once (negative: from the end)";
constexpr const char* kNormDoc =
    "'backward' (the inverse divides by N), 'forward' (the forward transform divides by N) "
    "or 'ortho' (both by sqrt(N)); N is the product of the transformed lengths";
constexpr const char* kForwardDoc = "true: exp(-2 pi i jk / n); false: exp(+2 pi i jk / n)";

// The last of the axes, resolved against shape.
int last_axis(const ShapeContext& ctx, const Shape& shape) {
  const Ints& axes = ctx.attr_ref<Ints>("axes");
  SKIFF_CHECK(!axes.empty(), ctx.op().type, ": axes must not be empty");
  for (int64_t a : axes) kernels::resolve_axis(ctx.op().type.c_str(), a, shape);
  return kernels::resolve_axis(ctx.op().type.c_str(), axes.back(), shape);
}

void check_norm(const ShapeContext& ctx) {
  const std::string& n = ctx.attr_ref<std::string>("normalization");
  SKIFF_CHECK(n == "backward" || n == "forward" || n == "ortho", ctx.op().type,
              ": normalization must be 'backward', 'forward' or 'ortho', got '", n, "'");
}

void infer_c2c(ShapeContext& ctx) {
  SKIFF_CHECK(is_complex(ctx.in_dtype("X")), "fft_c2c: X must be complex64 or complex128, got ",
              dtype_name(ctx.in_dtype("X")));
  check_norm(ctx);
  last_axis(ctx, ctx.in_shape("X"));
  ctx.set_output("Out", ctx.in_shape("X"), ctx.in_dtype("X"));
}

void infer_r2c(ShapeContext& ctx) {
  const DType t = ctx.in_dtype("X");
  SKIFF_CHECK(t == DType::kF32 || t == DType::kF64, "fft_r2c: X must be float32 or float64, got ",
              dtype_name(t));
  check_norm(ctx);
  Shape s = ctx.in_shape("X");
  const int last = last_axis(ctx, s);
  if (ctx.attr<bool>("onesided") && s[last] >= 0) s[last] = s[last] / 2 + 1;
  ctx.set_output("Out", s, complex_of(t));
}

void infer_c2r(ShapeContext& ctx) {
  SKIFF_CHECK(is_complex(ctx.in_dtype("X")), "fft_c2r: X must be complex64 or complex128, got ",
              dtype_name(ctx.in_dtype("X")));
  check_norm(ctx);
  Shape s = ctx.in_shape("X");
  const int last = last_axis(ctx, s);
  const int64_t n = ctx.attr<int64_t>("last_dim_size");
  SKIFF_CHECK(n >= 1, "fft_c2r: last_dim_size must be >= 1, got ", n);
  SKIFF_CHECK(s[last] < 0 || s[last] == n / 2 + 1, "fft_c2r: X's axis ", last, " holds ", s[last],
              " entries; the Hermitian half of ", n, " points holds ", n / 2 + 1);
  s[last] = n;
  ctx.set_output("Out", s, real_of(ctx.in_dtype("X")));
}

void infer_r2c_grad(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("X"), ctx.in_dtype("X"));
}

void infer_c2r_grad(ShapeContext& ctx) {
  Shape s = ctx.in_shape("Out@GRAD");
  const int last = last_axis(ctx, s);
  if (s[last] >= 0) s[last] = s[last] / 2 + 1;
  ctx.set_output("X@GRAD", s, complex_of(ctx.in_dtype("Out@GRAD")));
}

template <typename C>
void fft_c2c(C& c) {
  SKIFF_KERNEL_CALL(c, "fft", kernels::fft_c2c, c.in("X"), attr_ref<Ints>(c, "axes"),
                    attr_ref<std::string>(c, "normalization"), attr<bool>(c, "forward"),
                    c.out("Out"));
}
template <typename C>
void fft_r2c(C& c) {
  SKIFF_KERNEL_CALL(c, "fft", kernels::fft_r2c, c.in("X"), attr_ref<Ints>(c, "axes"),
                    attr_ref<std::string>(c, "normalization"), attr<bool>(c, "forward"),
                    attr<bool>(c, "onesided"), c.out("Out"));
}
template <typename C>
void fft_c2r(C& c) {
  SKIFF_KERNEL_CALL(c, "fft", kernels::fft_c2r, c.in("X"), attr_ref<Ints>(c, "axes"),
                    attr_ref<std::string>(c, "normalization"), attr<bool>(c, "forward"),
                    attr<int64_t>(c, "last_dim_size"), c.out("Out"));
}
template <typename C>
void fft_r2c_grad(C& c) {
  SKIFF_KERNEL_CALL(c, "fft", kernels::fft_r2c_grad, c.in("Out@GRAD"), c.in("X").shape(),
                    attr_ref<Ints>(c, "axes"), attr_ref<std::string>(c, "normalization"),
                    attr<bool>(c, "forward"), attr<bool>(c, "onesided"), c.out("X@GRAD"));
}
template <typename C>
void fft_c2r_grad(C& c) {
  SKIFF_KERNEL_CALL(c, "fft", kernels::fft_c2r_grad, c.in("Out@GRAD"), attr_ref<Ints>(c, "axes"),
                    attr_ref<std::string>(c, "normalization"), attr<bool>(c, "forward"),
                    c.out("X@GRAD"));
}

void copy_attrs(const OpDesc& fwd, OpDesc& op, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (const Attr* a = fwd.attrs.find(n)) op.set_attr(n, *a);
}

// The adjoint of a c2c transform is the c2c transform the other way with the same scale:
// the normalization that puts that scale on the other direction.
void c2c_grad_maker(GradContext& g) {
  const std::string dx = g.in_grad("X");
  if (dx.empty()) return;
  const std::string& norm = g.fwd().attr_ref<std::string>("normalization");
  const std::string swapped = norm == "backward"  ? "forward"
                              : norm == "forward" ? "backward"
                                                  : norm;
  g.add("fft_c2c")
      .set_input("X", {g.out_grad("Out")})
      .set_output("Out", {dx})
      .set_attr("axes", g.fwd().attr_ref<Ints>("axes"))
      .set_attr("normalization", swapped)
      .set_attr("forward", !g.fwd().attr<bool>("forward"));
}

void r2c_grad_maker(GradContext& g) {
  const std::string dx = g.in_grad("X");
  if (dx.empty()) return;
  OpDesc& op = g.add("fft_r2c_grad")
                   .set_input("X", {g.fwd().first_input("X")})
                   .set_input("Out@GRAD", {g.out_grad("Out")})
                   .set_output("X@GRAD", {dx});
  copy_attrs(g.fwd(), op, {"axes", "normalization", "forward", "onesided"});
}

void c2r_grad_maker(GradContext& g) {
  const std::string dx = g.in_grad("X");
  if (dx.empty()) return;
  OpDesc& op =
      g.add("fft_c2r_grad").set_input("Out@GRAD", {g.out_grad("Out")}).set_output("X@GRAD", {dx});
  copy_attrs(g.fwd(), op, {"axes", "normalization", "forward"});
}

}  // namespace

void register_fft_ops(OpRegistry& r) {
  r.add("fft_c2c")
      .doc("Out = the discrete Fourier transform of complex X over axes.")
      .input("X", "complex64 or complex128")
      .output("Out", "X's shape and dtype")
      .required_attr("axes", AttrType::kInts, kAxesDoc)
      .attr("normalization", std::string("backward"), kNormDoc)
      .attr("forward", true, kForwardDoc)
      .infer_shape(infer_c2c)
      .bind(kComplexDTypes, fft_c2c<KernelContext>, fft_c2c<EmitContext>)
      .grad(c2c_grad_maker);

  r.add("fft_r2c")
      .doc(
          "Out = the discrete Fourier transform of real X over axes; onesided keeps the first "
          "n / 2 + 1 entries of the last axis (the rest are their conjugates).")
      .input("X", "float32 or float64")
      .output("Out", "complex64 or complex128; X's shape, the last axis n / 2 + 1 if onesided")
      .required_attr("axes", AttrType::kInts, kAxesDoc)
      .attr("normalization", std::string("backward"), kNormDoc)
      .attr("forward", true, kForwardDoc)
      .attr("onesided", true, "keep only the non-redundant half of the last axis")
      .infer_shape(infer_r2c)
      .bind(kReal, fft_r2c<KernelContext>, fft_r2c<EmitContext>)
      .kernel_dtype_from("X")
      .grad(r2c_grad_maker);
  r.add("fft_r2c_grad")
      .doc("X@GRAD = the real part of the adjoint transform of Out@GRAD.")
      .input("X", "the forward X (for its shape)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "X's shape and dtype")
      .required_attr("axes", AttrType::kInts, kAxesDoc)
      .attr("normalization", std::string("backward"), kNormDoc)
      .attr("forward", true, kForwardDoc)
      .attr("onesided", true, "as in the forward op")
      .infer_shape(infer_r2c_grad)
      .bind(kComplexDTypes, fft_r2c_grad<KernelContext>, fft_r2c_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");

  r.add("fft_c2r")
      .doc(
          "Out = the real signal whose transform over axes has the Hermitian half X (the last "
          "axis holds last_dim_size / 2 + 1 entries; Out has last_dim_size there).")
      .input("X", "complex64 or complex128")
      .output("Out", "float32 or float64; X's shape with last_dim_size on the last axis")
      .required_attr("axes", AttrType::kInts, kAxesDoc)
      .attr("normalization", std::string("backward"), kNormDoc)
      .attr("forward", false, kForwardDoc)
      .required_attr("last_dim_size", AttrType::kInt, "the length of Out's last axis, >= 1")
      .infer_shape(infer_c2r)
      .bind(kComplexDTypes, fft_c2r<KernelContext>, fft_c2r<EmitContext>)
      .kernel_dtype_from("X")
      .grad(c2r_grad_maker);
  r.add("fft_c2r_grad")
      .doc("X@GRAD = the one-sided adjoint transform of Out@GRAD (paired entries doubled).")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "the forward X's shape, complex")
      .required_attr("axes", AttrType::kInts, kAxesDoc)
      .attr("normalization", std::string("backward"), kNormDoc)
      .attr("forward", false, kForwardDoc)
      .infer_shape(infer_c2r_grad)
      .bind(kReal, fft_c2r_grad<KernelContext>, fft_c2r_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");
}

const OpRegistrar kFftOps(register_fft_ops);

}  // namespace skiff
