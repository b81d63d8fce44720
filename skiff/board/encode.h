// The file formats skiff board stores images and audio in: PNG and 16-bit PCM WAV.
#pragma once

#include <cstdint>
#include <string>

namespace skiff::board {

// A PNG of an 8-bit image: `height` rows of `width` * `channels` bytes (1 gray,
// 2 gray + alpha, 3 RGB, 4 RGBA).
std::string encode_png(const uint8_t* pixels, int height, int width, int channels);

// A WAV (16-bit PCM) of `frames` interleaved frames of `channels` float samples in
// [-1, 1] (clipped outside).
std::string encode_wav(const float* samples, int64_t frames, int channels, int sample_rate);

}  // namespace skiff::board
