// Joining and cutting along an axis: concat (gradient: concat_grad, a split by X's
// sizes), split (gradient: a concat of the outputs' gradients), stack (gradient:
// stack_grad, an unstack).
#include <vector>

#include "skiff/kernels/cpu/axis.h"
#include "skiff/kernels/cpu/join.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

using Ints = std::vector<int64_t>;

constexpr std::initializer_list<DType> kGradDTypes = {DType::kF32, DType::kF64, DType::kC64,
                                                      DType::kC128};

// The shapes of X's variables, after checking that they share one dtype.
std::vector<Shape> input_shapes(const ShapeContext& ctx, const char* op) {
  SKIFF_CHECK(ctx.in_count("X") > 0, op, ": X holds no variables");
  std::vector<Shape> shapes;
  for (int i = 0; i < ctx.in_count("X"); ++i) {
    const VarDesc& x = ctx.in_var("X", i);
    SKIFF_CHECK(x.dtype == ctx.in_dtype("X"), op, ": X[", i, "] '", x.name, "' is ",
                dtype_name(x.dtype), " but X[0] is ", dtype_name(ctx.in_dtype("X")));
    shapes.push_back(x.shape);
  }
  return shapes;
}

// ---- concat ----

void infer_concat(ShapeContext& ctx) {
  ctx.set_output("Out",
                 kernels::concat_shape(input_shapes(ctx, "concat"), ctx.attr<int64_t>("axis")),
                 ctx.in_dtype("X"));
}

template <typename C>
void concat(C& c) {
  SKIFF_KERNEL_CALL(c, "join", kernels::concat, tensor_list(c, "X"), attr<int64_t>(c, "axis"),
                    c.out("Out"));
}

void concat_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("concat_grad")
      .set_input("X", g.fwd().input("X"))
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", g.in_grads("X"))
      .set_attr("axis", g.fwd().attr<int64_t>("axis"));
}

void infer_concat_grad(ShapeContext& ctx) {
  for (int i = 0; i < ctx.out_count("X@GRAD"); ++i)
    ctx.set_output("X@GRAD", ctx.in_shape("X", i), ctx.in_dtype("Out@GRAD"), i);
}

template <typename C>
void concat_grad(C& c) {
  const auto axis = attr<int64_t>(c, "axis");
  SKIFF_KERNEL_CALL(c, "join", kernels::split, c.in("Out@GRAD"), axis,
                    SKIFF_KERNEL_VALUE(c, kernels::concat_sizes, tensor_list(c, "X"), axis),
                    output_list(c, "X@GRAD"));
}

// ---- split ----

void infer_split(ShapeContext& ctx) {
  const Shape x = ctx.in_shape("X");
  const Ints sizes = kernels::split_sizes(x, ctx.attr<int64_t>("axis"), ctx.attr<int64_t>("num"),
                                          ctx.attr_ref<Ints>("sections"));
  SKIFF_CHECK(static_cast<int>(sizes.size()) == ctx.out_count("Out"), "split: X ", x,
              " splits into ", sizes.size(), " parts but Out has ", ctx.out_count("Out"),
              " variables");
  const int a = kernels::resolve_axis("split", ctx.attr<int64_t>("axis"), x);
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape part = x;
    part[a] = sizes[i];
    ctx.set_output("Out", part, ctx.in_dtype("X"), static_cast<int>(i));
  }
}

template <typename C>
void split(C& c) {
  const auto axis = attr<int64_t>(c, "axis");
  SKIFF_KERNEL_CALL(c, "join", kernels::split, c.in("X"), axis,
                    SKIFF_KERNEL_VALUE(c, kernels::split_sizes, c.in("X").shape(), axis,
                                       attr<int64_t>(c, "num"), attr_ref<Ints>(c, "sections")),
                    output_list(c, "Out"));
}

// The gradient of a split is the concat of its outputs' gradients (unused ones are
// zero-filled by append_backward).
void split_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("concat")
      .set_input("X", g.out_grads("Out"))
      .set_output("Out", {g.in_grad("X")})
      .set_attr("axis", g.fwd().attr<int64_t>("axis"));
}

// ---- stack ----

void infer_stack(ShapeContext& ctx) {
  ctx.set_output("Y", kernels::stack_shape(input_shapes(ctx, "stack"), ctx.attr<int64_t>("axis")),
                 ctx.in_dtype("X"));
}

template <typename C>
void stack(C& c) {
  SKIFF_KERNEL_CALL(c, "join", kernels::stack, tensor_list(c, "X"), attr<int64_t>(c, "axis"),
                    c.out("Y"));
}

void stack_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  g.add("stack_grad")
      .set_input("Y@GRAD", {g.out_grad("Y")})
      .set_output("X@GRAD", g.in_grads("X"))
      .set_attr("axis", g.fwd().attr<int64_t>("axis"));
}

void infer_stack_grad(ShapeContext& ctx) {
  const Shape y = ctx.in_shape("Y@GRAD");
  const int a = kernels::resolve_axis("stack_grad", ctx.attr<int64_t>("axis"), y);
  SKIFF_CHECK(y[a] < 0 || y[a] == ctx.out_count("X@GRAD"), "stack_grad: axis ", a, " of Y@GRAD ", y,
              " does not hold ", ctx.out_count("X@GRAD"), " entries");
  Ints dims = y.vec();
  dims.erase(dims.begin() + a);
  for (int i = 0; i < ctx.out_count("X@GRAD"); ++i)
    ctx.set_output("X@GRAD", Shape(dims), ctx.in_dtype("Y@GRAD"), i);
}

template <typename C>
void stack_grad(C& c) {
  SKIFF_KERNEL_CALL(c, "join", kernels::unstack, c.in("Y@GRAD"), attr<int64_t>(c, "axis"),
                    output_list(c, "X@GRAD"));
}

constexpr const char* kAxisDoc = "the axis (negative: from the back)";

}  // namespace

void register_join_ops(OpRegistry& r) {
  r.add("concat")
      .doc("Out = the X tensors joined along `axis`; their other dims must match.")
      .inputs("X", "tensors of one dtype and rank")
      .output("Out", "X's dims with the axis dims summed")
      .attr("axis", int64_t{0}, kAxisDoc)
      .infer_shape(infer_concat)
      .bind(kDataDTypes, concat<KernelContext>, concat<EmitContext>)
      .grad(concat_grad_maker);

  r.add("concat_grad")
      .doc("X@GRAD[i] = the part of Out@GRAD that X[i] filled (a split by X's sizes).")
      .inputs("X", "the forward X (for their shapes)")
      .input("Out@GRAD", "gradient of Out")
      .outputs("X@GRAD", "gradients of X (\"\" for those not needed)")
      .attr("axis", int64_t{0}, kAxisDoc)
      .infer_shape(infer_concat_grad)
      .bind(kGradDTypes, concat_grad<KernelContext>, concat_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");

  r.add("split")
      .doc(
          "Out[i] = the i-th consecutive part of X along `axis`: `num` equal parts when num > "
          "0, else parts of the sizes in `sections` (one -1 takes the rest).")
      .input("X", "any shape and dtype")
      .outputs("Out", "one variable per part")
      .attr("num", int64_t{0}, "number of equal parts (0: use sections)")
      .attr("sections", Ints{}, "part sizes along the axis; one may be -1")
      .attr("axis", int64_t{0}, kAxisDoc)
      .infer_shape(infer_split)
      .bind(kDataDTypes, split<KernelContext>, split<EmitContext>)
      .grad(split_grad_maker);

  r.add("stack")
      .doc("Y = the X tensors stacked along a new axis `axis` (in [-rank-1, rank]).")
      .inputs("X", "tensors of one dtype and shape")
      .output("Y", "X's shape with len(X) inserted at axis")
      .attr("axis", int64_t{0}, "the new axis (negative: from the back of Y)")
      .infer_shape(infer_stack)
      .bind(kDataDTypes, stack<KernelContext>, stack<EmitContext>)
      .grad(stack_grad_maker);

  r.add("stack_grad")
      .doc("X@GRAD[i] = entry i of Y@GRAD along `axis` (an unstack).")
      .input("Y@GRAD", "gradient of Y")
      .outputs("X@GRAD", "gradients of X (\"\" for those not needed)")
      .attr("axis", int64_t{0}, "as in the forward op")
      .infer_shape(infer_stack_grad)
      .bind(kGradDTypes, stack_grad<KernelContext>, stack_grad<EmitContext>)
      .kernel_dtype_from("Y@GRAD");
}

const OpRegistrar kJoinOps(register_join_ops);

}  // namespace skiff
