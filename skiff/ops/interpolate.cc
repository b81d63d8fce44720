// Paddle's interp_v2 family: linear_interp_v2 (NCW), bilinear_interp_v2 and
// bicubic_interp_v2 (NCHW), trilinear_interp_v2 (NCDHW), nearest_interp_v2 (any of the
// three), and their grad ops. One schema for all; the op type names the method.
#include "skiff/kernels/cpu/interpolate.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// "bilinear" for "bilinear_interp_v2" or "bilinear_interp_v2_grad".
std::string method_of(const std::string& op_type) { return op_type.substr(0, op_type.find('_')); }

template <typename Ctx>
kernels::InterpOptions options_of(const Ctx& ctx, int spatial_rank) {
  const std::string& layout = ctx.template attr_ref<std::string>("data_layout");
  SKIFF_CHECK(layout == "NCHW" || layout == "NCW" || layout == "NCDHW" || layout == "AnyLayout",
              ctx.op().type, ": data_layout must be channel-first (NCW, NCHW or NCDHW), got ",
              layout);
  return kernels::interp_options(
      method_of(ctx.op().type), spatial_rank,
      {ctx.template attr<int64_t>("out_d"), ctx.template attr<int64_t>("out_h"),
       ctx.template attr<int64_t>("out_w")},
      ctx.template attr_ref<std::vector<double>>("scale"), ctx.template attr<bool>("align_corners"),
      static_cast<int>(ctx.template attr<int64_t>("align_mode")));
}

// The options with the OutSize and Scale inputs, when given, in place of the attributes.
kernels::InterpOptions run_options(const KernelContext& ctx, int spatial_rank) {
  return kernels::with_size_inputs(options_of(ctx, spatial_rank),
                                   ctx.has_in("OutSize") ? &ctx.in("OutSize") : nullptr,
                                   ctx.has_in("Scale") ? &ctx.in("Scale") : nullptr);
}

void infer_interp(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const DType dtype = ctx.in_dtype("X");
  SKIFF_CHECK(is_floating(dtype), ctx.op().type, ": X must be float32 or float64, got ",
              dtype_name(dtype));
  SKIFF_CHECK(x.rank() >= 3 && x.rank() <= 5, ctx.op().type, ": X must be 3-D, 4-D or 5-D, got ",
              x);
  const int spatial_rank = x.rank() - 2;
  const kernels::InterpOptions o = options_of(ctx, spatial_rank);
  Shape out = x;
  if (ctx.has_input("OutSize") || ctx.has_input("Scale")) {
    for (int i = 2; i < x.rank(); ++i) out[i] = -1;  // known only at run time
  } else {
    out = kernels::interp_output_shape(x, o);
  }
  ctx.set_output("Out", out, dtype);
}

void interp_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.in("X");
  kernels::interpolate(x, run_options(ctx, x.rank() - 2), ctx.out("Out"));
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

void interp_grad_kernel(KernelContext& ctx) {
  Tensor* dx = ctx.out("X@GRAD");
  if (!dx) return;
  const Tensor& x = ctx.in("X");
  kernels::interpolate_grad(x.shape(), ctx.in("Out@GRAD"), run_options(ctx, x.rank() - 2), dx);
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
        .kernel({DType::kF32, DType::kF64}, interp_kernel)
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
        .kernel({DType::kF32, DType::kF64}, interp_grad_kernel)
        .kernel_dtype_from("X");
  }
}

}  // namespace skiff
