// Deep copies of what a variable holds (assign, select_input, array gradients).
//
//   kernels::copy_variable(*src_var, dst_var);   // tensor, tensor array or selected rows
#pragma once

#include "skiff/core/variable.h"

namespace skiff::kernels {

// dst = src entry by entry (same length); entries of src without a value come out
// empty. Reuses dst's entry storage where it can.
void copy_array(const TensorArray& src, TensorArray* dst);
// dst = a copy of src's rows, height and value (a no-op when they are the same).
void copy_rows(const SelectedRows& src, SelectedRows* dst);
// Makes dst hold a copy of src's tensor, tensor array or selected rows (a no-op when
// they are the same variable). Throws skiff::Error when src holds no value.
void copy_variable(const Variable& src, Variable* dst);

}  // namespace skiff::kernels
