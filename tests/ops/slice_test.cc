// slice: values in every dtype against an index reference (negative and clamped
// bounds, empty results, decrease_axis down to rank 0, a last dim of one entry, the
// threaded path), shapes declared over -1 dims, gradients, and errors.
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
using testing::flat_offset;
using testing::Index;
using testing::OpTest;
using testing::random_tensor;
using Ints = std::vector<int64_t>;

constexpr DType kAllDTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};

struct SliceCase {
  Shape x;
  Ints axes, starts, ends, decrease;
  Ints begin;  // expected first index per dim of x
  Shape box;   // expected sizes per dim of x (before decrease_axis)
};

OpTest slice_op(const Tensor& x, const SliceCase& c) {
  OpTest t("slice");
  t.input("Input", x).attr("axes", c.axes).attr("starts", c.starts).attr("ends", c.ends);
  if (!c.decrease.empty()) t.attr("decrease_axis", c.decrease);
  return t;
}

Tensor slice_reference(const Tensor& x, const SliceCase& c) {
  Tensor box = by_index(x, c.box, [&](const Index& i) {
    Index j = i;
    for (int d = 0; d < x.rank(); ++d) j[d] += c.begin[d];
    return flat_offset(x.shape(), j);
  });
  Shape out;
  for (int d = 0; d < x.rank(); ++d) {
    if (std::find(c.decrease.begin(), c.decrease.end(), d) == c.decrease.end()) {
      out.push_back(c.box[d]);
    }
  }
  return testing::reshaped(box, out);
}

const SliceCase kCases[] = {
    {{4, 5, 6}, {0}, {1}, {3}, {}, {1, 0, 0}, {2, 5, 6}},
    {{4, 5, 6}, {1, 2}, {-3, 0}, {100, -1}, {}, {0, 2, 0}, {4, 3, 5}},
    {{4, 5, 6}, {2}, {2}, {3}, {}, {0, 0, 2}, {4, 5, 1}},
    {{4, 5, 6}, {-1, 0}, {-100, 2}, {2, 1}, {}, {2, 0, 0}, {0, 5, 2}},  // empty
    {{4, 5, 6}, {0, 1}, {1, 4}, {2, 5}, {0}, {1, 4, 0}, {1, 1, 6}},
    {{4, 5, 6}, {0, 1, 2}, {3, -1, 5}, {4, 5, 6}, {0, 1, 2}, {3, 4, 5}, {1, 1, 1}},
    {{7}, {0}, {-4}, {-1}, {}, {3}, {3}},
    {{300, 400}, {1}, {10}, {390}, {}, {0, 10}, {300, 380}},
};

TEST(SliceOp, MatchesReferenceInEveryDtype) {
  for (const SliceCase& c : kCases) {
    for (DType dtype : kAllDTypes) {
      SCOPED_TRACE(str_cat(c.x, " axes ", c.axes.size(), " box ", c.box, " ", dtype_name(dtype)));
      Tensor x = random_tensor(c.x, dtype, 1, -9, 9);
      slice_op(x, c).check_output("Out", slice_reference(x, c), 0, 0);
    }
  }
}

TEST(SliceOp, ShapesDeclaredOverUnknownDims) {
  auto declared = [](const Shape& x, const SliceCase& c) {
    return declared_shape(
        "slice", {{"Input", DType::kF32, x}},
        {{"axes", c.axes}, {"starts", c.starts}, {"ends", c.ends}, {"decrease_axis", c.decrease}});
  };
  EXPECT_EQ(declared({-1, 5}, {{}, {0}, {1}, {3}, {}, {}, {}}), Shape({-1, 5}));
  EXPECT_EQ(declared({-1, 5}, {{}, {1}, {1}, {3}, {}, {}, {}}), Shape({-1, 2}));
  EXPECT_EQ(declared({-1, 5}, {{}, {0, 1}, {0, 1}, {1, 3}, {0}, {}, {}}), Shape({2}));
}

TEST(SliceOp, GradientMatchesFiniteDifferences) {
  for (const SliceCase& c : {kCases[1], kCases[2], kCases[4]}) {
    OpTest t = slice_op(random_tensor({4, 5, 6}, DType::kF64, 2), c);
    t.check_grad({"Input"});
  }
}

TEST(SliceOp, Errors) {
  Tensor x = random_tensor({4, 5}, DType::kF32, 3);
  expect_error(slice_op(x, {{}, {0, 1}, {0}, {1}, {}, {}, {}}),
               {"slice", "axes [0, 1]", "starts [0]", "same length"});
  expect_error(slice_op(x, {{}, {0, -2}, {0, 0}, {1, 1}, {}, {}, {}}), {"[0, -2]", "twice"});
  expect_error(slice_op(x, {{}, {2}, {0}, {1}, {}, {}, {}}), {"axis 2", "[4, 5]"});
  expect_error(slice_op(x, {{}, {1}, {0}, {2}, {1}, {}, {}}),
               {"decrease_axis", "axis 1", "[4, 5]", "keeps 2"});
}

}  // namespace
}  // namespace skiff
