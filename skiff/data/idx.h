// Readers for the IDX format of MNIST and Fashion-MNIST (optionally gzip-compressed).
//
//   Tensor images =
//   read_idx_images("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"); Tensor labels
//   = read_idx_labels(".../train-labels-idx1-ubyte.gz");   // int64 [60000]
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::data {

// The raw content of an unsigned-byte IDX file: its dims and bytes.
struct IdxFile {
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
};

// Reads an IDX file of unsigned bytes (type 0x08); ".gz" files are inflated. Throws
// skiff::Error naming the file on a bad magic number, a truncated body or I/O errors.
IdxFile read_idx(const std::string& path);
// Images as float32 [N, rows, cols] scaled to [0, 1].
Tensor read_idx_images(const std::string& path);
// Labels as int64 [N].
Tensor read_idx_labels(const std::string& path);

}  // namespace skiff::data
