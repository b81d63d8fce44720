#include "skiff/eager/var_type.h"

namespace skiff::eager {

VarDesc describe_value(const std::string& name, const Variable& value) {
  if (const Tensor* t = value.tensor()) return VarDesc(name, t->dtype(), t->shape());
  if (const SelectedRows* rows = value.selected_rows()) {
    Shape shape = rows->value.shape();
    if (shape.rank() > 0) shape[0] = rows->height;
    return VarDesc(name, rows->value.dtype(), shape, VarKind::kSelectedRows);
  }
  if (const TensorArray* array = value.array()) {
    if (array->empty()) return VarDesc(name, DType::kF32, Shape{}, VarKind::kTensorArray);
    return VarDesc(name, array->front().dtype(), array->front().shape(), VarKind::kTensorArray);
  }
  return VarDesc(name, DType::kF32, Shape{});
}

void append_type_key(const Variable& value, std::string* key) {
  DType dtype = DType::kF32;
  char kind = 'e';
  if (const Tensor* t = value.tensor()) {
    kind = 't';
    dtype = t->dtype();
  } else if (const SelectedRows* rows = value.selected_rows()) {
    kind = 's';
    dtype = rows->value.dtype();
  } else if (const TensorArray* array = value.array()) {
    kind = 'a';
    if (!array->empty()) dtype = array->front().dtype();
  }
  key->push_back(kind);
  key->push_back(static_cast<char>('0' + static_cast<int>(dtype)));
}

}  // namespace skiff::eager
