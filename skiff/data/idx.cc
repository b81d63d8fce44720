#include "skiff/data/idx.h"

#include <zlib.h>

#include <memory>

namespace skiff::data {

namespace {

// Reads exactly `n` bytes or throws; gzread reads plain files transparently too.
void read_exact(gzFile f, void* dst, size_t n, const std::string& path) {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(n, 1u << 30));
    int got = gzread(f, p, chunk);
    SKIFF_CHECK(got > 0, "IDX file '", path, "' is truncated or unreadable");
    p += got;
    n -= static_cast<size_t>(got);
  }
}

uint32_t big_endian(const uint8_t* b) {
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

}  // namespace

IdxFile read_idx(const std::string& path) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> f(gzopen(path.c_str(), "rb"), gzclose);
  SKIFF_CHECK(f, "cannot open IDX file '", path, "'");
  uint8_t magic[4];
  read_exact(f.get(), magic, 4, path);
  SKIFF_CHECK(magic[0] == 0 && magic[1] == 0 && magic[2] == 0x08 && magic[3] >= 1 && magic[3] <= 4,
              "'", path, "' is not an unsigned-byte IDX file (bad magic number)");
  IdxFile out;
  int64_t total = 1;
  for (int i = 0; i < magic[3]; ++i) {
    uint8_t d[4];
    read_exact(f.get(), d, 4, path);
    out.dims.push_back(big_endian(d));
    total *= out.dims.back();
  }
  SKIFF_CHECK(total <= (int64_t{1} << 34), "IDX file '", path, "' declares ", total, " bytes");
  out.bytes.resize(static_cast<size_t>(total));
  read_exact(f.get(), out.bytes.data(), out.bytes.size(), path);
  return out;
}

Tensor read_idx_images(const std::string& path) {
  IdxFile f = read_idx(path);
  SKIFF_CHECK(f.dims.size() == 3, "'", path, "' holds ", f.dims.size(),
              "-d data; image files are 3-d [N, rows, cols]");
  Tensor t = Tensor::empty(Shape(f.dims), DType::kF32);
  float* p = t.data<float>();
  for (size_t i = 0; i < f.bytes.size(); ++i) p[i] = f.bytes[i] * (1.0f / 255.0f);
  return t;
}

Tensor read_idx_labels(const std::string& path) {
  IdxFile f = read_idx(path);
  SKIFF_CHECK(f.dims.size() == 1, "'", path, "' holds ", f.dims.size(),
              "-d data; label files are 1-d [N]");
  Tensor t = Tensor::empty(Shape(f.dims), DType::kI64);
  int64_t* p = t.data<int64_t>();
  for (size_t i = 0; i < f.bytes.size(); ++i) p[i] = f.bytes[i];
  return t;
}

}  // namespace skiff::data
