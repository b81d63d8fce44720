// NumPy's .npy files to and from Tensors: format versions 1, 2 and 3 read, version 1
// (or 2 for very long headers) written; little-endian, C order; float32, float64,
// int32, int64 and bool. Other files (big-endian, Fortran order, other dtypes,
// pickled objects) are refused with a skiff::Error that says why. .npy has no standard
// bfloat16, so a bfloat16 tensor is refused too (cast it to float32: that is exact).
//
//   write_npy("x.npy", Tensor::from_vector<float>({2}, {1, 2}));
//   Tensor x = read_npy("x.npy");     // numpy.load("x.npy") reads it too
#pragma once

#include <string>

#include "skiff/core/tensor.h"

namespace skiff {

// Reads a .npy file; errors name the file.
Tensor read_npy(const std::string& path);
// Writes `tensor` as a .npy file, atomically.
void write_npy(const std::string& path, const Tensor& tensor);

// The .npy encoding of `tensor`.
std::string npy_to_bytes(const Tensor& tensor);
// Parses .npy bytes into a tensor with its own storage.
Tensor npy_from_bytes(const std::string& bytes);

}  // namespace skiff
