#include "skiff/kernels/cpu/reshape.h"

namespace skiff::kernels {
namespace {

std::string spec_str(const std::vector<int64_t>& spec) {
  std::string s = "[";
  for (size_t i = 0; i < spec.size(); ++i) s += (i ? ", " : "") + std::to_string(spec[i]);
  return s + "]";
}

}  // namespace

Shape reshape_shape(const Shape& x, const std::vector<int64_t>& spec) {
  SKIFF_CHECK(spec.size() <= static_cast<size_t>(Shape::kMaxRank), "reshape: shape ",
              spec_str(spec), " has more than ", Shape::kMaxRank, " dims");
  // Dims copied by a 0 appear on both sides and cancel: the rest of X must hold as many
  // elements as the rest of the result.
  Shape out;
  int inferred = -1;
  int64_t spec_rest = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == 0) {
      SKIFF_CHECK(static_cast<int>(i) < x.rank(), "reshape: shape ", spec_str(spec), " copies dim ",
                  i, " (a 0) but X ", x, " has rank ", x.rank());
      d = x[static_cast<int>(i)];
    } else if (d == -1) {
      SKIFF_CHECK(inferred < 0, "reshape: shape ", spec_str(spec), " has more than one -1");
      inferred = static_cast<int>(i);
    } else {
      SKIFF_CHECK(d > 0, "reshape: shape ", spec_str(spec), " has the invalid dim ", d,
                  " (dims are > 0, 0 to copy X's dim, or one -1 to infer)");
      spec_rest *= d;
    }
    out.push_back(d);
  }
  bool x_rest_known = true;
  int64_t x_rest = 1;
  for (int d = 0; d < x.rank(); ++d) {
    if (d < static_cast<int>(spec.size()) && spec[d] == 0) continue;
    if (x[d] < 0) {
      x_rest_known = false;
    } else {
      x_rest *= x[d];
    }
  }
  if (!x_rest_known) return out;  // an inferred dim stays -1
  if (inferred >= 0) {
    SKIFF_CHECK(spec_rest > 0 && x_rest % spec_rest == 0, "reshape: cannot reshape X ", x,
                " to shape ", spec_str(spec), ": ", x_rest, " elements do not split into dims of ",
                spec_rest);
    out[inferred] = x_rest / spec_rest;
  } else {
    SKIFF_CHECK(spec_rest == x_rest, "reshape: cannot reshape X ", x, " to shape ", spec_str(spec),
                " (", x_rest, " elements vs ", spec_rest, ")");
  }
  return out;
}

void reshape(const Tensor& x, const Shape& shape, Tensor* out) {
  SKIFF_CHECK(shape.known() && shape.numel() == x.numel(), "reshape: cannot view ", x.type_str(),
              " as ", shape);
  Tensor view = x;
  view.reshape(shape);
  *out = view;
}

void shape_of(const Tensor& x, Tensor* out) {
  const int rank = x.rank();
  out->resize(Shape{rank}, DType::kI64);
  int64_t* dims = out->data<int64_t>();
  for (int d = 0; d < rank; ++d) dims[d] = x.shape()[d];
}

}  // namespace skiff::kernels
