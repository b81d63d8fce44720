#include "skiff/ops/shape_context.h"

#include "skiff/ops/op_error.h"
#include "skiff/ops/registry.h"

namespace skiff {

bool ShapeContext::has_input(const char* slot, int i) const {
  const auto& names = op_.input(slot);
  return i < static_cast<int>(names.size()) && !names[i].empty();
}

bool ShapeContext::has_output(const char* slot, int i) const {
  const auto& names = op_.output(slot);
  return i < static_cast<int>(names.size()) && !names[i].empty();
}

const VarDesc& ShapeContext::in_var(const char* slot, int i) const {
  const auto& names = op_.input(slot);
  SKIFF_CHECK(i < static_cast<int>(names.size()) && !names[i].empty(), "missing input ", slot);
  const VarDesc* v = program_.find_var(block_idx_, names[i]);
  SKIFF_CHECK(v, "input ", slot, " names variable '", names[i],
              "', which is not declared in this block or its ancestors");
  return *v;
}

void ShapeContext::set_output(const char* slot, const Shape& shape, DType dtype, int i,
                              VarKind kind) {
  if (!has_output(slot, i)) return;
  const std::string& name = op_.output(slot)[i];
  VarDesc* v = program_.find_var(block_idx_, name);
  if (!v) v = &program_.block(block_idx_).add_var(VarDesc(name, dtype, shape, kind));
  v->dtype = dtype;
  v->shape = shape;
  v->kind = kind;
}

void infer_op_shape(Program& program, int block_idx, const OpDesc& op) {
  const OpInfo& info = OpRegistry::global().get(op.type);
  if (!info.infer_shape) return;
  ShapeContext ctx(program, block_idx, op);
  try {
    info.infer_shape(ctx);
  } catch (const Error& e) {
    e.rethrow_with(describe_op_error(program, block_idx, op, e.what()));
  }
}

void infer_out_like_x(ShapeContext& ctx) {
  ctx.set_output("Out", ctx.in_shape("X"), ctx.in_dtype("X"));
}

void infer_x_grad_like_x(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("X"), ctx.in_dtype("X"));
}

void infer_x_y_grads_like_x_y(ShapeContext& ctx) {
  ctx.set_output("X@GRAD", ctx.in_shape("X"), ctx.in_dtype("X"));
  ctx.set_output("Y@GRAD", ctx.in_shape("Y"), ctx.in_dtype("Y"));
}

bool shapes_compatible(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i)
    if (a[i] >= 0 && b[i] >= 0 && a[i] != b[i]) return false;
  return true;
}

void infer_block_shapes(Program& program, int block_idx) {
  // Copy: shape inference may add vars to the block but never ops.
  const std::vector<OpDesc> ops = program.block(block_idx).ops;
  for (const OpDesc& op : ops) infer_op_shape(program, block_idx, op);
}

}  // namespace skiff
