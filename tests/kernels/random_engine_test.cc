// canonical<T> equals std::generate_canonical for every kind of 64-bit draw (the values
// Paddle's CPU kernels see), including those near 2^63 and 2^64 where the conversion
// rounds up.
#include "skiff/kernels/cpu/random_engine.h"

#include <gtest/gtest.h>

#include <vector>

namespace skiff::kernels {
namespace {

// An engine that returns one fixed value, to hand generate_canonical a chosen draw.
struct FixedDraw {
  using result_type = uint64_t;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return ~uint64_t{0}; }
  uint64_t value;
  uint64_t operator()() { return value; }
};

TEST(Canonical, EqualsGenerateCanonicalForEveryKindOfDraw) {
  std::vector<uint64_t> draws = {0,
                                 1,
                                 3,
                                 (uint64_t{1} << 24) - 1,
                                 (uint64_t{1} << 25) + 1,
                                 (uint64_t{1} << 63) - 1,
                                 uint64_t{1} << 63,
                                 (uint64_t{1} << 63) + 1,
                                 0xffffff7fffffffffULL,
                                 0xffffff8000000000ULL,
                                 0xfffffffffffff7ffULL,
                                 0xfffffffffffff800ULL,
                                 ~uint64_t{0}};
  RandomEngine engine(11);
  for (int i = 0; i < 200000; ++i) draws.push_back(engine());
  for (uint64_t bits : draws) {
    FixedDraw fixed{bits};
    ASSERT_EQ(canonical<float>(bits), (std::generate_canonical<float, 24>(fixed))) << bits;
    ASSERT_EQ(canonical<double>(bits), (std::generate_canonical<double, 53>(fixed))) << bits;
  }
  EXPECT_LT(canonical<float>(~uint64_t{0}), 1.0f);
  EXPECT_LT(canonical<double>(~uint64_t{0}), 1.0);
}

}  // namespace
}  // namespace skiff::kernels
