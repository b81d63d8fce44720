// Axis arguments of shape and indexing kernels: negative axes count from the back,
// and errors name the op, the axis and the shape it was applied to.
//
//   int a = resolve_axis("concat", -1, x.shape());             // rank 3 -> 2
//   int b = resolve_axis("stack", -1, x.shape(), x.rank() + 1); // a new axis: -1 -> 3
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "skiff/core/shape.h"

namespace skiff::kernels {

// The axis in [0, span) that `axis` names in `shape` (span: its rank unless given;
// negative axes add span). Throws skiff::Error naming `op`, the axis and the shape.
inline int resolve_axis(const char* op, int64_t axis, const Shape& shape, int span = -1) {
  if (span < 0) span = shape.rank();
  SKIFF_CHECK(axis >= -span && axis < span, op, ": axis ", axis, " is out of range for shape ",
              shape, " (valid: [", -span, ", ", span - 1, "])");
  return static_cast<int>(axis < 0 ? axis + span : axis);
}

// "[1, -2]": a list attr as error messages show it.
inline std::string list_str(const std::vector<int64_t>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

// Product of dims [begin, end) of a known shape.
inline int64_t dims_product(const Shape& shape, int begin, int end) {
  int64_t n = 1;
  for (int d = begin; d < end; ++d) n *= shape[d];
  return n;
}

}  // namespace skiff::kernels
