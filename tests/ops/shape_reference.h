// Reference helpers for the shape and indexing op tests: the shapes one op declares
// at build time over partly unknown (-1) input shapes, and tensors built element by
// element from multi-indices (float64 references of data movement).
//
//   Shape s = declared_shape("flatten", {{"X", DType::kF32, {-1, 3, 4}}}, {});  // [-1, 12]
//   Tensor want = by_index(x, {3, 2}, [](const Index& i) { return i[1] * 3 + i[0]; });
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/core/tensor.h"
#include "tests/testing/op_test.h"

namespace skiff::testing {

struct DeclaredInput {
  std::string slot;
  DType dtype;
  Shape shape;
};

// Builds a one-op program over data variables declared with `inputs` (a slot given
// several times gets several variables) and returns the declared shape of
// out_slot[out_index] (out_count variables in that slot).
inline Shape declared_shape(const std::string& type, const std::vector<DeclaredInput>& inputs,
                            const AttrList& attrs, const std::string& out_slot = "Out",
                            int out_count = 1, int out_index = 0) {
  Program p;
  BlockBuilder b(&p);
  std::vector<Slot> in_slots;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string name = b.data("in" + std::to_string(k), inputs[k].dtype, inputs[k].shape);
    auto it = std::find_if(in_slots.begin(), in_slots.end(),
                           [&](const Slot& s) { return s.first == inputs[k].slot; });
    if (it == in_slots.end()) {
      in_slots.push_back({inputs[k].slot, {name}});
    } else {
      it->second.push_back(name);
    }
  }
  std::vector<std::string> outs;
  for (int i = 0; i < out_count; ++i) outs.push_back("out" + std::to_string(i));
  b.op(type, in_slots, {{out_slot, outs}}, attrs);
  return p.global_block().find_local_var(outs[out_index])->shape;
}

using Index = std::vector<int64_t>;

// A tensor of `shape` and src's dtype whose element at multi-index i is src's
// element at flat offset source(i).
inline Tensor by_index(const Tensor& src, const Shape& shape,
                       const std::function<int64_t(const Index&)>& source) {
  const Tensor a = to_f64(src);
  Tensor out = Tensor::empty(shape, DType::kF64);
  Index idx(shape.rank(), 0);
  for (int64_t k = 0; k < out.numel(); ++k) {
    int64_t rest = k;
    for (int d = shape.rank() - 1; d >= 0; --d) {
      idx[d] = rest % shape[d];
      rest /= shape[d];
    }
    out.data<double>()[k] = a.data<double>()[source(idx)];
  }
  return from_f64(out, src.dtype());
}

// Row-major flat offset of multi-index `idx` in `shape`.
inline int64_t flat_offset(const Shape& shape, const Index& idx) {
  int64_t off = 0;
  for (int d = 0; d < shape.rank(); ++d) off = off * shape[d] + idx[d];
  return off;
}

// A copy of `t` (any dtype) holding `shape` (same element count).
inline Tensor reshaped(const Tensor& t, const Shape& shape) {
  Tensor out = t.clone();
  out.reshape(shape);
  return out;
}

}  // namespace skiff::testing
