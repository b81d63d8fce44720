// Whole-tensor ops: assign (copy), cast, increment, and sum (gradient accumulation).
#include <algorithm>
#include <vector>

#include "skiff/kernels/cpu/accumulate.h"
#include "skiff/kernels/cpu/cast.h"
#include "skiff/kernels/cpu/copy.h"
#include "skiff/kernels/cpu/selected_rows.h"
#include "skiff/kernels/cpu/tensor_array.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

void infer_like_x(ShapeContext& ctx) {
  const VarDesc& x = ctx.in_var("X");
  ctx.set_output("Out", x.shape, x.dtype, 0, x.kind);
}

// ---- assign ----

void assign_kernel(KernelContext& ctx) {
  const Variable* x = ctx.in_var("X");
  Variable* out = ctx.out_var("Out");
  if (x == out) return;
  if (x && (x->is_array() || x->is_selected_rows())) {
    kernels::copy_variable(*x, out);
    return;
  }
  ctx.out("Out")->copy_from(ctx.in("X"));
}

void assign_grad_maker(GradContext& g) {
  std::string x_grad = g.in_grad("X");
  if (x_grad.empty()) return;
  g.add("assign").set_input("X", {g.out_grad("Out")}).set_output("Out", {x_grad});
}

// ---- cast ----

void infer_cast(ShapeContext& ctx) {
  ctx.set_output("Out", ctx.in_shape("X"), dtype_from_name(ctx.attr<std::string>("out_dtype")));
}

template <typename C>
void cast(C& c) {
  SKIFF_KERNEL_CALL(c, "cast", kernels::cast, c.in("X"), dtype_attr(c, "out_dtype"), c.out("Out"));
}

template <typename C>
void cast_grad(C& c) {
  if (!c.has_out("X@GRAD")) return;
  SKIFF_KERNEL_CALL(c, "cast", kernels::cast_grad, c.in("X"), c.in("Out@GRAD"), c.out("X@GRAD"));
}

void cast_grad_maker(GradContext& g) {
  std::string x_grad = g.in_grad("X");
  if (x_grad.empty()) return;
  g.add("cast_grad")
      .set_input("X", {g.fwd().first_input("X")})
      .set_input("Out@GRAD", {g.out_grad("Out")})
      .set_output("X@GRAD", {x_grad});
}

// ---- increment ----

void infer_increment(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.in_dtype("X") != DType::kBool, "increment takes a numeric tensor, got bool");
  infer_like_x(ctx);
}

template <typename C>
void increment(C& c) {
  SKIFF_KERNEL_CALL(c, "cast", kernels::increment, c.in("X"), attr<double>(c, "step"),
                    c.out("Out"));
}

// ---- sum ----

// Selected rows add up to selected rows (their entries concatenated); mixed with dense
// tensors they add into a dense tensor.
void infer_sum(ShapeContext& ctx) {
  std::vector<int> present;
  bool any_sparse = false, any_dense = false;
  for (int i = 0; i < ctx.in_count("X"); ++i) {
    if (!ctx.has_input("X", i)) continue;
    present.push_back(i);
    any_sparse = any_sparse || ctx.in_var("X", i).kind == VarKind::kSelectedRows;
    any_dense = any_dense || ctx.in_var("X", i).kind == VarKind::kDenseTensor;
  }
  SKIFF_CHECK(!present.empty(), "sum needs at least one input in X");
  const bool mixed = any_sparse && any_dense;
  const VarDesc& first = ctx.in_var("X", present[0]);
  const VarKind kind = mixed ? VarKind::kDenseTensor : first.kind;
  for (int i : present) {
    const VarDesc& x = ctx.in_var("X", i);
    const bool kind_ok =
        x.kind == first.kind ||
        (mixed && (x.kind == VarKind::kSelectedRows || x.kind == VarKind::kDenseTensor));
    SKIFF_CHECK(x.dtype == first.dtype && kind_ok, "sum: X[", i, "] '", x.name, "' is ",
                var_kind_name(x.kind), " ", dtype_name(x.dtype), " but X[", present[0], "] is ",
                var_kind_name(first.kind), " ", dtype_name(first.dtype));
  }
  // The shape: that of the dense inputs, which must agree; selected rows declare the
  // dense shape they stand for, arrays their entries'.
  Shape shape = first.shape;
  int shape_from = -1;
  for (int i : present) {
    const VarDesc& x = ctx.in_var("X", i);
    if (kind != VarKind::kDenseTensor || x.kind != VarKind::kDenseTensor) continue;
    if (shape_from < 0) {
      shape = x.shape;
      shape_from = i;
      continue;
    }
    SKIFF_CHECK(x.shape.rank() == shape.rank(), "sum: X[", i, "] has shape ", x.shape, ", X[",
                shape_from, "] has ", shape);
    for (int d = 0; d < shape.rank(); ++d) {
      if (shape[d] < 0) {
        shape[d] = x.shape[d];
      } else {
        SKIFF_CHECK(x.shape[d] < 0 || x.shape[d] == shape[d], "sum: X[", i, "] has shape ", x.shape,
                    ", which differs from ", shape);
      }
    }
  }
  ctx.set_output("Out", shape, first.dtype, 0, kind);
}

void check_summable(const Variable* v, int i) {
  SKIFF_CHECK(!v || v->empty() || v->is_tensor() || v->is_array(), "sum: X[", i,
              "] holds selected rows or step scopes; tensor arrays add only to tensor arrays");
}

// Adds `src` into acc, or copies it when acc holds nothing yet.
void accumulate_into(const Tensor& src, Tensor* acc, bool* have) {
  if (*have) {
    kernels::add_inplace(src, acc);
  } else {
    acc->copy_from(src);
    *have = true;
  }
}

// bfloat16 tensors are summed in float32 and rounded once (added one by one in bfloat16,
// 256 + 1 + 1 would stay 256); false when X is not bfloat16.
bool sum_bfloat16(KernelContext& ctx, Variable* out) {
  const int n = ctx.in_count("X");
  int first = 0;
  while (first < n && !ctx.has_in("X", first)) ++first;
  if (first == n || ctx.in("X", first).dtype() != DType::kBF16) return false;
  Tensor sum;
  bool have = false;
  for (int i = first; i < n; ++i) {
    if (!ctx.has_in("X", i)) continue;
    Tensor widened;
    kernels::cast(ctx.in("X", i), DType::kF32, &widened);
    accumulate_into(widened, &sum, &have);
  }
  kernels::cast(sum, DType::kBF16, out->mutable_tensor());
  return true;
}

void sum_arrays(KernelContext& ctx, Variable* out) {
  std::vector<const TensorArray*> terms;
  for (int i = 0; i < ctx.in_count("X"); ++i) {
    const Variable* v = ctx.in_var("X", i);
    check_summable(v, i);
    if (!v || v->empty() || (v->is_tensor() && !v->tensor()->initialized())) continue;
    SKIFF_CHECK(v->is_array(), "sum: X[", i, "] is a dense tensor but other inputs are arrays");
    terms.push_back(v->array());
  }
  kernels::sum_arrays(terms, out->mutable_array());
}

// Selected rows alone: their entries concatenated (repeated rows add up when applied).
// With dense tensors: the dense sum with each selected row added into its row.
void sum_selected_rows(KernelContext& ctx, Variable* out) {
  const int n = ctx.in_count("X");
  std::vector<const SelectedRows*> sparse;
  std::vector<int> dense;
  bool out_is_input = false;
  for (int i = 0; i < n; ++i) {
    const Variable* v = ctx.in_var("X", i);
    out_is_input = out_is_input || v == out;
    if (!v || v->empty()) continue;
    if (v->is_selected_rows()) {
      sparse.push_back(v->selected_rows());
    } else if (v->is_tensor()) {
      if (v->tensor()->initialized()) dense.push_back(i);
    } else {
      fail("sum: X[", i, "] holds a tensor array or step scopes; it does not add to selected rows");
    }
  }
  if (dense.empty()) {
    SelectedRows result;
    kernels::concat_rows(sparse, &result);
    *out->mutable_selected_rows() = std::move(result);
    return;
  }
  Tensor local;
  Tensor* acc = out_is_input ? &local : out->mutable_tensor();
  acc->copy_from(ctx.in("X", dense[0]));
  for (size_t k = 1; k < dense.size(); ++k) kernels::add_inplace(ctx.in("X", dense[k]), acc);
  for (const SelectedRows* rows : sparse) kernels::scatter_add_rows(*rows, acc);
  if (out_is_input) out->set(std::move(local));
}

void sum_kernel(KernelContext& ctx) {
  Variable* out = ctx.out_var("Out");
  const int n = ctx.in_count("X");
  for (int i = 0; i < n; ++i) {
    const Variable* v = ctx.in_var("X", i);
    if (v && v->is_array()) {
      sum_arrays(ctx, out);
      return;
    }
    if (v && v->is_selected_rows()) {
      sum_selected_rows(ctx, out);
      return;
    }
  }
  int base = -1;
  for (int i = 0; i < n; ++i) {
    check_summable(ctx.in_var("X", i), i);
    if (ctx.in_var("X", i) == out) base = i;
  }
  if (sum_bfloat16(ctx, out)) return;
  Tensor* acc = out->mutable_tensor();
  bool have = base >= 0 && acc->initialized();
  for (int i = 0; i < n; ++i) {
    if (i == base || !ctx.has_in("X", i)) continue;
    accumulate_into(ctx.in("X", i), acc, &have);
  }
  if (!have) out->clear();
}

void sum_grad_maker(GradContext& g) {
  std::vector<std::string> x_grads = g.in_grads("X");
  for (const std::string& x_grad : x_grads) {
    if (x_grad.empty()) continue;
    g.add("assign").set_input("X", {g.out_grad("Out")}).set_output("Out", {x_grad});
  }
}

}  // namespace

void register_tensor_ops(OpRegistry& r) {
  r.add("assign")
      .doc("Out = a copy of X (a tensor, a tensor array or selected rows).")
      .input("X", "the value to copy")
      .output("Out", "the copy (may name X)")
      .infer_shape(infer_like_x)
      .kernel(kDataDTypes, assign_kernel)
      .kernel({DType::kBF16}, assign_kernel)
      .grad(assign_grad_maker);

  r.add("cast")
      .doc(
          "Out = X converted to out_dtype elementwise (to bool: X != 0; to bfloat16: rounded "
          "to nearest, ties to even; from bfloat16: exact; a floating value to int8, uint8 or "
          "int16: truncated toward zero and saturated at the type's range, NaN to 0; "
          "integers to narrower integers wrap as in C; a real value to complex: (x, 0); a "
          "complex value to a real dtype: its real part converted).")
      .input("X", "any dtype")
      .output("Out", "same shape as X, dtype out_dtype")
      .required_attr("out_dtype", AttrType::kString, "numpy name of Out's dtype")
      .infer_shape(infer_cast)
      .bind({DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool, DType::kBF16,
             DType::kI8, DType::kU8, DType::kI16, DType::kC64, DType::kC128},
            cast<KernelContext>, cast<EmitContext>)
      .kernel_dtype_from("X")
      .grad(cast_grad_maker);

  r.add("cast_grad")
      .doc("X@GRAD = Out@GRAD cast back to X's (floating) dtype.")
      .input("X", "the forward op's X (gives the dtype)")
      .input("Out@GRAD", "gradient of Out")
      .output("X@GRAD", "gradient of X")
      .infer_shape(infer_x_grad_like_x)
      .bind({DType::kF32, DType::kF64, DType::kBF16, DType::kC64, DType::kC128},
            cast_grad<KernelContext>, cast_grad<EmitContext>)
      .kernel_dtype_from("Out@GRAD");

  r.add("increment")
      .doc("Out = X + step elementwise; Out may name X (a loop counter). Not differentiable.")
      .input("X", "a numeric tensor")
      .output("Out", "same shape and dtype as X")
      .attr("step", 1.0, "the amount added (integral for integer dtypes)")
      .infer_shape(infer_increment)
      .bind({DType::kF32, DType::kF64, DType::kI32, DType::kI64}, increment<KernelContext>,
            increment<EmitContext>)
      .writes_in_place();

  r.add("sum")
      .doc(
          "Out = the elementwise sum of the X that hold a value (same shape and dtype); "
          "for tensor arrays, entry by entry. Selected rows add up to selected rows holding "
          "all their entries; with dense tensors, to a dense tensor. Accumulates gradients; "
          "Out may name an X.")
      .inputs("X", "tensors, selected rows or tensor arrays; inputs without a value are skipped")
      .output("Out", "the sum")
      .infer_shape(infer_sum)
      .kernel({DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBF16, DType::kC64,
               DType::kC128},
              sum_kernel)
      .grad(sum_grad_maker);
}

const OpRegistrar kTensorOps(register_tensor_ops);

}  // namespace skiff
