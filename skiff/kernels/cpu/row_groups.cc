#include "skiff/kernels/cpu/row_groups.h"

#include <algorithm>
#include <array>

#include "skiff/core/parallel.h"

namespace skiff::kernels {

namespace {

// A radix pass sorts on at most this many bits (2048 buckets: their counts stay in L1).
constexpr int kMaxDigitBits = 11;
// Fewer keys than this are sorted by comparison: a radix pass's bucket scan would cost more.
constexpr int64_t kRadixFrom = 1024;

int bit_width(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

// Sorts `keys` stably by their bits [low, high) (bits above `high` must be zero), in
// passes of at most kMaxDigitBits bits from the lowest digit up.
void radix_sort_bits(std::vector<uint64_t>* keys, std::vector<uint64_t>* scratch, int low,
                     int high) {
  const int span = high - low;
  if (span <= 0) return;
  const int passes = (span + kMaxDigitBits - 1) / kMaxDigitBits;
  const int digit_bits = (span + passes - 1) / passes;
  const uint64_t mask = (uint64_t{1} << digit_bits) - 1;
  const size_t n = keys->size();
  scratch->resize(n);
  uint64_t* src = keys->data();
  uint64_t* dst = scratch->data();
  std::array<int64_t, size_t{1} << kMaxDigitBits> offsets;
  for (int p = 0; p < passes; ++p) {
    const int shift = low + p * digit_bits;
    std::fill(offsets.begin(), offsets.begin() + mask + 1, 0);
    for (size_t i = 0; i < n; ++i) ++offsets[(src[i] >> shift) & mask];
    int64_t sum = 0;
    for (uint64_t b = 0; b <= mask; ++b) {
      const int64_t c = offsets[b];
      offsets[b] = sum;
      sum += c;
    }
    for (size_t i = 0; i < n; ++i) dst[offsets[(src[i] >> shift) & mask]++] = src[i];
    std::swap(src, dst);
  }
  if (src != keys->data()) keys->swap(*scratch);
}

template <typename I>
void group_rows_typed(const I* ids, int64_t n, int64_t skip, std::vector<int64_t>* rows,
                      RowGroups* groups) {
  const int position_bits = n > 1 ? bit_width(static_cast<uint64_t>(n - 1)) : 0;
  // Ids must be non-negative and leave room for the position below them in a key.
  const uint64_t id_limit = uint64_t{1} << (position_bits <= 1 ? 63 : 64 - position_bits);
  std::vector<uint64_t>& keys = groups->keys;
  keys.resize(static_cast<size_t>(n));
  uint64_t* key = keys.data();
  int64_t m = 0;
  uint64_t max_id = 0;  // as unsigned: a negative id is above every limit
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = static_cast<int64_t>(ids[i]);
    if (id == skip) continue;
    max_id = std::max(max_id, static_cast<uint64_t>(id));
    key[m++] = static_cast<uint64_t>(id) << position_bits | static_cast<uint64_t>(i);
  }
  if (max_id >= id_limit) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = static_cast<int64_t>(ids[i]);
      SKIFF_CHECK(id == skip || static_cast<uint64_t>(id) < id_limit, "row ", id, " at position ",
                  i, " cannot be grouped (negative, or too large for ", n, " positions)");
    }
  }
  keys.resize(static_cast<size_t>(m));
  if (static_cast<int64_t>(keys.size()) < kRadixFrom) {
    std::sort(keys.begin(), keys.end());  // keys are unique: the same order as the radix sort
  } else {
    // The keys start in position order, so a stable sort on the id bits leaves each
    // id's positions ascending.
    radix_sort_bits(&keys, &groups->scratch, position_bits, position_bits + bit_width(max_id));
  }
  groups->position_bits = position_bits;
  rows->clear();
  rows->reserve(keys.size());
  groups->starts.clear();
  for (size_t j = 0; j < keys.size(); ++j) {
    const int64_t row = static_cast<int64_t>(keys[j] >> position_bits);
    if (rows->empty() || row != rows->back()) {
      rows->push_back(row);
      groups->starts.push_back(static_cast<int64_t>(j));
    }
  }
  groups->starts.push_back(static_cast<int64_t>(keys.size()));
}

template <typename T>
void sum_grouped_rows_typed(const RowGroups& groups, const T* src, int64_t width, T* dst) {
  const int64_t count = groups.count();
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(width, 1));
  parallel_for(count, grain, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      T* d = dst + k * width;
      const int64_t first = groups.starts[static_cast<size_t>(k)];
      const int64_t end = groups.starts[static_cast<size_t>(k) + 1];
      const T* s = src + groups.position(first) * width;
      // 0 + x, not x: a row whose gradient is -0 sums to +0, as in a dense scatter-add.
      for (int64_t c = 0; c < width; ++c) d[c] = T(0) + s[c];
      for (int64_t j = first + 1; j < end; ++j) {
        s = src + groups.position(j) * width;
        for (int64_t c = 0; c < width; ++c) d[c] += s[c];
      }
    }
  });
}

}  // namespace

void group_rows(const int64_t* ids, int64_t n, int64_t skip, std::vector<int64_t>* rows,
                RowGroups* groups) {
  group_rows_typed(ids, n, skip, rows, groups);
}

void group_rows(const int32_t* ids, int64_t n, int64_t skip, std::vector<int64_t>* rows,
                RowGroups* groups) {
  group_rows_typed(ids, n, skip, rows, groups);
}

void sum_grouped_rows(const RowGroups& groups, const Tensor& src, int64_t width, Tensor* dst) {
  const int64_t count = groups.count();
  SKIFF_CHECK(dst->dtype() == src.dtype() && dst->numel() == count * width,
              "sum_grouped_rows: the destination ", dst->type_str(), " does not hold ", count,
              " rows of ", width, " ", dtype_name(src.dtype()));
  if (count == 0 || width == 0) return;
  SKIFF_DISPATCH_FLOATING(
      src.dtype(), T, { sum_grouped_rows_typed<T>(groups, src.data<T>(), width, dst->data<T>()); });
}

}  // namespace skiff::kernels
