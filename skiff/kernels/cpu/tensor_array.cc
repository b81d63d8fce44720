#include "skiff/kernels/cpu/tensor_array.h"

#include <algorithm>

#include "skiff/core/error.h"
#include "skiff/kernels/cpu/accumulate.h"
#include "skiff/kernels/cpu/copy.h"
#include "skiff/kernels/cpu/fill.h"
#include "skiff/kernels/cpu/join.h"

namespace skiff::kernels {

namespace {

// Guards against a corrupt index allocating without bound.
constexpr int64_t kMaxArrayLength = int64_t{1} << 24;

// The entries of x, each of which must hold a value.
void check_entries(const TensorArray& x) {
  SKIFF_CHECK(!x.empty(), "tensor_array_to_tensor: the tensor array is empty");
  for (size_t i = 0; i < x.size(); ++i)
    SKIFF_CHECK(x[i].initialized(), "tensor_array_to_tensor: entry ", i, " of ", x.size(),
                " was never written");
}

}  // namespace

int64_t array_index(const Tensor& i) {
  SKIFF_CHECK(i.numel() == 1 && (i.dtype() == DType::kI64 || i.dtype() == DType::kI32),
              "the index I must be one int64 (or int32) element, got ", i.type_str());
  return i.item<int64_t>();
}

void write_to_array(const Tensor& x, const Tensor& i, TensorArray* out) {
  const int64_t k = array_index(i);
  SKIFF_CHECK(k >= 0 && k < kMaxArrayLength, "write_to_array: index ", k, " is out of range (0 to ",
              kMaxArrayLength - 1, ")");
  if (static_cast<int64_t>(out->size()) <= k) out->resize(k + 1);
  (*out)[k].copy_from(x);
}

void write_to_array_grad(const Tensor& x, const Tensor& i, const TensorArray& out_grad,
                         Tensor* x_grad, TensorArray* array_grad) {
  const int64_t k = array_index(i);
  const bool has_entry =
      k >= 0 && k < static_cast<int64_t>(out_grad.size()) && out_grad[k].initialized();
  if (x_grad) {
    if (has_entry) {
      SKIFF_CHECK(out_grad[k].shape() == x.shape(), "entry ", k, " of Out@GRAD is ",
                  out_grad[k].type_str(), " but X is ", x.type_str());
      x_grad->copy_from(out_grad[k]);
    } else {
      zeros_like(x, x_grad);
    }
  }
  if (!array_grad) return;
  if (array_grad != &out_grad) copy_array(out_grad, array_grad);
  if (has_entry) (*array_grad)[k] = Tensor();
}

void read_from_array(const TensorArray& x, const Tensor& i, Tensor* out) {
  const int64_t k = array_index(i);
  SKIFF_CHECK(k >= 0 && k < static_cast<int64_t>(x.size()), "read_from_array: index ", k,
              " is out of range for a tensor array of length ", x.size());
  SKIFF_CHECK(x[k].initialized(), "read_from_array: entry ", k, " of the tensor array (length ",
              x.size(), ") was never written");
  out->copy_from(x[k]);
}

void read_from_array_grad(const TensorArray& x, const Tensor& i, const Tensor& out_grad,
                          TensorArray* x_grad) {
  const int64_t k = array_index(i);
  SKIFF_CHECK(k >= 0 && k < kMaxArrayLength, "read_from_array_grad: index ", k, " is out of range");
  const size_t length = std::max(x.size(), static_cast<size_t>(k) + 1);
  x_grad->resize(length);
  for (size_t j = 0; j < length; ++j)
    if (static_cast<int64_t>(j) != k) (*x_grad)[j] = Tensor();
  (*x_grad)[k].copy_from(out_grad);
}

void array_length(const TensorArray& x, Tensor* out) {
  out->resize(Shape{1}, DType::kI64);
  *out->data<int64_t>() = static_cast<int64_t>(x.size());
}

void sum_arrays(const std::vector<const TensorArray*>& terms, TensorArray* out) {
  size_t length = 0;
  bool out_is_term = false;
  for (const TensorArray* t : terms) {
    length = std::max(length, t->size());
    out_is_term = out_is_term || t == out;
  }
  // Which entries of out hold a value so far: those of out itself when it is a term.
  std::vector<char> have(length, 0);
  if (out_is_term)
    for (size_t j = 0; j < out->size(); ++j) have[j] = (*out)[j].initialized();
  out->resize(length);
  for (const TensorArray* t : terms) {
    if (t == out) continue;
    for (size_t j = 0; j < t->size(); ++j) {
      if (!(*t)[j].initialized()) continue;
      if (have[j]) {
        add_inplace((*t)[j], &(*out)[j]);
      } else {
        (*out)[j].copy_from((*t)[j]);
        have[j] = 1;
      }
    }
  }
  for (size_t j = 0; j < length; ++j)
    if (!have[j]) (*out)[j] = Tensor();
}

void array_to_tensor(const TensorArray& x, int64_t axis, bool use_stack, Tensor* out) {
  check_entries(x);
  const std::vector<Tensor> parts(x.begin(), x.end());
  if (use_stack) {
    stack(parts, axis, out);
  } else {
    concat(parts, axis, out);
  }
}

void array_to_tensor_grad(const TensorArray& x, const Tensor& out_grad, int64_t axis,
                          bool use_stack, TensorArray* x_grad) {
  check_entries(x);
  x_grad->assign(x.size(), Tensor());
  std::vector<Tensor*> targets;
  for (Tensor& t : *x_grad) targets.push_back(&t);
  if (use_stack) {
    unstack(out_grad, axis, targets);
    return;
  }
  const int64_t a = axis < 0 ? axis + out_grad.rank() : axis;
  std::vector<int64_t> sizes;
  for (const Tensor& t : x) sizes.push_back(t.shape()[a]);
  split(out_grad, a, sizes, targets);
}

}  // namespace skiff::kernels
