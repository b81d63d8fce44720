// Row indices grouped by row: the distinct rows ascending, each with the positions
// where it occurs in their original order. What a sparse gradient needs to sum the
// rows of repeated ids without sorting them by comparison or searching for each one.
//
//   RowGroups groups;
//   std::vector<int64_t> rows;
//   kernels::group_rows(ids, n, /*skip=*/-1, &rows, &groups);   // rows: distinct ids
//   value.resize({groups.count(), width}, dtype);
//   kernels::sum_grouped_rows(groups, out_grad, width, &value); // value[k] = sum of its rows
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// The result of group_rows. Group k holds the entries keys[starts[k]] ..
// keys[starts[k + 1] - 1]; each key is (row << position_bits) | position, so the keys
// of a group are its positions in ascending order.
struct RowGroups {
  std::vector<uint64_t> keys;
  std::vector<int64_t> starts;  // count() + 1 offsets into keys
  int position_bits = 0;
  std::vector<uint64_t> scratch;  // the radix sort's second buffer, kept for reuse

  int64_t count() const { return starts.empty() ? 0 : static_cast<int64_t>(starts.size()) - 1; }
  // The position (index into the grouped list) of key j.
  int64_t position(int64_t j) const {
    return static_cast<int64_t>(keys[static_cast<size_t>(j)] &
                                ((uint64_t{1} << position_bits) - 1));
  }
};

// Groups ids[0, n) by value: *rows = the distinct values ascending, `groups` their
// positions. Entries equal to `skip` are left out (pass -1 to keep all). Throws for a
// negative id. Linear time (a radix sort on the ids' bits); reuses the buffers of
// `rows` and `groups`.
void group_rows(const int64_t* ids, int64_t n, int64_t skip, std::vector<int64_t>* rows,
                RowGroups* groups);
void group_rows(const int32_t* ids, int64_t n, int64_t skip, std::vector<int64_t>* rows,
                RowGroups* groups);

// dst[k, :] = 0 + src[p1, :] + src[p2, :] + ... over the positions p1 < p2 < ... of
// group k (the order a dense scatter-add of the rows in position order sums them).
// src holds rows of `width` elements at every position; dst must already hold
// groups.count() rows of `width` elements of src's dtype (float32/float64). Groups are
// split across threads past a size threshold.
void sum_grouped_rows(const RowGroups& groups, const Tensor& src, int64_t width, Tensor* dst);

}  // namespace skiff::kernels
