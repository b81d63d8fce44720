#include "skiff/kernels/cpu/embedding.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/eigen.h"
#include "skiff/kernels/cpu/row_groups.h"

namespace skiff::kernels {

namespace {

template <typename T>
using RowMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstRowMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Ids ahead whose table row a lookup prefetches: rows of a large table are random
// reads that miss every cache.
constexpr int64_t kRowPrefetch = 8;

void check_table(const Shape& table) {
  SKIFF_CHECK(table.rank() == 2, "embedding: the table W must be [V, D], got shape ", table);
}

void check_ids_dtype(const Tensor& ids) {
  SKIFF_CHECK(ids.dtype() == DType::kI64 || ids.dtype() == DType::kI32,
              "embedding: Ids must be int64 or int32, got ", ids.type_str());
}

// Calls fn(const I* ids) with the ids as their integer type.
template <typename Fn>
void with_ids(const Tensor& ids, Fn&& fn) {
  check_ids_dtype(ids);
  if (ids.dtype() == DType::kI64) {
    fn(ids.data<int64_t>());
  } else {
    fn(ids.data<int32_t>());
  }
}

// Throws unless every id is a row of the table (padding_idx, when set, is one too).
template <typename I>
void check_ids(const I* ids, int64_t n, int64_t height) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = static_cast<int64_t>(ids[i]);
    SKIFF_CHECK(id >= 0 && id < height, "embedding: id ", id, " at position ", i,
                " is outside the table of ", height, " rows");
  }
}

void check_padding(int64_t padding_idx, int64_t height) {
  SKIFF_CHECK(padding_idx == kNoPadding || (padding_idx >= 0 && padding_idx < height),
              "embedding: padding_idx ", padding_idx, " must be -1 (none) or a row in [0, ", height,
              ")");
}

void check_out_grad(const Tensor& ids, const Tensor& out_grad, int64_t width) {
  SKIFF_CHECK(out_grad.shape() == embedding_out_shape(ids.shape(), Shape{-1, width}),
              "embedding_grad: Out@GRAD ", out_grad.type_str(), " does not match Ids ",
              ids.type_str(), " with rows of ", width);
}

// Rows of this many bytes (16 floats, 8 doubles) are copied with one fixed-size move.
constexpr int64_t kCacheLine = 64;

// dst row i = src row id[i] (zeros for padding_idx), rows of row_bytes bytes (of
// kBytes when that is not 0: a copy the compiler inlines). Threads past a size.
template <int64_t kBytes, typename I>
void copy_rows(const char* src, const I* id, int64_t n, int64_t row_bytes, int64_t padding_idx,
               char* dst) {
  const int64_t bytes = kBytes != 0 ? kBytes : row_bytes;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain * 4 / std::max<int64_t>(bytes, 1));
  parallel_for(n, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      if (i + kRowPrefetch < e)
        __builtin_prefetch(src + static_cast<int64_t>(id[i + kRowPrefetch]) * bytes);
      const int64_t r = static_cast<int64_t>(id[i]);
      if (r == padding_idx) {
        std::memset(dst + i * bytes, 0, static_cast<size_t>(bytes));
      } else {
        std::memcpy(dst + i * bytes, src + r * bytes, static_cast<size_t>(bytes));
      }
    }
  });
}

}  // namespace

Shape embedding_out_shape(const Shape& ids, const Shape& table) {
  check_table(table);
  SKIFF_CHECK(ids.rank() < Shape::kMaxRank, "embedding: Ids of rank ", ids.rank(),
              " leave no room for the embedding dim");
  Shape out = ids;
  out.push_back(table[1]);
  return out;
}

void embedding(const Tensor& table, const Tensor& ids, int64_t padding_idx, Tensor* out) {
  check_table(table.shape());
  SKIFF_CHECK(is_floating(table.dtype()), "embedding: W must be float32 or float64, got ",
              table.type_str());
  const int64_t height = table.dim(0), width = table.dim(1);
  check_padding(padding_idx, height);
  const int64_t n = ids.numel();
  out->resize(embedding_out_shape(ids.shape(), table.shape()), table.dtype());
  const int64_t row_bytes = width * static_cast<int64_t>(dtype_size(table.dtype()));
  const char* src = static_cast<const char*>(table.raw_data());
  char* dst = static_cast<char*>(out->raw_data());
  with_ids(ids, [&](const auto* id) {
    check_ids(id, n, height);
    if (row_bytes == kCacheLine) {
      copy_rows<kCacheLine>(src, id, n, row_bytes, padding_idx, dst);
    } else {
      copy_rows<0>(src, id, n, row_bytes, padding_idx, dst);
    }
  });
}

void embedding_grad(const Tensor& ids, const Tensor& out_grad, const Shape& table_shape,
                    int64_t padding_idx, Tensor* table_grad) {
  check_table(table_shape);
  const int64_t height = table_shape[0], width = table_shape[1];
  check_padding(padding_idx, height);
  check_out_grad(ids, out_grad, width);
  const int64_t n = ids.numel();
  table_grad->resize(table_shape, out_grad.dtype());
  SKIFF_DISPATCH_FLOATING(out_grad.dtype(), T, {
    const T* g = out_grad.data<T>();
    T* tg = table_grad->data<T>();
    std::fill(tg, tg + table_grad->numel(), T(0));
    with_ids(ids, [&](const auto* id) {
      check_ids(id, n, height);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = static_cast<int64_t>(id[i]);
        if (r == padding_idx) continue;
        RowMap<T>(tg + r * width, width) += ConstRowMap<T>(g + i * width, width);
      }
    });
  });
}

void embedding_grad_rows(const Tensor& ids, const Tensor& out_grad, int64_t height,
                         int64_t padding_idx, SelectedRows* table_grad) {
  check_padding(padding_idx, height);
  SKIFF_CHECK(out_grad.rank() >= 1, "embedding_grad: Out@GRAD ", out_grad.type_str(),
              " has no embedding dim");
  const int64_t width = out_grad.dim(out_grad.rank() - 1);
  check_out_grad(ids, out_grad, width);
  const int64_t n = ids.numel();
  // Kept between calls: a training step groups a batch of ids every time.
  thread_local RowGroups groups;
  with_ids(ids, [&](const auto* id) {
    check_ids(id, n, height);
    group_rows(id, n, padding_idx, &table_grad->rows, &groups);
  });
  table_grad->height = height;
  table_grad->value.resize(Shape{groups.count(), width}, out_grad.dtype());
  sum_grouped_rows(groups, out_grad, width, &table_grad->value);
}

}  // namespace skiff::kernels
