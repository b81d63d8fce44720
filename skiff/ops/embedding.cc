// embedding (PaddlePaddle's lookup_table_v2) and its grad op, whose W@GRAD is dense
// or, with is_sparse, selected rows holding only the looked-up rows (which sgd and
// adam apply sparsely).
#include "skiff/kernels/cpu/embedding.h"

#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

void check_inputs(ShapeContext& ctx) {
  const VarDesc& w = ctx.in_var("W");
  const VarDesc& ids = ctx.in_var("Ids");
  SKIFF_CHECK(is_floating(w.dtype) && w.shape.rank() == 2, "embedding: W ('", w.name,
              "') must be a float32/float64 table [V, D], got ", dtype_name(w.dtype), w.shape);
  SKIFF_CHECK(ids.dtype == DType::kI64 || ids.dtype == DType::kI32, "embedding: Ids ('", ids.name,
              "') must be int64 or int32, got ", dtype_name(ids.dtype), ids.shape);
  const int64_t padding_idx = ctx.attr<int64_t>("padding_idx");
  SKIFF_CHECK(padding_idx == kernels::kNoPadding ||
                  (padding_idx >= 0 && (w.shape[0] < 0 || padding_idx < w.shape[0])),
              "embedding: padding_idx ", padding_idx, " must be -1 (none) or a row of W ", w.shape);
}

void infer_embedding(ShapeContext& ctx) {
  check_inputs(ctx);
  ctx.set_output("Out", kernels::embedding_out_shape(ctx.in_shape("Ids"), ctx.in_shape("W")),
                 ctx.in_dtype("W"));
}

template <typename C>
void embedding(C& c) {
  SKIFF_KERNEL_CALL(c, "embedding", kernels::embedding, c.in("W"), c.in("Ids"),
                    attr<int64_t>(c, "padding_idx"), c.out("Out"));
}

void embedding_grad_maker(GradContext& g) {
  if (!g.wants("W")) return;
  const OpDesc& fwd = g.fwd();
  g.add("embedding_grad")
      .set_input("W", {fwd.first_input("W")})
      .set_input("Ids", {fwd.first_input("Ids")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("W@GRAD", {g.in_grad("W")})
      .set_attr("padding_idx", fwd.attr<int64_t>("padding_idx"))
      .set_attr("is_sparse", fwd.attr<bool>("is_sparse"));
}

void infer_embedding_grad(ShapeContext& ctx) {
  check_inputs(ctx);
  const VarKind kind = ctx.attr<bool>("is_sparse") ? VarKind::kSelectedRows : VarKind::kDenseTensor;
  ctx.set_output("W@GRAD", ctx.in_shape("W"), ctx.in_dtype("W"), 0, kind);
}

// With is_sparse, W@GRAD is selected rows holding the looked-up rows only.
template <typename C>
void embedding_grad(C& c) {
  if (!c.has_out("W@GRAD")) return;
  if (c.op().template attr<bool>("is_sparse")) {
    SKIFF_KERNEL_CALL(c, "embedding", kernels::embedding_grad_rows, c.in("Ids"), c.in("Out@GRAD"),
                      c.in("W").dim(0), attr<int64_t>(c, "padding_idx"), c.rows_out("W@GRAD"));
  } else {
    SKIFF_KERNEL_CALL(c, "embedding", kernels::embedding_grad, c.in("Ids"), c.in("Out@GRAD"),
                      c.in("W").shape(), attr<int64_t>(c, "padding_idx"), c.out("W@GRAD"));
  }
}

}  // namespace

void register_embedding_ops(OpRegistry& r) {
  r.add("embedding")
      .doc(
          "Out[..., :] = W[Ids[...], :]: a row of the table per id (PaddlePaddle's "
          "lookup_table_v2). Rows whose id is padding_idx come out as zeros and get no "
          "gradient. With is_sparse the gradient of W is selected rows (only the looked-up "
          "rows), which sgd and adam apply without touching the rest of the table.")
      .input("W", "the table, float32 or float64 [V, D]")
      .input("Ids", "int64 (or int32) ids in [0, V), any shape")
      .output("Out", "Ids' shape followed by D, W's dtype")
      .attr("padding_idx", int64_t{-1}, "id whose output is zero and gets no gradient; -1: none")
      .attr("is_sparse", false, "make the gradient of W selected rows instead of a dense [V, D]")
      .infer_shape(infer_embedding)
      .bind({DType::kF32, DType::kF64}, embedding<KernelContext>, embedding<EmitContext>)
      .kernel_dtype_from("W")
      .grad(embedding_grad_maker);

  r.add("embedding_grad")
      .doc(
          "W@GRAD = Out@GRAD rows summed into the rows of their ids (padding_idx left out): "
          "dense [V, D], or with is_sparse selected rows of the touched ids (ascending, each "
          "once).")
      .input("W", "the forward W (gives the table shape)")
      .input("Ids", "the forward Ids")
      .input("Out@GRAD", "gradient of Out")
      .output("W@GRAD", "gradient of W: dense, or selected rows with is_sparse")
      .attr("padding_idx", int64_t{-1}, "as in the forward op")
      .attr("is_sparse", false, "as in the forward op")
      .infer_shape(infer_embedding_grad)
      .bind({DType::kF32, DType::kF64}, embedding_grad<KernelContext>, embedding_grad<EmitContext>)
      .kernel_dtype_from("W");
}

const OpRegistrar kEmbeddingOps(register_embedding_ops);

}  // namespace skiff
