#include "skiff/kernels/cpu/shape_edit.h"

#include "skiff/kernels/cpu/axis.h"

namespace skiff::kernels {

Shape flatten_shape(const Shape& x, int64_t start_axis, int64_t stop_axis) {
  if (x.rank() == 0) {
    SKIFF_CHECK((start_axis == 0 || start_axis == -1) && (stop_axis == 0 || stop_axis == -1),
                "flatten: a rank-0 X takes start_axis and stop_axis 0 or -1, got ", start_axis,
                " and ", stop_axis);
    return Shape{1};
  }
  const int start = resolve_axis("flatten (start_axis)", start_axis, x);
  const int stop = resolve_axis("flatten (stop_axis)", stop_axis, x);
  SKIFF_CHECK(start <= stop, "flatten: stop_axis ", stop_axis, " comes before start_axis ",
              start_axis, " in X ", x);
  Shape out;
  for (int d = 0; d < start; ++d) out.push_back(x[d]);
  int64_t merged = 1;
  for (int d = start; d <= stop; ++d) merged = (merged < 0 || x[d] < 0) ? -1 : merged * x[d];
  out.push_back(merged);
  for (int d = stop + 1; d < x.rank(); ++d) out.push_back(x[d]);
  return out;
}

Shape squeeze_shape(const Shape& x, const std::vector<int64_t>& axes) {
  bool drop[Shape::kMaxRank] = {};
  if (axes.empty()) {
    for (int d = 0; d < x.rank(); ++d) drop[d] = x[d] == 1;
  }
  for (int64_t a : axes) {
    const int d = resolve_axis("squeeze", a, x);
    drop[d] = x[d] == 1 || x[d] == -1;
  }
  Shape out;
  for (int d = 0; d < x.rank(); ++d)
    if (!drop[d]) out.push_back(x[d]);
  return out;
}

Shape unsqueeze_shape(const Shape& x, const std::vector<int64_t>& axes) {
  SKIFF_CHECK(x.rank() + axes.size() <= static_cast<size_t>(Shape::kMaxRank), "unsqueeze: X ", x,
              " with axes ", list_str(axes), " would exceed rank ", Shape::kMaxRank);
  std::vector<int64_t> dims = x.vec();
  for (int64_t a : axes) {
    const int span = static_cast<int>(dims.size()) + 1;
    SKIFF_CHECK(a >= -span && a < span, "unsqueeze: axis ", a, " is out of range for X ", x,
                " with axes ", list_str(axes), " (shape so far ", Shape(dims), ")");
    dims.insert(dims.begin() + (a < 0 ? a + span : a), 1);
  }
  return Shape(dims);
}

}  // namespace skiff::kernels
