// Tensor shapes and memory: element counts and byte sizes are checked (a shape past int64
// or past what one tensor can hold is an Error naming it, never a wrapped size), memory
// the system cannot give is an OutOfMemoryError naming the tensor, and both keep their
// kind through the op context an eager call adds.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "skiff/core/tensor.h"
#include "skiff/eager/op_call.h"
#include "tests/testing/error_of.h"

namespace skiff {
namespace {

constexpr int64_t k2to31 = int64_t{1} << 31;

TEST(TensorTest, ElementCountsAreChecked) {
  EXPECT_EQ(checked_numel(Shape{}), 1);
  EXPECT_EQ(checked_numel(Shape{2, 3}), 6);
  EXPECT_EQ(checked_numel(Shape{k2to31, k2to31, 0}), 0);  // an empty tensor, whatever the rest
  std::string why = testing::error_of([] { checked_numel(Shape{k2to31, k2to31, k2to31}); });
  EXPECT_NE(why.find("[2147483648, 2147483648, 2147483648] has more than 2^63 - 1 elements"),
            std::string::npos)
      << why;
  why = testing::error_of([] { checked_numel(Shape{2, -5}); });
  EXPECT_NE(why.find("[2, -5]: dims must be known and non-negative, got -5"), std::string::npos)
      << why;
}

TEST(TensorTest, ByteSizesAreChecked) {
  EXPECT_EQ(checked_bytes(Shape{3, 4}, 8), 96u);
  // 2^62 elements fit int64, their 2^64 bytes of float32 do not: never a wrapped size.
  std::string why = testing::error_of([] { Tensor::empty({k2to31, k2to31}, DType::kF32); });
  EXPECT_NE(why.find("more than one tensor can hold"), std::string::npos) << why;
  why = testing::error_of([] { Tensor::zeros({int64_t{1} << 62}, DType::kF64); });
  EXPECT_NE(why.find("more than one tensor can hold"), std::string::npos) << why;
  Tensor t = Tensor::empty({2, 3}, DType::kF32);
  why = testing::error_of([&] { t.resize({k2to31, k2to31}, DType::kF32); });
  EXPECT_NE(why.find("[2147483648, 2147483648]"), std::string::npos) << why;
  EXPECT_EQ(t.shape(), (Shape{2, 3}));  // left as it was
}

TEST(TensorTest, MemoryTheSystemCannotGiveIsAnOutOfMemoryError) {
  // 4 PiB: a valid size that no machine here has.
  try {
    Tensor::empty({int64_t{1} << 50}, DType::kF32);
    FAIL() << "no error";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot allocate 4.0 PiB (4503599627370496 bytes) for "
                                         "float32[1125899906842624]"),
              std::string::npos)
        << e.what();
  }
}

TEST(TensorTest, AnOpThatRunsOutOfMemorySaysWhichAndStaysOutOfMemory) {
  eager::EagerOp fill("fill_constant", [] {
    AttrMap a;
    a.set("shape", std::vector<int64_t>{int64_t{1} << 50});
    a.set("dtype", std::string("float32"));
    return a;
  }());
  try {
    fill.call({});
    FAIL() << "no error";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("fill_constant"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace skiff
