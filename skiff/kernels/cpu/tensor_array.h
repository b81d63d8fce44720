// Kernels over tensor arrays (TensorArray: a growable list of tensors that loops write and
// read by index): the array ops and their gradients, entry-wise sums, and the entries
// joined into one tensor. An index is a one-element int64 (or int32) tensor. An entry
// without a value is an uninitialized Tensor; an array never written is empty.
//
//   kernels::write_to_array(h, i, &hidden);        // hidden[i] = a copy of h
//   kernels::read_from_array(hidden, i, &h_i);      // h_i = a copy of hidden[i]
//   kernels::sum_arrays({&a, &b}, &a);              // a += b, entry by entry
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/variable.h"

namespace skiff::kernels {

// The index held by `i` (one int64 or int32 element); throws for anything else.
int64_t array_index(const Tensor& i);

// out[i] = a copy of x; out grows to length i + 1 if shorter and keeps its other
// entries. Throws for a negative or absurdly large index.
void write_to_array(const Tensor& x, const Tensor& i, TensorArray* out);
// The gradient of write_to_array: x_grad = out_grad[i] (zeros like x when that entry
// has no value); array_grad = out_grad with entry i cleared (the array before the write
// did not hold x there). array_grad may be &out_grad; either output may be nullptr.
void write_to_array_grad(const Tensor& x, const Tensor& i, const TensorArray& out_grad,
                         Tensor* x_grad, TensorArray* array_grad);

// out = a copy of x[i]; throws when i is out of range or the entry was never written.
void read_from_array(const TensorArray& x, const Tensor& i, Tensor* out);
// The gradient of read_from_array: x_grad = an array as long as x (at least i + 1) whose
// only entry with a value is i, a copy of out_grad.
void read_from_array_grad(const TensorArray& x, const Tensor& i, const Tensor& out_grad,
                          TensorArray* x_grad);

// out = the number of entries of x (int64 [1]).
void array_length(const TensorArray& x, Tensor* out);

// out = the entry-wise sum of `terms` (as long as the longest; an entry with no value in
// any term has none in out). A term that is `out` itself is the starting value.
void sum_arrays(const std::vector<const TensorArray*>& terms, TensorArray* out);

// out = the entries of x stacked along a new axis (use_stack) or concatenated along
// `axis`; throws when x is empty or an entry has no value.
void array_to_tensor(const TensorArray& x, int64_t axis, bool use_stack, Tensor* out);
// The gradient of array_to_tensor: out_grad cut back into one entry per entry of x.
void array_to_tensor_grad(const TensorArray& x, const Tensor& out_grad, int64_t axis,
                          bool use_stack, TensorArray* x_grad);

}  // namespace skiff::kernels
