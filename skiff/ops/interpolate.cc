// Paddle's interp_v2 family: linear_interp_v2 (NCW), bilinear_interp_v2 and
// bicubic_interp_v2 (NCHW), trilinear_interp_v2 (NCDHW), nearest_interp_v2 (any of the
// three), and their grad ops. One schema for all; the op type names the method.
#include "skiff/kernels/cpu/interpolate.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// "bilinear" for "bilinear_interp_v2" or "bilinear_interp_v2_grad".
std::string method_of(const std::string& op_type) { return op_type.substr(0, op_type.find('_')); }

// The resized dims of X: all but N and C.
int spatial_rank(const Tensor& x) { return x.rank() - 2; }
Expr spatial_rank(const TensorExpr& x) { return {x.rank().text + " - 2"}; }

void check_layout(const OpDesc& op) {
  const std::string& layout = op.attr_ref<std::string>("data_layout");
  SKIFF_CHECK(layout == "NCHW" || layout == "NCW" || layout == "NCDHW" || layout == "AnyLayout",
              op.type, ": data_layout must be channel-first (NCW, NCHW or NCDHW), got ", layout);
}

std::vector<int64_t> out_dhw(const OpDesc& op) {
  return {op.attr<int64_t>("out_d"), op.attr<int64_t>("out_h"), op.attr<int64_t>("out_w")};
}

// The op's InterpOptions for input `x` (a value or an expression), with the OutSize and
// Scale inputs, when given, in place of the attributes.
template <typename C, typename X>
auto options_of(const C& c, const X& x) {
  check_layout(c.op());
  return SKIFF_KERNEL_VALUE(
      c, kernels::with_size_inputs,
      SKIFF_KERNEL_VALUE(c, kernels::interp_options, constant(c, method_of(c.op().type)),
                         spatial_rank(x), constant(c, out_dhw(c.op())),
                         attr_ref<std::vector<double>>(c, "scale"), attr<bool>(c, "align_corners"),
                         attr<int64_t>(c, "align_mode")),
      c.in_or_null("OutSize"), c.in_or_null("Scale"));
}

void infer_interp(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(is_floating(dtype), ctx.op().type, ": X must be float32 or float64, got ",
              dtype_name(dtype));
  SKIFF_CHECK(x.rank() >= 3 && x.rank() <= 5, ctx.op().type, ": X must be 3-D, 4-D or 5-D, got ",
              x);
  check_layout(ctx.op());
  const kernels::InterpOptions o = kernels::interp_options(
      method_of(ctx.op().type), x.rank() - 2, out_dhw(ctx.op()),
      ctx.attr_ref<std::vector<double>>("scale"), ctx.attr<bool>("align_corners"),
      static_cast<int>(ctx.attr<int64_t>("align_mode")));
  Shape out = x;
  if (ctx.has_input("OutSize") || ctx.has_input("Scale")) {
    for (int i = 2; i < x.rank(); ++i) out[i] = -1;  // known only at run time
  } else {
    out = kernels::interp_output_shape(x, o);
  }
  ctx.set_output("Out", out, dtype);
}

template <typename C>
void interp(C& c) {
  const auto& x = c.in("X");
  SKIFF_KERNEL_CALL(c, "interpolate", kernels::interpolate, x, options_of(c, x), c.out("Out"));
}

void interp_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  OpDesc& op = g.add(fwd.type + "_grad")
                   .set_input("X", {fwd.first_input("X")})
                   .set_input("Out@GRAD", {g.out_grad("Out")})
                   .set_output("X@GRAD", {g.in_grad("X")});
  for (const char* slot : {"OutSize", "Scale"}) {
    const std::string name = fwd.first_input(slot);
    if (!name.empty()) op.set_input(slot, {name});
  }
  for (const char* name :
       {"data_layout", "out_d", "out_h", "out_w", "scale", "align_corners", "align_mode"}) {
    if (const Attr* a = fwd.attrs.find(name)) op.set_attr(name, *a);
  }
}

template <typename C>
void interp_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  const auto& x = c.in("X");
  SKIFF_KERNEL_CALL(c, "interpolate", kernels::interpolate_grad, x.shape(), c.in("Out@GRAD"),
                    options_of(c, x), c.out("X@GRAD"));
}

OpBuilder& interp_attrs(OpBuilder& b) {
  return b.attr("data_layout", std::string("NCHW"), "channel-first layouts only (NCW, NCHW, NCDHW)")
      .attr("out_d", int64_t{-1}, "output depth (5-D X); <= 0: from scale")
      .attr("out_h", int64_t{-1}, "output height (4-D and 5-D X); <= 0: from scale")
      .attr("out_w", int64_t{-1}, "output width; <= 0: from scale")
      .attr("scale", std::vector<double>{},
            "scale factors (one for all spatial axes, or one per axis); an axis without an "
            "output size is int(in * scale) long, and with a scale the source step is 1 / scale")
      .attr("align_corners", false,
            "corner cells' centres map onto each other (source step (in - 1) / (out - 1))")
      .attr("align_mode", int64_t{0},
            "linear modes without align_corners: 0 half-pixel centres (source (k + 0.5) * step - "
            "0.5, clamped at 0), 1 asymmetric (source k * step)");
}

struct InterpOp {
  const char* type;
  const char* doc;
};

}  // namespace

void register_interpolate_ops(OpRegistry& r) {
  const InterpOp ops[] = {
      {"nearest_interp_v2",
       "Out = X resized by nearest neighbour (source floor(k * step), or round with "
       "align_corners) over the last 1, 2 or 3 dims of NCW / NCHW / NCDHW X."},
      {"linear_interp_v2", "Out = X [N, C, W] resized by linear interpolation."},
      {"bilinear_interp_v2", "Out = X [N, C, H, W] resized by bilinear interpolation."},
      {"trilinear_interp_v2", "Out = X [N, C, D, H, W] resized by trilinear interpolation."},
      {"bicubic_interp_v2",
       "Out = X [N, C, H, W] resized by bicubic (Keys, a = -0.75) interpolation, edge cells "
       "repeated."},
  };
  for (const InterpOp& op : ops) {
    OpBuilder fwd = r.add(op.type);
    fwd.doc(op.doc)
        .input("X", "float32 or float64, channel-first")
        .optional_input("OutSize",
                        "int32 or int64 [spatial rank]: the output size, overriding out_* and the "
                        "size from scale")
        .optional_input("Scale", "[1] or [spatial rank]: scale factors overriding the attribute")
        .output("Out", "X's dtype, spatial dims resized");
    interp_attrs(fwd)
        .infer_shape(infer_interp)
        .bind({DType::kF32, DType::kF64}, interp<KernelContext>, interp<EmitContext>)
        .kernel_dtype_from("X")
        .grad(interp_grad_maker);

    OpBuilder bwd = r.add(std::string(op.type) + "_grad");
    bwd.doc("X@GRAD of the resize: Out@GRAD carried back to the source cells by the same weights.")
        .input("X", "the forward X (its shape)")
        .optional_input("OutSize", "the forward OutSize")
        .optional_input("Scale", "the forward Scale")
        .input("Out@GRAD", "gradient of Out")
        .output("X@GRAD", "gradient of X");
    interp_attrs(bwd)
        .infer_shape(infer_x_grad_like_x)
        .bind({DType::kF32, DType::kF64}, interp_grad<KernelContext>, interp_grad<EmitContext>)
        .kernel_dtype_from("X");
  }
}

const OpRegistrar kInterpolateOps(register_interpolate_ops);

}  // namespace skiff
