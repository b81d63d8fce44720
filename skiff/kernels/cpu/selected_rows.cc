#include "skiff/kernels/cpu/selected_rows.h"

#include <algorithm>
#include <cstring>

#include "skiff/kernels/cpu/eigen.h"
#include "skiff/kernels/cpu/row_groups.h"

namespace skiff::kernels {

namespace {

template <typename T>
using RowMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstRowMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// The value's shape with the first dim set to `n`.
Shape with_rows(const Tensor& value, int64_t n) {
  Shape s = value.shape();
  if (s.rank() == 0) return Shape{n, 1};
  s[0] = n;
  return s;
}

}  // namespace

int64_t row_width(const SelectedRows& rows) {
  const int64_t n = static_cast<int64_t>(rows.rows.size());
  if (n == 0) {
    const Tensor& v = rows.value;
    if (!v.initialized() || v.rank() == 0) return 0;
    int64_t w = 1;
    for (int d = 1; d < v.rank(); ++d) w *= v.dim(d);
    return w;
  }
  SKIFF_CHECK(rows.value.initialized() && rows.value.rank() >= 1 && rows.value.dim(0) == n,
              "selected rows: ", n, " rows but the value is ", rows.value.type_str());
  return rows.value.numel() / n;
}

void merge_rows(const SelectedRows& in, SelectedRows* out) {
  SKIFF_CHECK(out != &in, "merge_rows: the output must differ from the input");
  const int64_t width = row_width(in);
  RowGroups groups;
  group_rows(in.rows.data(), static_cast<int64_t>(in.rows.size()), /*skip=*/-1, &out->rows,
             &groups);
  out->height = in.height;
  if (!in.value.initialized()) {
    out->value = Tensor();
    return;
  }
  out->value = Tensor::empty(with_rows(in.value, groups.count()), in.value.dtype());
  sum_grouped_rows(groups, in.value, width, &out->value);
}

void scatter_add_rows(const SelectedRows& rows, Tensor* dense) {
  SKIFF_CHECK(dense->initialized() && dense->rank() >= 1, "scatter_add_rows: the dense tensor ",
              dense->type_str(), " has no rows");
  if (rows.rows.empty()) return;
  const int64_t height = dense->dim(0);
  const int64_t width = height > 0 ? dense->numel() / height : 0;
  SKIFF_CHECK(row_width(rows) == width && rows.value.dtype() == dense->dtype(),
              "selected rows of value ", rows.value.type_str(), " do not fit the dense tensor ",
              dense->type_str());
  dense->resize(dense->shape(), dense->dtype());  // own the storage before writing
  SKIFF_DISPATCH_FLOATING(dense->dtype(), T, {
    const T* src = rows.value.data<T>();
    T* dst = dense->data<T>();
    for (size_t i = 0; i < rows.rows.size(); ++i) {
      const int64_t r = rows.rows[i];
      SKIFF_CHECK(r >= 0 && r < height, "selected row ", r, " is outside the dense tensor ",
                  dense->type_str());
      RowMap<T>(dst + r * width, width) += ConstRowMap<T>(src + i * width, width);
    }
  });
}

void concat_rows(const std::vector<const SelectedRows*>& parts, SelectedRows* out) {
  SKIFF_CHECK(!parts.empty(), "concat_rows: no parts");
  const int64_t height = parts[0]->height;
  const Tensor* like = nullptr;  // the first part with rows: gives row shape and dtype
  int64_t total = 0;
  for (const SelectedRows* p : parts) {
    SKIFF_CHECK(p->height == height, "selected rows of heights ", height, " and ", p->height,
                " cannot be added");
    if (p->rows.empty()) continue;
    row_width(*p);  // checks that the value holds one row per entry
    if (!like) like = &p->value;
    SKIFF_CHECK(p->value.dtype() == like->dtype() &&
                    p->value.numel() / p->value.dim(0) == like->numel() / like->dim(0),
                "selected rows of values ", like->type_str(), " and ", p->value.type_str(),
                " cannot be added");
    total += static_cast<int64_t>(p->rows.size());
  }
  if (!like) {  // no entries: keep an empty value of the parts' row shape if one has it
    for (const SelectedRows* p : parts)
      if (!like && p->value.initialized() && p->value.rank() >= 1) like = &p->value;
  }
  std::vector<int64_t> rows;
  rows.reserve(static_cast<size_t>(total));
  Tensor value;
  if (like) {
    value = Tensor::empty(with_rows(*like, total), like->dtype());
    char* dst = static_cast<char*>(value.raw_data());
    for (const SelectedRows* p : parts) {
      if (p->rows.empty()) continue;
      rows.insert(rows.end(), p->rows.begin(), p->rows.end());
      std::memcpy(dst, p->value.raw_data(), p->value.nbytes());
      dst += p->value.nbytes();
    }
  }
  out->height = height;
  out->rows = std::move(rows);
  out->value = std::move(value);
}

}  // namespace skiff::kernels
