// flatten, squeeze, unsqueeze (views), expand / broadcast_to and tile (copies):
// values in every dtype against index references, shapes declared over -1 dims,
// gradients by finite differences, and errors naming shapes and axes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/shape_reference.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::by_index;
using testing::declared_shape;
using testing::expect_error;
using testing::Index;
using testing::OpTest;
using testing::random_tensor;
using testing::reshaped;
using Ints = std::vector<int64_t>;

constexpr DType kAllDTypes[] = {DType::kF32, DType::kF64,  DType::kI32,
                                DType::kI64, DType::kBool, DType::kI8};
// The view ops move bfloat16 values too.
constexpr DType kViewDTypes[] = {DType::kF32,  DType::kF64, DType::kI32, DType::kI64,
                                 DType::kBool, DType::kI8,  DType::kBF16};

OpTest one_input_op(const std::string& type, const Tensor& x, const AttrList& attrs) {
  OpTest t(type);
  t.input("X", x);
  for (const auto& [name, value] : attrs) t.attr(name, value);
  return t;
}

Shape declared(const std::string& type, const Shape& x, const AttrList& attrs) {
  return declared_shape(type, {{"X", DType::kF32, x}}, attrs);
}

// ---- flatten, squeeze, unsqueeze ----

struct ViewCase {
  const char* type;
  Shape x;
  AttrList attrs;
  Shape want;
};

const ViewCase kViewCases[] = {
    {"flatten", {2, 3, 4}, {}, {2, 12}},
    {"flatten", {2, 3, 4}, {{"start_axis", int64_t{0}}}, {24}},
    {"flatten", {2, 3, 4, 5}, {{"start_axis", int64_t{1}}, {"stop_axis", int64_t{2}}}, {2, 12, 5}},
    {"flatten", {2, 3, 4}, {{"start_axis", int64_t{-2}}, {"stop_axis", int64_t{-2}}}, {2, 3, 4}},
    {"flatten", {}, {{"start_axis", int64_t{0}}}, {1}},
    {"squeeze", {1, 3, 1, 2}, {}, {3, 2}},
    {"squeeze", {1, 3, 1, 2}, {{"axes", Ints{0, -2}}}, {3, 2}},
    {"squeeze", {1, 3, 1, 2}, {{"axes", Ints{2}}}, {1, 3, 2}},
    {"squeeze", {1, 3, 1, 2}, {{"axes", Ints{1, 3}}}, {1, 3, 1, 2}},  // not size 1: kept
    {"squeeze", {1, 1}, {}, {}},
    {"unsqueeze", {3, 2}, {{"axes", Ints{0}}}, {1, 3, 2}},
    {"unsqueeze", {3, 2}, {{"axes", Ints{-1, 0}}}, {1, 3, 2, 1}},
    {"unsqueeze", {3, 2}, {{"axes", Ints{0, 2}}}, {1, 3, 1, 2}},
    {"unsqueeze", {3, 2}, {{"axes", Ints{1, 1}}}, {3, 1, 1, 2}},
    {"unsqueeze", {}, {{"axes", Ints{0, -1}}}, {1, 1}},
};

TEST(ViewOps, KeepElementOrderInEveryDtype) {
  for (const ViewCase& c : kViewCases) {
    for (DType dtype : kViewDTypes) {
      SCOPED_TRACE(str_cat(c.type, " ", c.x, " ", dtype_name(dtype)));
      Tensor x = random_tensor(c.x, dtype, 1, -9, 9);
      one_input_op(c.type, x, c.attrs).check_output("Out", reshaped(x, c.want), 0, 0);
    }
  }
}

TEST(ViewOps, ShapesDeclaredOverUnknownDims) {
  EXPECT_EQ(declared("flatten", {-1, 3, 4}, {}), Shape({-1, 12}));
  EXPECT_EQ(declared("flatten", {-1, 3, 4}, {{"start_axis", int64_t{0}}}), Shape({-1}));
  EXPECT_EQ(declared("flatten", {2, -1, 4}, {{"stop_axis", int64_t{1}}}), Shape({2, -1, 4}));
  EXPECT_EQ(declared("squeeze", {-1, 1, 3}, {}), Shape({-1, 3}));
  EXPECT_EQ(declared("squeeze", {-1, 1, 3}, {{"axes", Ints{0}}}), Shape({1, 3}));
  EXPECT_EQ(declared("unsqueeze", {-1, 3}, {{"axes", Ints{1}}}), Shape({-1, 1, 3}));
}

TEST(ViewOps, GradientsMatchFiniteDifferences) {
  one_input_op("flatten", random_tensor({2, 3, 2}, DType::kF64, 2), {}).check_grad({"X"});
  one_input_op("squeeze", random_tensor({2, 1, 3}, DType::kF64, 3), {}).check_grad({"X"});
  one_input_op("unsqueeze", random_tensor({2, 3}, DType::kF64, 4), {{"axes", Ints{1, -1}}})
      .check_grad({"X"});
}

TEST(ViewOps, Errors) {
  Tensor x = random_tensor({2, 3, 4}, DType::kF32, 5);
  expect_error(one_input_op("flatten", x, {{"start_axis", int64_t{2}}, {"stop_axis", int64_t{1}}}),
               {"flatten", "[2, 3, 4]", "stop_axis 1", "start_axis 2"});
  expect_error(one_input_op("flatten", x, {{"start_axis", int64_t{3}}}),
               {"axis 3 is out of range", "[2, 3, 4]"});
  expect_error(one_input_op("flatten", Tensor::scalar(1.0f), {}), {"rank-0", "start_axis"});
  expect_error(one_input_op("squeeze", x, {{"axes", Ints{-4}}}),
               {"squeeze", "axis -4", "[2, 3, 4]"});
  expect_error(one_input_op("unsqueeze", x, {{"axes", Ints{5}}}),
               {"unsqueeze", "axis 5", "[2, 3, 4]"});
  expect_error(one_input_op("unsqueeze", x, {{"axes", Ints{0, 0, 0, 0, 0, 0}}}),
               {"unsqueeze", "[2, 3, 4]", "rank 8"});
}

// ---- expand, broadcast_to ----

// x (aligned with out's last dims) read where each size-1 dim repeats.
Tensor expand_reference(const Tensor& x, const Shape& out) {
  const Shape& s = x.shape();
  const int lead = out.rank() - s.rank();
  return by_index(x, out, [&](const Index& i) {
    int64_t off = 0;
    for (int d = 0; d < s.rank(); ++d) off = off * s[d] + (s[d] == 1 ? 0 : i[d + lead]);
    return off;
  });
}

struct ExpandCase {
  Shape x;
  Ints shape;
  Shape want;
};

const ExpandCase kExpandCases[] = {
    {{2, 1}, {3, -1, 4}, {3, 2, 4}},
    {{3}, {2, 3}, {2, 3}},
    {{1, 1}, {4, 5}, {4, 5}},
    {{2, 3}, {2, 3}, {2, 3}},
    {{2, 1, 3}, {2, 5, 3}, {2, 5, 3}},
    {{}, {3, 2}, {3, 2}},
    {{1, 3, 1}, {2, -1, 4}, {2, 3, 4}},
    {{64, 1, 700}, {-1, 8, -1}, {64, 8, 700}},
    {{64, 700, 1}, {-1, -1, 9}, {64, 700, 9}},
};

TEST(ExpandOps, MatchReferenceInEveryDtype) {
  for (const char* type : {"expand", "broadcast_to"}) {
    for (const ExpandCase& c : kExpandCases) {
      for (DType dtype : kAllDTypes) {
        SCOPED_TRACE(str_cat(type, " ", c.x, " -> ", c.want, " ", dtype_name(dtype)));
        Tensor x = random_tensor(c.x, dtype, 6, -9, 9);
        one_input_op(type, x, {{"shape", c.shape}})
            .check_output("Out", expand_reference(x, c.want), 0, 0);
      }
    }
  }
}

TEST(ExpandOps, ShapesDeclaredOverUnknownDims) {
  EXPECT_EQ(declared("expand", {-1, 1}, {{"shape", Ints{-1, 5}}}), Shape({-1, 5}));
  EXPECT_EQ(declared("expand", {-1, 3}, {{"shape", Ints{2, -1, 3}}}), Shape({2, -1, 3}));
  EXPECT_EQ(declared("broadcast_to", {-1, 3}, {{"shape", Ints{4, 3}}}), Shape({4, 3}));
}

TEST(ExpandOps, GradientsMatchFiniteDifferences) {
  one_input_op("expand", random_tensor({2, 1, 3}, DType::kF64, 7), {{"shape", Ints{4, 2, 5, 3}}})
      .check_grad({"X"});
  one_input_op("broadcast_to", random_tensor({3, 1}, DType::kF64, 8), {{"shape", Ints{3, 4}}})
      .check_grad({"X"});
  one_input_op("expand", random_tensor({2, 3}, DType::kF64, 9), {{"shape", Ints{2, 3}}})
      .check_grad({"X"});
}

TEST(ExpandOps, Errors) {
  Tensor x = random_tensor({2, 3}, DType::kF32, 10);
  expect_error(one_input_op("expand", x, {{"shape", Ints{4, 3}}}),
               {"expand", "[2, 3]", "[4, 3]", "dim 0 of X is 2"});
  expect_error(one_input_op("expand", x, {{"shape", Ints{3}}}), {"[2, 3]", "[3]", "rank"});
  expect_error(one_input_op("broadcast_to", x, {{"shape", Ints{-1, 2, 3}}}),
               {"[-1, 2, 3]", "new leading dim"});
  expect_error(one_input_op("expand", x, {{"shape", Ints{2, 0}}}), {"[2, 0]", "invalid dim 0"});
}

// ---- tile ----

Tensor tile_reference(const Tensor& x, const Ints& repeats) {
  const int rank = std::max<int>(x.rank(), static_cast<int>(repeats.size()));
  Shape s, out;
  for (int d = 0; d < rank; ++d) {
    const int xd = d - (rank - x.rank()), rd = d - (rank - static_cast<int>(repeats.size()));
    s.push_back(xd >= 0 ? x.dim(xd) : 1);
    out.push_back(s[d] * (rd >= 0 ? repeats[rd] : 1));
  }
  return by_index(x, out, [&](const Index& i) {
    int64_t off = 0;
    for (int d = 0; d < rank; ++d) off = off * s[d] + i[d] % s[d];
    return off;
  });
}

TEST(TileOp, MatchesReferenceInEveryDtype) {
  struct Case {
    Shape x;
    Ints repeats;
  };
  const Case cases[] = {{{2, 3}, {2, 1}},       {{2, 3}, {1, 3}},
                        {{2, 3}, {2}},          {{3}, {2, 1, 2}},
                        {{2, 3}, {1, 1}},       {{}, {4}},
                        {{2, 1, 3}, {2, 3, 2}}, {{2, 2, 2, 2, 2}, {2, 2, 2, 2, 2}},
                        {{300, 80}, {3, 2}}};
  for (const Case& c : cases) {
    for (DType dtype : kAllDTypes) {
      SCOPED_TRACE(str_cat(c.x, " repeats size ", c.repeats.size(), " ", dtype_name(dtype)));
      Tensor x = random_tensor(c.x, dtype, 11, -9, 9);
      one_input_op("tile", x, {{"repeat_times", c.repeats}})
          .check_output("Out", tile_reference(x, c.repeats), 0, 0);
    }
  }
}

TEST(TileOp, ShapesDeclaredOverUnknownDims) {
  EXPECT_EQ(declared("tile", {-1, 3}, {{"repeat_times", Ints{2, 2}}}), Shape({-1, 6}));
  EXPECT_EQ(declared("tile", {-1, 3}, {{"repeat_times", Ints{2, 1, 1}}}), Shape({2, -1, 3}));
}

TEST(TileOp, GradientMatchesFiniteDifferences) {
  one_input_op("tile", random_tensor({2, 3}, DType::kF64, 12), {{"repeat_times", Ints{2, 1, 2}}})
      .check_grad({"X"});
  one_input_op("tile", random_tensor({1, 2}, DType::kF64, 13), {{"repeat_times", Ints{3, 1}}})
      .check_grad({"X"});
}

TEST(TileOp, Errors) {
  Tensor x = random_tensor({2, 3}, DType::kF32, 14);
  expect_error(one_input_op("tile", x, {{"repeat_times", Ints{2, 0}}}),
               {"tile", "[2, 0]", "[2, 3]", ">= 1"});
  expect_error(one_input_op("tile", x, {{"repeat_times", Ints(9, 1)}}), {"more than 8"});
}

}  // namespace
}  // namespace skiff
