// What the C++ that `skiff compile` generates calls besides the kernels: feeding and
// fetching through the C interface (model_api.h), loop and branch conditions, parameters
// (a .skparams image, embedded or read from a file), and the thread's last error. Plain
// C++ over skiff/core: it builds for every target, the portable ones included.
//
//   ParamImage params = read_param_image(path);            // or parse_param_image(blob, n)
//   take_param(&params, "fc0_w", DType::kF32, Shape{784, 512}, &vars.fc0_w);
//   feed_input(inputs[0], *skiff_model_input(0), &vars.x);
//   while (condition(vars.cond, "while at model.py:12")) { ... }
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "skiff/codegen/runtime/model_api.h"
#include "skiff/core/tensor.h"
#include "skiff/core/variable.h"

namespace skiff::codegen {

// Named tensors as a .skparams file holds them, in file order.
using ParamImage = std::vector<std::pair<std::string, Tensor>>;

// Parses the bytes of a .skparams file (checksum checked); throws skiff::Error saying
// what is wrong.
ParamImage parse_param_image(const char* bytes, size_t size);
// Bytes of one vector register of the CPU the model is compiled for: the column block of the
// inline tiny products (codegen/rules_static.cc), whose sums then stay in registers and are
// read back by the next op at the width they were written.
#if defined(__AVX512F__)
inline constexpr int64_t kVectorBytes = 64;
#else
inline constexpr int64_t kVectorBytes = 32;
#endif

// Reads and parses the .skparams file at `path`; errors name the file.
ParamImage read_param_image(const std::string& path);
// Moves the tensor `name` out of `image` into `dst`, checking it against the declared dtype
// and dims (-1 matches any); throws naming the variable when it is missing or differs.
void take_param(ParamImage* image, const char* name, DType dtype, const Shape& shape, Tensor* dst);

// A tensor over `data` (an embedded parameter array of `shape` and `dtype`): a view of it, or
// with `writable` (the program updates it) a copy of its own.
Tensor embedded_tensor(const char* data, DType dtype, const Shape& shape, bool writable);

// Copies the caller's `input` into `dst` after checking its dtype and dims against `spec`.
void feed_input(const skiff_tensor& input, const skiff_io& spec, Tensor* dst);
// Points `out` at the data of `value` (which must hold a value: `name` is for the error).
void view_tensor(const Tensor& value, const char* name, skiff_tensor* out);
// Throws the error of a condition that is not one element; `what` names the op.
[[noreturn]] void bad_condition(const Tensor& cond, const char* what);
// The truth of a one-element condition tensor (bool, or a number: nonzero is true).
inline bool condition(const Tensor& cond, const char* what) {
  if (!cond.initialized() || cond.numel() != 1) bad_condition(cond, what);
  if (cond.dtype() == DType::kBool) return *static_cast<const bool*>(cond.raw_data());
  return cond.item<bool>();
}
// select_input: the input that `mask` (one integer or bool element) picks; throws when
// the mask is out of range or the picked input holds no value.
const Tensor& select_input(const Tensor& mask, std::initializer_list<const Tensor*> inputs,
                           const char* what);
// The same over tensor arrays (an array without entries is a value).
const TensorArray& select_input(const Tensor& mask,
                                std::initializer_list<const TensorArray*> inputs, const char* what);
// The input index that `mask` picks among `count`; throws naming `what` when out of range.
int64_t select_index(const Tensor& mask, size_t count, const char* what);

// Whether a variable holds a value, as the interpreter's Variable::empty() tells: a tensor
// that was written, a tensor array with entries.
inline bool has_value(const Tensor& t) { return t.initialized(); }
inline bool has_value(const TensorArray& a) { return !a.empty(); }

// Static-shape fast paths. The program fixes the shape and dtype of these variables at
// compile time, so generated loops index their data directly. in_data checks the dtype
// and element count (a tensor other than the program declares is an error naming `what`,
// never a wrong answer); out_data makes `t` hold `shape` in storage of its own (copying
// shared data first) and returns it for writing.
[[noreturn]] void bad_static_input(const Tensor& t, int64_t numel, DType dtype, const char* what);
template <typename T>
inline const T* in_data(const Tensor& t, int64_t numel, const char* what) {
  if (!t.initialized() || t.dtype() != dtype_of<T> || t.numel() != numel) {
    bad_static_input(t, numel, dtype_of<T>, what);
  }
  return static_cast<const T*>(t.raw_data());
}
template <typename T>
inline T* out_data(Tensor* t, const Shape& shape) {
  t->resize(shape, dtype_of<T>);
  return static_cast<T*>(t->raw_data());
}

// The data of `t` for a loop that reads and writes it in place from step to step: `t` made
// to hold `shape` in storage of its own, its values kept (a tensor of another dtype or size
// than the program declares is an error naming `what`, and so is an empty one when
// `needs_value`: the loop reads it first); an empty `t` is allocated otherwise.
template <typename T>
inline T* bind_data(Tensor* t, const Shape& shape, bool needs_value, const char* what) {
  if (needs_value || t->initialized()) {
    if (t->dtype() != dtype_of<T> || t->numel() != shape.numel()) {
      bad_static_input(*t, shape.numel(), dtype_of<T>, what);
    }
    if (t->shape() != shape) t->reshape(shape);
  }
  t->resize(shape, dtype_of<T>);
  return static_cast<T*>(t->raw_data());
}

// Remembers `message` as the calling thread's last error (see skiff_model_last_error).
void set_last_error(const std::string& message);
const char* last_error();

}  // namespace skiff::codegen
