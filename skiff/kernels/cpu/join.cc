#include "skiff/kernels/cpu/join.h"

#include <algorithm>
#include <cstring>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/axis.h"
#include "skiff/kernels/cpu/input_handle.h"

namespace skiff::kernels {
namespace {

// `outer` rows of a whole tensor, row r being part i's row r (widths[i] elements of
// `elem` bytes) for each part in turn. Gathers the parts into the whole, or with
// `to_parts` cuts the whole into them (a null part is skipped).
struct RowLayout {
  int64_t outer = 1;
  size_t elem = 1;
  std::vector<int64_t> widths;

  int64_t row_width() const {
    int64_t n = 0;
    for (int64_t w : widths) n += w;
    return n;
  }
  void move(char* whole, const std::vector<char*>& parts, bool to_parts) const {
    const int64_t row = row_width();
    if (outer == 0 || row == 0) return;
    parallel_for(outer, std::max<int64_t>(1, kParallelGrain / row), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        char* w = whole + static_cast<size_t>(r * row) * elem;
        for (size_t i = 0; i < widths.size(); ++i) {
          const size_t n = static_cast<size_t>(widths[i]) * elem;
          if (parts[i] && n) {
            char* p = parts[i] + r * n;
            to_parts ? std::memcpy(p, w, n) : std::memcpy(w, p, n);
          }
          w += n;
        }
      }
    });
  }
};

void check_one_dtype(const char* op, const std::vector<Tensor>& xs) {
  SKIFF_CHECK(!xs.empty(), op, ": X holds no tensors");
  for (size_t i = 1; i < xs.size(); ++i) {
    SKIFF_CHECK(xs[i].dtype() == xs[0].dtype(), op, ": X[", i, "] is ", xs[i].type_str(),
                " but X[0] is ", xs[0].type_str());
  }
}

std::vector<Shape> shapes_of(const std::vector<Tensor>& xs) {
  std::vector<Shape> out;
  out.reserve(xs.size());
  for (const Tensor& x : xs) out.push_back(x.shape());
  return out;
}

// Gathers xs (all read as `widths` elements per row of `layout`) into out.
void join(const std::vector<Tensor>& xs, RowLayout layout, const Shape& out_shape, Tensor* out) {
  std::vector<char*> parts;
  parts.reserve(xs.size());
  for (const Tensor& x : xs)
    parts.push_back(const_cast<char*>(static_cast<const char*>(x.raw_data())));
  layout.elem = dtype_size(xs[0].dtype());
  out->resize(out_shape, xs[0].dtype());
  layout.move(static_cast<char*>(out->raw_data()), parts, false);
}

}  // namespace

Shape concat_shape(const std::vector<Shape>& xs, int64_t axis) {
  SKIFF_CHECK(!xs.empty(), "concat: X holds no tensors");
  const int a = resolve_axis("concat", axis, xs[0]);
  Shape out = xs[0];
  for (size_t i = 1; i < xs.size(); ++i) {
    const Shape& x = xs[i];
    SKIFF_CHECK(x.rank() == out.rank(), "concat: X[", i, "] has shape ", x, " but X[0] has ", xs[0],
                "; ranks must match");
    for (int d = 0; d < out.rank(); ++d) {
      if (d == a) {
        out[d] = (out[d] < 0 || x[d] < 0) ? -1 : out[d] + x[d];
      } else if (out[d] < 0) {
        out[d] = x[d];
      } else {
        SKIFF_CHECK(x[d] < 0 || x[d] == out[d], "concat: X[", i, "] has shape ", x,
                    " but X[0] has ", xs[0], "; dims other than axis ", a, " must match");
      }
    }
  }
  return out;
}

void concat(const std::vector<Tensor>& xs, int64_t axis, Tensor* out) {
  check_one_dtype("concat", xs);
  const Shape out_shape = concat_shape(shapes_of(xs), axis);
  const int a = resolve_axis("concat", axis, out_shape);
  const int64_t inner = dims_product(out_shape, a + 1, out_shape.rank());
  RowLayout layout;
  layout.outer = dims_product(out_shape, 0, a);
  for (const Tensor& x : xs) layout.widths.push_back(x.dim(a) * inner);
  join(xs, layout, out_shape, out);
}

std::vector<int64_t> concat_sizes(const std::vector<Tensor>& xs, int64_t axis) {
  std::vector<int64_t> sizes;
  sizes.reserve(xs.size());
  for (const Tensor& x : xs) sizes.push_back(x.dim(resolve_axis("concat_grad", axis, x.shape())));
  return sizes;
}

std::vector<int64_t> split_sizes(const Shape& x, int64_t axis, int64_t num,
                                 const std::vector<int64_t>& sections) {
  const int a = resolve_axis("split", axis, x);
  const int64_t dim = x[a];
  if (num > 0) {
    SKIFF_CHECK(dim < 0 || dim % num == 0, "split: axis ", a, " of X ", x, " (size ", dim,
                ") does not split into ", num, " equal parts");
    return std::vector<int64_t>(num, dim < 0 ? -1 : dim / num);
  }
  SKIFF_CHECK(num == 0 && !sections.empty(),
              "split: needs num > 0 or a non-empty sections, got num ", num, " and sections ",
              list_str(sections));
  std::vector<int64_t> sizes = sections;
  int rest = -1;
  int64_t known = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      SKIFF_CHECK(rest < 0, "split: sections ", list_str(sections), " has more than one -1");
      rest = static_cast<int>(i);
    } else {
      SKIFF_CHECK(sizes[i] >= 0, "split: sections ", list_str(sections), " has the invalid size ",
                  sizes[i]);
      known += sizes[i];
    }
  }
  if (dim < 0) return sizes;
  if (rest >= 0) {
    SKIFF_CHECK(known <= dim, "split: sections ", list_str(sections), " add up to more than axis ",
                a, " of X ", x);
    sizes[rest] = dim - known;
  } else {
    SKIFF_CHECK(known == dim, "split: sections ", list_str(sections), " add up to ", known,
                " but axis ", a, " of X ", x, " has ", dim);
  }
  return sizes;
}

void split(const Tensor& x, int64_t axis, const std::vector<int64_t>& sizes,
           const std::vector<Tensor*>& outs) {
  SKIFF_CHECK(sizes.size() == outs.size(), "split: ", sizes.size(), " sizes for ", outs.size(),
              " outputs");
  const Shape& shape = x.shape();
  const int a = resolve_axis("split", axis, shape);
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  SKIFF_CHECK(total == shape[a], "split: sizes ", list_str(sizes), " do not add up to axis ", a,
              " of X ", shape);
  const Tensor src = input_handle(x);
  const int64_t inner = dims_product(shape, a + 1, shape.rank());
  RowLayout layout;
  layout.outer = dims_product(shape, 0, a);
  layout.elem = dtype_size(x.dtype());
  std::vector<char*> parts;
  for (size_t i = 0; i < outs.size(); ++i) {
    layout.widths.push_back(sizes[i] * inner);
    if (!outs[i]) {
      parts.push_back(nullptr);
      continue;
    }
    Shape part = shape;
    part[a] = sizes[i];
    outs[i]->resize(part, x.dtype());
    parts.push_back(static_cast<char*>(outs[i]->raw_data()));
  }
  layout.move(const_cast<char*>(static_cast<const char*>(src.raw_data())), parts, true);
}

Shape stack_shape(const std::vector<Shape>& xs, int64_t axis) {
  SKIFF_CHECK(!xs.empty(), "stack: X holds no tensors");
  Shape common = xs[0];
  for (size_t i = 1; i < xs.size(); ++i) {
    bool same = xs[i].rank() == common.rank();
    for (int d = 0; same && d < common.rank(); ++d) {
      if (common[d] < 0) common[d] = xs[i][d];
      same = xs[i][d] < 0 || xs[i][d] == common[d];
    }
    SKIFF_CHECK(same, "stack: X[", i, "] has shape ", xs[i], " but X[0] has ", xs[0],
                "; all must match");
  }
  SKIFF_CHECK(common.rank() < Shape::kMaxRank, "stack: X has rank ", common.rank(),
              "; the result would exceed rank ", Shape::kMaxRank);
  const int a = resolve_axis("stack", axis, common, common.rank() + 1);
  std::vector<int64_t> dims = common.vec();
  dims.insert(dims.begin() + a, static_cast<int64_t>(xs.size()));
  return Shape(dims);
}

void stack(const std::vector<Tensor>& xs, int64_t axis, Tensor* out) {
  check_one_dtype("stack", xs);
  const Shape out_shape = stack_shape(shapes_of(xs), axis);
  const int a = resolve_axis("stack", axis, xs[0].shape(), xs[0].rank() + 1);
  RowLayout layout;
  layout.outer = dims_product(out_shape, 0, a);
  layout.widths.assign(xs.size(), dims_product(out_shape, a + 1, out_shape.rank()));
  join(xs, layout, out_shape, out);
}

void unstack(const Tensor& y, int64_t axis, const std::vector<Tensor*>& outs) {
  const Shape& shape = y.shape();
  const int a = resolve_axis("unstack", axis, shape);
  SKIFF_CHECK(shape[a] == static_cast<int64_t>(outs.size()), "unstack: axis ", a, " of ",
              y.type_str(), " does not hold ", outs.size(), " entries");
  const Tensor src = input_handle(y);
  std::vector<int64_t> dims = shape.vec();
  dims.erase(dims.begin() + a);
  RowLayout layout;
  layout.outer = dims_product(shape, 0, a);
  layout.elem = dtype_size(y.dtype());
  layout.widths.assign(outs.size(), dims_product(shape, a + 1, shape.rank()));
  std::vector<char*> parts;
  for (Tensor* out : outs) {
    if (out) out->resize(Shape(dims), y.dtype());
    parts.push_back(out ? static_cast<char*>(out->raw_data()) : nullptr);
  }
  layout.move(const_cast<char*>(static_cast<const char*>(src.raw_data())), parts, true);
}

}  // namespace skiff::kernels
