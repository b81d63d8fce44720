#include "skiff/kernels/cpu/copy.h"

namespace skiff::kernels {

void copy_array(const TensorArray& src, TensorArray* dst) {
  if (&src == dst) return;
  dst->resize(src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    if (src[i].initialized()) {
      (*dst)[i].copy_from(src[i]);
    } else {
      (*dst)[i] = Tensor();
    }
  }
}

void copy_rows(const SelectedRows& src, SelectedRows* dst) {
  if (&src == dst) return;
  dst->rows = src.rows;
  dst->height = src.height;
  dst->value.copy_from(src.value);
}

void copy_variable(const Variable& src, Variable* dst) {
  if (&src == dst) return;
  if (const Tensor* t = src.tensor(); t && t->initialized()) {
    dst->mutable_tensor()->copy_from(*t);
  } else if (const TensorArray* a = src.array()) {
    copy_array(*a, dst->mutable_array());
  } else if (const SelectedRows* rows = src.selected_rows()) {
    copy_rows(*rows, dst->mutable_selected_rows());
  } else {
    fail("the source variable has no value to copy");
  }
}

}  // namespace skiff::kernels
