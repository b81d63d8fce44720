// pool2d and pool3d (max or average, fixed, adaptive or global windows) and their grad ops.
#include "skiff/kernels/cpu/pool.h"
#include "skiff/kernels/cpu/pool3d.h"

#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

template <typename Ctx>
kernels::Pool2dOptions options_of(const Ctx& ctx) {
  using Ints = std::vector<int64_t>;
  return kernels::pool2d_options(
      ctx.template attr_ref<std::string>("pooling_type"), ctx.template attr_ref<Ints>("ksize"),
      ctx.template attr_ref<Ints>("strides"), ctx.template attr_ref<Ints>("paddings"),
      ctx.template attr<bool>("global_pooling"), ctx.template attr<bool>("adaptive"),
      ctx.template attr<bool>("exclusive"), ctx.template attr<bool>("ceil_mode"));
}

template <typename Ctx>
kernels::Pool3dOptions options3d_of(const Ctx& ctx) {
  using Ints = std::vector<int64_t>;
  return kernels::pool3d_options(
      ctx.template attr_ref<std::string>("pooling_type"), ctx.template attr_ref<Ints>("ksize"),
      ctx.template attr_ref<Ints>("strides"), ctx.template attr_ref<Ints>("paddings"),
      ctx.template attr<bool>("global_pooling"), ctx.template attr<bool>("adaptive"),
      ctx.template attr<bool>("exclusive"), ctx.template attr<bool>("ceil_mode"));
}

void infer_pool3d(ShapeContext& ctx) {
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(dtype == DType::kF32 || dtype == DType::kF64,
              "pool3d: X must be float32 or float64, got ", dtype_name(dtype), ctx.in_shape("X"));
  const kernels::Pool3dOptions o = options3d_of(ctx);
  const Shape out = kernels::pool3d_output_shape(ctx.in_shape("X"), o);
  SKIFF_CHECK(o.max || !ctx.has_output("Mask"),
              "pool3d: Mask (argmax indices) is only made by max pooling");
  ctx.set_output("Out", out, dtype);
  ctx.set_output("Mask", out, DType::kI32);
}

// The op's Pool3dOptions, or the expression making them.
template <typename C>
auto pool3d_options_value(const C& c) {
  using Ints = std::vector<int64_t>;
  return SKIFF_KERNEL_VALUE(c, kernels::pool3d_options, attr_ref<std::string>(c, "pooling_type"),
                            attr_ref<Ints>(c, "ksize"), attr_ref<Ints>(c, "strides"),
                            attr_ref<Ints>(c, "paddings"), attr<bool>(c, "global_pooling"),
                            attr<bool>(c, "adaptive"), attr<bool>(c, "exclusive"),
                            attr<bool>(c, "ceil_mode"));
}

template <typename C>
void pool3d(C& c) {
  SKIFF_KERNEL_CALL(c, "pool3d", kernels::pool3d, c.in("X"), pool3d_options_value(c), c.out("Out"),
                    c.out("Mask"));
}

template <typename C>
void pool3d_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "pool3d", kernels::pool3d_grad, c.in("X"), c.in("Out@GRAD"),
                    c.in_or_null("Mask"), pool3d_options_value(c), c.out("X@GRAD"));
}

void infer_pool2d(ShapeContext& ctx) {
  const DType dtype = ctx.in_dtype("X");
  const kernels::Pool2dOptions o = options_of(ctx);
  SKIFF_CHECK(is_floating(dtype) || (dtype == DType::kI8 && o.max), "pool2d: X ('",
              ctx.in_var("X").name,
              "') must be float32, float64 or bfloat16 (or int8, for max pooling), got ",
              dtype_name(dtype), ctx.in_shape("X"));
  const Shape out = kernels::pool2d_output_shape(ctx.in_shape("X"), o);
  SKIFF_CHECK(o.max || !ctx.has_output("Mask"),
              "pool2d: Mask (argmax indices) is only made by max pooling");
  ctx.set_output("Out", out, dtype);
  ctx.set_output("Mask", out, DType::kI32);
}

// The op's Pool2dOptions, or the expression making them.
template <typename C>
auto pool2d_options_value(const C& c) {
  using Ints = std::vector<int64_t>;
  return SKIFF_KERNEL_VALUE(c, kernels::pool2d_options, attr_ref<std::string>(c, "pooling_type"),
                            attr_ref<Ints>(c, "ksize"), attr_ref<Ints>(c, "strides"),
                            attr_ref<Ints>(c, "paddings"), attr<bool>(c, "global_pooling"),
                            attr<bool>(c, "adaptive"), attr<bool>(c, "exclusive"),
                            attr<bool>(c, "ceil_mode"));
}

template <typename C>
void pool2d(C& c) {
  SKIFF_KERNEL_CALL(c, "pool", kernels::pool2d, c.in("X"), pool2d_options_value(c), c.out("Out"),
                    c.out("Mask"));
}

void copy_pool_attrs(const OpDesc& fwd, OpDesc& grad) {
  for (const char* name : {"pooling_type", "ksize", "strides", "paddings", "global_pooling",
                           "adaptive", "exclusive", "ceil_mode"}) {
    if (const Attr* a = fwd.attrs.find(name)) grad.set_attr(name, *a);
  }
}

void pool2d_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  OpDesc& op = g.add(fwd.type + "_grad")  // pool2d_grad or pool3d_grad
                   .set_input("X", {fwd.first_input("X")})
                   .set_input("Out", {fwd.first_output("Out")})
                   .set_input("Out@GRAD", {g.out_grad("Out")})
                   .set_output("X@GRAD", {g.in_grad("X")});
  const std::string mask = fwd.first_output("Mask");
  if (!mask.empty()) op.set_input("Mask", {mask});
  copy_pool_attrs(fwd, op);
}

template <typename C>
void pool2d_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "pool", kernels::pool2d_grad, c.in("X"), c.in("Out@GRAD"),
                    c.in_or_null("Mask"), pool2d_options_value(c), c.out("X@GRAD"));
}

// The attributes pool2d, pool3d and their grad ops share (`volume`: pool3d's).
OpBuilder& pool_attrs(OpBuilder& b, bool volume = false) {
  using Ints = std::vector<int64_t>;
  return b.attr("pooling_type", std::string("max"), "\"max\" or \"avg\"")
      .required_attr("ksize", AttrType::kInts,
                     volume ? "window (D, H, W); with adaptive, the output size (OD, OH, OW)"
                            : "window (H, W); with adaptive, the output size (OH, OW)")
      .attr("strides", volume ? Ints{1, 1, 1} : Ints{1, 1},
            volume ? "window strides (D, H, W)" : "window strides (H, W)")
      .attr("paddings", volume ? Ints{0, 0, 0} : Ints{0, 0},
            volume ? "zero padding: (D, H, W) on both sides, or (front, back, top, bottom, left, "
                     "right); each smaller than the window"
                   : "zero padding: (H, W) on both sides, or (top, bottom, left, right); each "
                     "smaller than the window")
      .attr("global_pooling", false,
            "one window over each whole plane / volume (ksize, paddings ignored)")
      .attr("adaptive", false,
            "ksize is the output size; output cell i covers [floor(i*H/OH), ceil((i+1)*H/OH))")
      .attr("exclusive", true,
            "averages divide by the window's input cells; false: by its cells within the "
            "padded input")
      .attr("ceil_mode", false,
            "output size rounded up, except that a window starting past the input (all "
            "padding) is dropped");
}

void register_pool3d(OpRegistry& r) {
  OpBuilder fwd = r.add("pool3d");
  fwd.doc("Out = max or average of X over 3-D windows, per volume of NCDHW X (Paddle's pool3d).")
      .input("X", "float32 or float64 [N, C, D, H, W]")
      .output("Out", "[N, C, OD, OH, OW], X's dtype")
      .optional_output("Mask",
                       "max pooling only: int32 [N, C, OD, OH, OW], the argmax (d * H + h) * W + "
                       "w in its volume (first in (d, h, w) order)");
  pool_attrs(fwd, /*volume=*/true)
      .infer_shape(infer_pool3d)
      .bind({DType::kF32, DType::kF64}, pool3d<KernelContext>, pool3d<EmitContext>)
      .kernel_dtype_from("X")
      .grad(pool2d_grad_maker);

  OpBuilder bwd = r.add("pool3d_grad");
  bwd.doc(
         "X@GRAD of pool3d: max pooling routes Out@GRAD to each window's argmax (from Mask when "
         "given), average pooling spreads it over the window like the forward.")
      .input("X", "the forward X")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .optional_input("Mask", "the forward Mask, when it made one")
      .output("X@GRAD", "gradient of X");
  pool_attrs(bwd, /*volume=*/true)
      .infer_shape(infer_x_grad_like_x)
      .bind({DType::kF32, DType::kF64}, pool3d_grad<KernelContext>, pool3d_grad<EmitContext>)
      .kernel_dtype_from("X");
}

}  // namespace

void register_pool_ops(OpRegistry& r) {
  register_pool3d(r);
  OpBuilder fwd = r.add("pool2d");
  fwd.doc("Out = max or average of X over 2-D windows, per plane of NCHW X (Paddle's pool2d).")
      .input("X",
             "float32, float64 or bfloat16 (computed in float32, rounded once) [N, C, H, W]; "
             "int8 for max pooling (quantized values)")
      .output("Out", "[N, C, OH, OW], X's dtype")
      .optional_output("Mask",
                       "max pooling only: int32 [N, C, OH, OW], the argmax h * W + w in its "
                       "plane (first in row-major order); declaring it speeds up the gradient");
  pool_attrs(fwd)
      .infer_shape(infer_pool2d)
      .bind({DType::kF32, DType::kF64, DType::kBF16, DType::kI8}, pool2d<KernelContext>,
            pool2d<EmitContext>)
      .kernel_dtype_from("X")
      .grad(pool2d_grad_maker);

  OpBuilder bwd = r.add("pool2d_grad");
  bwd.doc(
         "X@GRAD of pool2d: max pooling routes Out@GRAD to each window's argmax (from Mask when "
         "given), average pooling spreads it over the window like the forward.")
      .input("X", "the forward X")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .optional_input("Mask", "the forward Mask, when it made one")
      .output("X@GRAD", "gradient of X");
  pool_attrs(bwd)
      .infer_shape(infer_x_grad_like_x)
      .bind({DType::kF32, DType::kF64, DType::kBF16}, pool2d_grad<KernelContext>,
            pool2d_grad<EmitContext>)
      .kernel_dtype_from("X");
}

const OpRegistrar kPoolOps(register_pool_ops);

}  // namespace skiff
