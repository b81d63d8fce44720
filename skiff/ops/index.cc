// Indexed reads and writes: gather, gather_nd, scatter, scatter_reduce and their grad
// ops, and one_hot. Index inputs are int32 or int64; negative indices count from the back.
#include <string>

#include "skiff/kernels/cpu/gather.h"
#include "skiff/kernels/cpu/one_hot.h"
#include "skiff/kernels/cpu/scatter_reduce.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

// Scatter adds in place unless it overwrites: the dtypes with addition, and bool.
constexpr std::initializer_list<DType> kScatterDTypes = {DType::kF32, DType::kF64, DType::kI32,
                                                         DType::kI64, DType::kBool};
constexpr std::initializer_list<DType> kGradDTypes = {DType::kF32, DType::kF64, DType::kC64,
                                                      DType::kC128};

void check_index_dtype(const ShapeContext& ctx, const char* op, const char* slot) {
  const DType t = ctx.in_dtype(slot);
  SKIFF_CHECK(t == DType::kI32 || t == DType::kI64, op, ": ", slot, " must be int32 or int64, got ",
              dtype_name(t));
}

void infer_x_grad(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("X"), ctx.in_dtype("Out@GRAD"));
}

// <op>_grad(X, Index, Out@GRAD) -> X@GRAD, with the forward op's axis when it has one.
void indexed_grad_maker(GradContext& g) {
  if (!g.wants("X")) return;
  const OpDesc& fwd = g.fwd();
  OpDesc& op = g.add(fwd.type + "_grad")
                   .set_input("X", {fwd.first_input("X")})
                   .set_input("Index", {fwd.first_input("Index")})
                   .set_input("Out@GRAD", {g.out_grad("Out")})
                   .set_output("X@GRAD", {g.in_grad("X")});
  if (fwd.attrs.has("axis")) op.set_attr("axis", fwd.attr<int64_t>("axis"));
}

// ---- gather ----

void infer_gather(ShapeContext& ctx) {
  check_index_dtype(ctx, "gather", "Index");
  ctx.set_output(
      "Out",
      kernels::gather_shape(ctx.in_shape("X"), ctx.in_shape("Index"), ctx.attr<int64_t>("axis")),
      ctx.in_dtype("X"));
}

template <typename C>
void gather(C& c) {
  SKIFF_KERNEL_CALL(c, "gather", kernels::gather, c.in("X"), c.in("Index"),
                    attr<int64_t>(c, "axis"), c.out("Out"));
}

template <typename C>
void gather_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "gather", kernels::gather_grad, c.in("Out@GRAD"), c.in("Index"),
                    c.in("X").shape(), attr<int64_t>(c, "axis"), c.out("X@GRAD"));
}

// ---- gather_nd ----

void infer_gather_nd(ShapeContext& ctx) {
  check_index_dtype(ctx, "gather_nd", "Index");
  ctx.set_output("Out", kernels::gather_nd_shape(ctx.in_shape("X"), ctx.in_shape("Index")),
                 ctx.in_dtype("X"));
}

template <typename C>
void gather_nd(C& c) {
  SKIFF_KERNEL_CALL(c, "gather", kernels::gather_nd, c.in("X"), c.in("Index"), c.out("Out"));
}

template <typename C>
void gather_nd_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "gather", kernels::gather_nd_grad, c.in("Out@GRAD"), c.in("Index"),
                    c.in("X").shape(), c.out("X@GRAD"));
}

// ---- scatter ----

void infer_scatter(ShapeContext& ctx) {
  check_index_dtype(ctx, "scatter", "Ids");
  const Shape x = ctx.in_shape("X");
  kernels::check_scatter_shapes(x, ctx.in_shape("Ids"), ctx.in_shape("Updates"));
  SKIFF_CHECK(ctx.in_dtype("Updates") == ctx.in_dtype("X"), "scatter: Updates is ",
              dtype_name(ctx.in_dtype("Updates")), " but X is ", dtype_name(ctx.in_dtype("X")));
  SKIFF_CHECK(ctx.attr<bool>("overwrite") || ctx.in_dtype("X") != DType::kBool,
              "scatter: overwrite=false sums updates, which bool X cannot hold");
  ctx.set_output("Out", x, ctx.in_dtype("X"));
}

template <typename C>
void scatter(C& c) {
  SKIFF_KERNEL_CALL(c, "gather", kernels::scatter, c.in("X"), c.in("Ids"), c.in("Updates"),
                    attr<bool>(c, "overwrite"), c.out("Out"));
}

void scatter_grad_maker(GradContext& g) {
  if (!g.wants("X") && !g.wants("Updates")) return;
  g.add("scatter_grad")
      .set_input("Ids", {g.fwd().first_input("Ids")})
      .set_input("Updates", {g.fwd().first_input("Updates")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_output("Updates@GRAD", {g.in_grad("Updates")})
      .set_attr("overwrite", g.fwd().attr<bool>("overwrite"));
}

void infer_scatter_grad(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("Out@GRAD"), ctx.in_dtype("Out@GRAD"));
  ctx.set_output("Updates@GRAD", ctx.in_shape("Updates"), ctx.in_dtype("Out@GRAD"));
}

template <typename C>
void scatter_grad(C& c) {
  SKIFF_KERNEL_CALL(c, "gather", kernels::scatter_grad, c.in("Out@GRAD"), c.in("Ids"),
                    attr<bool>(c, "overwrite"), c.in("Updates").shape(), c.out("X@GRAD"),
                    c.out("Updates@GRAD"));
}

// ---- scatter_reduce ----

void infer_scatter_reduce(ShapeContext& ctx) {
  check_index_dtype(ctx, "scatter_reduce", "Index");
  kernels::check_scatter_reduction("scatter_reduce", ctx.attr<std::string>("reduce"));
  SKIFF_CHECK(ctx.in_dtype("Updates") == ctx.in_dtype("X"), "scatter_reduce: Updates is ",
              dtype_name(ctx.in_dtype("Updates")), " but X is ", dtype_name(ctx.in_dtype("X")));
  ctx.set_output("Out", ctx.in_shape("X"), ctx.in_dtype("X"));
}

template <typename C>
void scatter_reduce(C& c) {
  SKIFF_KERNEL_CALL(c, "scatter_reduce", kernels::scatter_reduce, c.in("X"), c.in("Index"),
                    c.in("Updates"), attr<std::string>(c, "reduce"), attr<bool>(c, "include_self"),
                    c.out("Out"));
}

void scatter_reduce_grad_maker(GradContext& g) {
  if (!g.wants("X") && !g.wants("Updates")) return;
  const OpDesc& fwd = g.fwd();
  g.add("scatter_reduce_grad")
      .set_input("X", {fwd.first_input("X")})
      .set_input("Index", {fwd.first_input("Index")})
      .set_input("Updates", {fwd.first_input("Updates")})
      .set_input("Out", {fwd.first_output("Out")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {g.in_grad("X")})
      .set_output("Updates@GRAD", {g.in_grad("Updates")})
      .set_attr("reduce", fwd.attr<std::string>("reduce"))
      .set_attr("include_self", fwd.attr<bool>("include_self"));
}

void infer_scatter_reduce_grad(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("X"), ctx.in_dtype("Out@GRAD"));
  ctx.set_output("Updates@GRAD", ctx.in_shape("Updates"), ctx.in_dtype("Out@GRAD"));
}

template <typename C>
void scatter_reduce_grad(C& c) {
  SKIFF_KERNEL_CALL(c, "scatter_reduce", kernels::scatter_reduce_grad, c.in("X"), c.in("Index"),
                    c.in("Updates"), c.in("Out"), c.in("Out@GRAD"), attr<std::string>(c, "reduce"),
                    attr<bool>(c, "include_self"), c.out("X@GRAD"), c.out("Updates@GRAD"));
}

// ---- one_hot ----

void infer_one_hot(ShapeContext& ctx) {
  check_index_dtype(ctx, "one_hot", "X");
  const DType dtype = dtype_from_name(ctx.attr<std::string>("dtype"));
  SKIFF_CHECK(is_floating(dtype), "one_hot: dtype must be float32 or float64, got ",
              dtype_name(dtype));
  ctx.set_output("Out", kernels::one_hot_shape(ctx.in_shape("X"), ctx.attr<int64_t>("depth")),
                 dtype);
}

template <typename C>
void one_hot(C& c) {
  SKIFF_KERNEL_CALL(c, "one_hot", kernels::one_hot, c.in("X"), attr<int64_t>(c, "depth"),
                    attr<bool>(c, "allow_out_of_range"), dtype_attr(c, "dtype"), c.out("Out"));
}

}  // namespace

void register_index_ops(OpRegistry& r) {
  r.add("gather")
      .doc("Out = the entries of X at Index along `axis` (Out[.., j, ..] = X[.., Index[j], ..]).")
      .input("X", "any shape and dtype")
      .input("Index", "int32 or int64, 1-D (or rank 0: the axis is dropped)")
      .output("Out", "X's dims with the axis dim replaced by len(Index), X's dtype")
      .attr("axis", int64_t{0}, "the axis indexed (negative: from the back)")
      .infer_shape(infer_gather)
      .bind(kDataDTypes, gather<KernelContext>, gather<EmitContext>)
      .grad(indexed_grad_maker);

  r.add("gather_grad")
      .doc("X@GRAD = zeros with Out@GRAD's entries added at Index along `axis`.")
      .input("X", "the forward X (for its shape)")
      .input("Index", "the forward Index")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .attr("axis", int64_t{0}, "as in the forward op")
      .infer_shape(infer_x_grad)
      .bind(kGradDTypes, gather_grad<KernelContext>, gather_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");

  r.add("gather_nd")
      .doc(
          "Out[t] = X[Index[t, 0], ..., Index[t, k-1]] where k = Index.shape[-1] <= rank(X): "
          "each index tuple picks a slice of X's trailing dims.")
      .input("X", "any shape and dtype")
      .input("Index", "int32 or int64 [..., k]")
      .output("Out", "Index.shape[:-1] + X.shape[k:], X's dtype")
      .infer_shape(infer_gather_nd)
      .bind(kDataDTypes, gather_nd<KernelContext>, gather_nd<EmitContext>)
      .grad(indexed_grad_maker);

  r.add("gather_nd_grad")
      .doc("X@GRAD = zeros with Out@GRAD's slices added at the index tuples.")
      .input("X", "the forward X (for its shape)")
      .input("Index", "the forward Index")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad)
      .bind(kGradDTypes, gather_nd_grad<KernelContext>, gather_nd_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");

  r.add("scatter")
      .doc(
          "Out = X with row Ids[i] replaced by Updates[i]. overwrite: the last of repeated Ids "
          "wins; otherwise each row named in Ids becomes the sum of its updates.")
      .input("X", "[N, ...], any dtype (bool only with overwrite)")
      .input("Ids", "int32 or int64 [M], rows of X")
      .input("Updates", "[M] + X.shape[1:], X's dtype")
      .output("Out", "X's shape and dtype")
      .attr("overwrite", true, "replace rows (true) or sum the updates of each row (false)")
      .infer_shape(infer_scatter)
      .bind(kScatterDTypes, scatter<KernelContext>, scatter<EmitContext>)
      .grad(scatter_grad_maker);

  r.add("scatter_grad")
      .doc(
          "X@GRAD = Out@GRAD with the rows named by Ids zeroed; Updates@GRAD[i] = "
          "Out@GRAD[Ids[i]] (0 for an update that a later one overwrites).")
      .input("Ids", "the forward Ids")
      .input("Updates", "the forward Updates (for its shape)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X (\"\" when not needed)")
      .output("Updates@GRAD", "gradient of Updates (\"\" when not needed)")
      .attr("overwrite", true, "as in the forward op")
      .infer_shape(infer_scatter_grad)
      .bind({DType::kF32, DType::kF64}, scatter_grad<KernelContext>, scatter_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");

  r.add("scatter_reduce")
      .doc(
          "Out = X with each Updates[k] combined into X's element at flat position Index[k] "
          "by `reduce` (PaddlePaddle's put_along_axis / scatter_reduce with a reduction). "
          "include_self=false: an element an update reaches starts from its updates alone.")
      .input("X", "any shape; float32, float64, int32 or int64")
      .input("Index", "int32 or int64 flat positions in X, one per update")
      .input("Updates", "X's dtype, as many values as Index")
      .output("Out", "X's shape and dtype")
      .attr("reduce", std::string("sum"), "sum, prod, mean (integers truncate), amax or amin")
      .attr("include_self", true, "whether X's value takes part where updates arrive")
      .infer_shape(infer_scatter_reduce)
      .bind({DType::kF32, DType::kF64, DType::kI32, DType::kI64}, scatter_reduce<KernelContext>,
            scatter_reduce<EmitContext>)
      .grad(scatter_reduce_grad_maker);

  r.add("scatter_reduce_grad")
      .doc(
          "The gradients of scatter_reduce: Out@GRAD passed to the values each element "
          "combined (amax/amin: split evenly among those equal to the result).")
      .input("X", "the forward X")
      .input("Index", "the forward Index")
      .input("Updates", "the forward Updates")
      .input("Out", "the forward Out")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X (\"\" when not needed)")
      .output("Updates@GRAD", "gradient of Updates (\"\" when not needed)")
      .attr("reduce", std::string("sum"), "as in the forward op")
      .attr("include_self", true, "as in the forward op")
      .infer_shape(infer_scatter_reduce_grad)
      .bind(kGradDTypes, scatter_reduce_grad<KernelContext>, scatter_reduce_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");

  r.add("one_hot")
      .doc(
          "Out[..., k] = 1 where k == X[...], else 0: a new last dim of size depth "
          "(PaddlePaddle's one_hot_v2). Labels outside [0, depth) are an error unless "
          "allow_out_of_range (then a row of zeros).")
      .input("X", "int32 or int64 labels, any shape")
      .output("Out", "X's shape + [depth], of `dtype`")
      .required_attr("depth", AttrType::kInt, "number of classes, >= 1")
      .attr("dtype", std::string("float32"), "float32 or float64")
      .attr("allow_out_of_range", false, "give zeros for labels outside [0, depth)")
      .infer_shape(infer_one_hot)
      .bind({DType::kF32, DType::kF64}, one_hot<KernelContext>, one_hot<EmitContext>);
}

const OpRegistrar kIndexOps(register_index_ops);

}  // namespace skiff
