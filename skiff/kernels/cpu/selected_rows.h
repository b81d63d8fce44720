// Kernels over sparse row gradients (SelectedRows: `value[i]` is row `rows[i]` of a
// [height, ...] tensor; rows may repeat, and then their values add up).
//
//   kernels::merge_rows(grad, &merged);        // sorted unique rows, repeats summed
//   kernels::scatter_add_rows(grad, &dense);   // dense[rows[i]] += value[i]
//   kernels::concat_rows({&a, &b}, &ab);        // a's rows, then b's
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/variable.h"

namespace skiff::kernels {

// Elements per row of `rows` (numel of value / number of rows; 0 when there are none
// and the value is empty). Throws when the value does not hold one row per entry.
int64_t row_width(const SelectedRows& rows);

// out = `in` with each row once, rows sorted ascending; repeated rows are summed in
// their order in `in`. `out` must not be `in`.
void merge_rows(const SelectedRows& in, SelectedRows* out);

// dense[rows[i]] += value[i] for each entry in order; dense is [height, width...] of
// the value's dtype. Throws for a row outside [0, height) or a width mismatch.
void scatter_add_rows(const SelectedRows& rows, Tensor* dense);

// out = the entries of every part, in order (all of one height, width and dtype).
// `out` may be one of the parts.
void concat_rows(const std::vector<const SelectedRows*>& parts, SelectedRows* out);

}  // namespace skiff::kernels
