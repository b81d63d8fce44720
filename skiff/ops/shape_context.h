// Shape inference at program-build time: reads input VarDescs (dtype, shape with -1
// for unknown dims) and declares or updates the outputs' VarDescs.
//
//   void infer_same_as_x(ShapeContext& ctx) {
//     ctx.set_output("Out", ctx.in_shape("X"), ctx.in_dtype("X"));
//   }
#pragma once

#include <string>

#include "skiff/ir/program.h"

namespace skiff {

class ShapeContext {
 public:
  // `op` must belong to block `block_idx` of `program`.
  ShapeContext(Program& program, int block_idx, const OpDesc& op)
      : program_(program), block_idx_(block_idx), op_(op) {}

  const OpDesc& op() const { return op_; }
  bool has_input(const char* slot, int i = 0) const;
  bool has_output(const char* slot, int i = 0) const;
  int in_count(const char* slot) const { return static_cast<int>(op_.input(slot).size()); }
  int out_count(const char* slot) const { return static_cast<int>(op_.output(slot).size()); }
  // The declaration of input `slot`[i]; throws naming the variable if it is undeclared.
  const VarDesc& in_var(const char* slot, int i = 0) const;
  Shape in_shape(const char* slot, int i = 0) const { return in_var(slot, i).shape; }
  DType in_dtype(const char* slot, int i = 0) const { return in_var(slot, i).dtype; }
  // Declares output `slot`[i] (in this block unless an ancestor declares it) with
  // the given dtype and shape. A no-op for an absent or empty output name.
  void set_output(const char* slot, const Shape& shape, DType dtype, int i = 0,
                  VarKind kind = VarKind::kDenseTensor);
  template <typename T>
  T attr(const char* name) const {
    return op_.attr<T>(name);
  }
  template <typename T>
  const T& attr_ref(const char* name) const {
    return op_.attr_ref<T>(name);
  }

 private:
  Program& program_;
  int block_idx_;
  const OpDesc& op_;
};

// Shape functions that many ops share.
// Out: X's shape and dtype.
void infer_out_like_x(ShapeContext& ctx);
// X@GRAD: X's shape and dtype.
void infer_x_grad_like_x(ShapeContext& ctx);
// X@GRAD and Y@GRAD: the shapes and dtypes of X and Y.
void infer_x_y_grads_like_x_y(ShapeContext& ctx);

// True when two build-time shapes can describe the same tensor: equal ranks, and equal
// dims wherever both are known (-1 matches anything).
bool shapes_compatible(const Shape& a, const Shape& b);

// Runs shape inference of every op of block `block_idx` in order (declaring the
// outputs), recursing into no sub-blocks. Throws for an unknown op.
void infer_block_shapes(Program& program, int block_idx);
// Shape inference of one op of block `block_idx`; errors name the op and its source.
void infer_op_shape(Program& program, int block_idx, const OpDesc& op);

}  // namespace skiff
