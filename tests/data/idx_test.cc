#include "skiff/data/idx.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "skiff/data/batch_reader.h"

namespace skiff::data {
namespace {

std::string temp_path(const std::string& name) {
  return (::testing::TempDir() + "/skiff_idx_" + name);
}

std::vector<uint8_t> idx_bytes(const std::vector<uint32_t>& dims,
                               const std::vector<uint8_t>& body) {
  std::vector<uint8_t> out = {0, 0, 0x08, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(d >> s));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes, bool gzip) {
  if (gzip) {
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
  } else {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
}

TEST(Idx, ReadsImagesPlainAndGzip) {
  std::vector<uint8_t> pixels(2 * 3 * 2);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 20);
  for (bool gz : {false, true}) {
    std::string path = temp_path(gz ? "img.gz" : "img");
    write_file(path, idx_bytes({2, 3, 2}, pixels), gz);
    Tensor t = read_idx_images(path);
    EXPECT_EQ(t.shape(), Shape({2, 3, 2}));
    EXPECT_FLOAT_EQ(t.data<float>()[5], 100.0f / 255.0f);
  }
}

TEST(Idx, ReadsLabels) {
  std::string path = temp_path("labels");
  write_file(path, idx_bytes({4}, {3, 1, 4, 1}), false);
  EXPECT_EQ(read_idx_labels(path).to_vector<int64_t>(), (std::vector<int64_t>{3, 1, 4, 1}));
}

TEST(Idx, RejectsBadFilesWithTheirName) {
  std::string bad_magic = temp_path("bad_magic");
  write_file(bad_magic, {1, 2, 3, 4, 5}, false);
  std::string truncated = temp_path("truncated");
  auto bytes = idx_bytes({10}, {1, 2});
  write_file(truncated, bytes, false);
  for (const std::string& path : {bad_magic, truncated, temp_path("missing")}) {
    try {
      read_idx(path);
      FAIL() << path;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  std::string labels = temp_path("labels_as_images");
  write_file(labels, idx_bytes({4}, {3, 1, 4, 1}), false);
  EXPECT_THROW(read_idx_images(labels), Error);
}

TEST(BatchReader, ShufflesReproduciblyAndCoversEveryExample) {
  const int64_t n = 10;
  Tensor x = Tensor::empty({n, 2}, DType::kF32);
  Tensor y = Tensor::empty({n}, DType::kI64);
  for (int64_t i = 0; i < n; ++i) {
    x.data<float>()[2 * i] = static_cast<float>(i);
    x.data<float>()[2 * i + 1] = static_cast<float>(-i);
    y.data<int64_t>()[i] = i;
  }
  auto epoch_order = [&](uint64_t seed, bool drop_last) {
    BatchReader reader(x, y, 3, seed, true, drop_last);
    reader.start_epoch();
    std::vector<int64_t> seen;
    while (auto b = reader.next()) {
      for (int64_t r = 0; r < b->second.dim(0); ++r) {
        int64_t label = b->second.data<int64_t>()[r];
        EXPECT_FLOAT_EQ(b->first.data<float>()[2 * r], static_cast<float>(label));
        seen.push_back(label);
      }
    }
    return seen;
  };
  auto a = epoch_order(5, false), b = epoch_order(5, false), c = epoch_order(6, false);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(std::set<int64_t>(a.begin(), a.end()).size(), 10u);
  EXPECT_EQ(epoch_order(5, true).size(), 9u);
}

}  // namespace
}  // namespace skiff::data
