#include "skiff/board/encode.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "skiff/core/error.h"

namespace skiff::board {
namespace {

void append_be32(uint32_t v, std::string* out) {
  const char bytes[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                         static_cast<char>(v >> 8), static_cast<char>(v)};
  out->append(bytes, 4);
}

template <typename T>
void append_le(T v, std::string* out) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));  // little-endian targets
}

// A PNG chunk: length, type, data, CRC-32 of type and data.
void append_chunk(const char* type, const std::string& data, std::string* out) {
  append_be32(static_cast<uint32_t>(data.size()), out);
  const size_t start = out->size();
  out->append(type, 4);
  out->append(data);
  const auto* typed = reinterpret_cast<const Bytef*>(out->data() + start);
  append_be32(static_cast<uint32_t>(crc32(0, typed, static_cast<uInt>(data.size() + 4))), out);
}

}  // namespace

std::string encode_png(const uint8_t* pixels, int height, int width, int channels) {
  SKIFF_CHECK(height > 0 && width > 0, "encode_png: an image of ", height, "x", width,
              " pixels has none");
  SKIFF_CHECK(channels >= 1 && channels <= 4, "encode_png: ", channels,
              " channels (1 gray, 2 gray + alpha, 3 RGB, 4 RGBA)");
  static const uint8_t kColorType[5] = {0, 0, 4, 2, 6};
  std::string header;
  append_be32(static_cast<uint32_t>(width), &header);
  append_be32(static_cast<uint32_t>(height), &header);
  header += {8, static_cast<char>(kColorType[channels]), 0, 0, 0};  // depth, color, methods

  // Each row starts with its filter type (0: none).
  const size_t row = static_cast<size_t>(width) * channels;
  std::string raw(static_cast<size_t>(height) * (row + 1), '\0');
  for (int y = 0; y < height; ++y) {
    std::memcpy(&raw[y * (row + 1) + 1], pixels + y * row, row);
  }
  uLongf packed_size = compressBound(static_cast<uLong>(raw.size()));
  std::string packed(packed_size, '\0');
  int rc = compress2(reinterpret_cast<Bytef*>(packed.data()), &packed_size,
                     reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()),
                     Z_BEST_SPEED);
  SKIFF_CHECK(rc == Z_OK, "encode_png: zlib failed (", rc, ")");
  packed.resize(packed_size);

  std::string png("\x89PNG\r\n\x1a\n", 8);
  append_chunk("IHDR", header, &png);
  append_chunk("IDAT", packed, &png);
  append_chunk("IEND", std::string(), &png);
  return png;
}

std::string encode_wav(const float* samples, int64_t frames, int channels, int sample_rate) {
  SKIFF_CHECK(channels >= 1 && sample_rate > 0, "encode_wav: ", channels, " channels at ",
              sample_rate, " Hz");
  const uint64_t data_size = static_cast<uint64_t>(frames) * channels * 2;
  SKIFF_CHECK(data_size < (1ull << 31), "encode_wav: ", frames, " frames do not fit a WAV file");
  std::string wav("RIFF");
  append_le<uint32_t>(static_cast<uint32_t>(36 + data_size), &wav);
  wav += "WAVEfmt ";
  append_le<uint32_t>(16, &wav);
  append_le<uint16_t>(1, &wav);  // PCM
  append_le<uint16_t>(static_cast<uint16_t>(channels), &wav);
  append_le<uint32_t>(static_cast<uint32_t>(sample_rate), &wav);
  append_le<uint32_t>(static_cast<uint32_t>(sample_rate * channels * 2), &wav);  // bytes/s
  append_le<uint16_t>(static_cast<uint16_t>(channels * 2), &wav);                // block
  append_le<uint16_t>(16, &wav);                                                 // bits
  wav += "data";
  append_le<uint32_t>(static_cast<uint32_t>(data_size), &wav);
  wav.reserve(wav.size() + data_size);
  for (int64_t i = 0; i < frames * channels; ++i) {
    const float s = std::isnan(samples[i]) ? 0.f : std::clamp(samples[i], -1.f, 1.f);
    append_le<int16_t>(static_cast<int16_t>(std::lround(s * 32767.f)), &wav);
  }
  return wav;
}

}  // namespace skiff::board
