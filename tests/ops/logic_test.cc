// Comparisons (less_than ... not_equal) and logical ops: truth tables per dtype,
// numpy broadcasting against an index-by-index reference, one-element loop
// conditions, and user errors.
#include <gtest/gtest.h>

#include <cmath>

#include "skiff/api/builder.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr DType kAllTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};

Tensor bools(const Shape& shape, std::vector<int> v) {
  std::vector<bool> b(v.begin(), v.end());
  Tensor t = Tensor::empty(shape, DType::kBool);
  for (size_t i = 0; i < b.size(); ++i) t.data<bool>()[i] = b[i];
  return t;
}

struct CompareCase {
  const char* type;
  std::vector<int> want;  // for x = {1, 2, 3, 0}, y = {2, 2, 1, 0}
};

const CompareCase kCompareCases[] = {
    {"less_than", {1, 0, 0, 0}},     {"less_equal", {1, 1, 0, 1}}, {"greater_than", {0, 0, 1, 0}},
    {"greater_equal", {0, 1, 1, 1}}, {"equal", {0, 1, 0, 1}},      {"not_equal", {1, 0, 1, 0}},
};

TEST(CompareOps, TruthTablesEveryDtype) {
  for (const CompareCase& c : kCompareCases) {
    for (DType dtype : kAllTypes) {
      SCOPED_TRACE(str_cat(c.type, " ", dtype_name(dtype)));
      // For bool the same pattern holds with x = {0, 1, 1, 0}, y = {1, 1, 0, 0}.
      std::vector<double> x = {1, 2, 3, 0}, y = {2, 2, 1, 0};
      if (dtype == DType::kBool) x = {0, 1, 1, 0}, y = {1, 1, 0, 0};
      OpTest t(c.type);
      t.input("X", from_f64(Tensor::from_vector<double>({2, 2}, x), dtype))
          .input("Y", from_f64(Tensor::from_vector<double>({2, 2}, y), dtype));
      t.check_output("Out", bools({2, 2}, c.want), 0, 0);
    }
  }
}

TEST(CompareOps, FloatEdgeCases) {
  OpTest t("equal");
  t.input("X", Tensor::from_vector<float>({3}, {NAN, 0.0f, -0.0f}))
      .input("Y", Tensor::from_vector<float>({3}, {NAN, -0.0f, 1e-30f}));
  t.check_output("Out", bools({3}, {0, 1, 0}), 0, 0);
  OpTest ne("not_equal");
  ne.input("X", Tensor::from_vector<double>({1}, {NAN}))
      .input("Y", Tensor::from_vector<double>({1}, {NAN}));
  ne.check_output("Out", bools({1}, {1}), 0, 0);
}

// The reference: out[idx] = x[idx broadcast] < y[idx broadcast], index by index.
Tensor less_than_reference(const Tensor& x, const Tensor& y, const Shape& out_shape) {
  Tensor xd = to_f64(x), yd = to_f64(y);
  Tensor out = Tensor::empty(out_shape, DType::kBool);
  const int r = out_shape.rank();
  std::vector<int64_t> idx(r, 0);
  auto offset = [&](const Shape& s) {
    int64_t off = 0;
    for (int d = 0; d < s.rank(); ++d) {
      int64_t i = idx[r - s.rank() + d];
      off = off * s[d] + (s[d] == 1 ? 0 : i);
    }
    return off;
  };
  for (int64_t o = 0; o < out.numel(); ++o) {
    int64_t rest = o;
    for (int d = r - 1; d >= 0; --d) {
      idx[d] = rest % out_shape[d];
      rest /= out_shape[d];
    }
    out.data<bool>()[o] =
        xd.data<double>()[offset(x.shape())] < yd.data<double>()[offset(y.shape())];
  }
  return out;
}

TEST(CompareOps, NumpyBroadcasting) {
  struct Case {
    Shape x, y, out;
  };
  const Case cases[] = {
      {{2, 3, 1}, {4}, {2, 3, 4}},
      {{3, 1}, {1, 4}, {3, 4}},
      {{4}, {2, 3, 4}, {2, 3, 4}},
      {{}, {2, 2}, {2, 2}},
      {{2, 2}, {1}, {2, 2}},
      {{1}, {}, {1}},
      {{1, 1}, {1}, {1, 1}},
      {{5, 1, 3}, {5, 2, 1}, {5, 2, 3}},
      {{200, 1}, {1, 300}, {200, 300}},  // large: threaded
  };
  for (const Case& c : cases) {
    for (DType dtype : {DType::kF32, DType::kI64}) {
      SCOPED_TRACE(str_cat(c.x, " vs ", c.y, " ", dtype_name(dtype)));
      Tensor x = random_tensor(c.x, dtype, 1, -3, 3), y = random_tensor(c.y, dtype, 2, -3, 3);
      OpTest t("less_than");
      t.input("X", x).input("Y", y);
      t.check_output("Out", less_than_reference(x, y, c.out), 0, 0);
    }
  }
}

TEST(CompareOps, Errors) {
  OpTest dtypes("less_than");
  dtypes.input("X", random_tensor({2}, DType::kI32, 1))
      .input("Y", random_tensor({2}, DType::kI64, 1));
  EXPECT_THROW(dtypes.run(), Error);
  OpTest shapes("greater_equal");
  shapes.input("X", random_tensor({2, 3}, DType::kF32, 1))
      .input("Y", random_tensor({2}, DType::kF32, 1));
  EXPECT_THROW(shapes.run(), Error);
}

TEST(CompareOps, LoopConditionWithRunTimeShapes) {
  // i < n on [1]-shaped int64 counters, as a while loop footer computes it, into an
  // existing output, with Out declared before any value exists.
  Program p;
  BlockBuilder b(&p);
  std::string i = b.data("i", DType::kI64, {1});
  std::string n = b.data("n", DType::kI64, {1});
  b.op("less_than", {{"X", {i}}, {"Y", {n}}}, {{"Out", {"cond"}}});
  b.op("increment", {{"X", {i}}}, {{"Out", {i}}});
  b.op("less_than", {{"X", {i}}, {"Y", {n}}}, {{"Out", {"cond"}}});
  Scope scope;
  auto out = Executor().run(
      p, &scope,
      {{i, Tensor::from_vector<int64_t>({1}, {2})}, {n, Tensor::from_vector<int64_t>({1}, {3})}},
      {"cond"});
  EXPECT_EQ(out[0].shape(), Shape({1}));
  EXPECT_FALSE(out[0].item<bool>());
}

// ---- logical ----

TEST(LogicalOps, TruthTables) {
  Tensor x = bools({4}, {0, 0, 1, 1}), y = bools({4}, {0, 1, 0, 1});
  const std::pair<const char*, std::vector<int>> cases[] = {
      {"logical_and", {0, 0, 0, 1}}, {"logical_or", {0, 1, 1, 1}}, {"logical_xor", {0, 1, 1, 0}}};
  for (const auto& [type, want] : cases) {
    SCOPED_TRACE(type);
    OpTest t(type);
    t.input("X", x).input("Y", y);
    t.check_output("Out", bools({4}, want), 0, 0);
  }
  OpTest n("logical_not");
  n.input("X", x);
  n.check_output("Out", bools({4}, {1, 1, 0, 0}), 0, 0);
}

TEST(LogicalOps, Broadcasting) {
  OpTest t("logical_and");
  t.input("X", bools({2, 1}, {1, 0})).input("Y", bools({3}, {1, 0, 1}));
  t.check_output("Out", bools({2, 3}, {1, 0, 1, 0, 0, 0}), 0, 0);
  OpTest scalar("logical_or");
  scalar.input("X", bools({}, {1})).input("Y", bools({3}, {0, 0, 1}));
  scalar.check_output("Out", bools({3}, {1, 1, 1}), 0, 0);
}

TEST(LogicalOps, NotInPlaceAndLarge) {
  Program p;
  BlockBuilder b(&p);
  std::string c = b.data("c", DType::kBool, {-1});
  b.op("logical_not", {{"X", {c}}}, {{"Out", {c}}});
  std::vector<int> v(100000);
  for (size_t k = 0; k < v.size(); ++k) v[k] = k % 3 == 0;
  Tensor fed = bools({100000}, v);
  Scope scope;
  auto out = Executor().run(p, &scope, {{c, fed}}, {c});
  for (size_t k = 0; k < v.size(); ++k) ASSERT_EQ(out[0].data<bool>()[k], !v[k]) << k;
  EXPECT_EQ(fed.data<bool>()[0], true);  // the fed tensor is not written through
}

TEST(LogicalOps, Errors) {
  OpTest x_not_bool("logical_and");
  x_not_bool.input("X", random_tensor({2}, DType::kI32, 1)).input("Y", bools({2}, {1, 0}));
  EXPECT_THROW(x_not_bool.run(), Error);
  OpTest not_float("logical_not");
  not_float.input("X", random_tensor({2}, DType::kF32, 1));
  EXPECT_THROW(not_float.run(), Error);
}

}  // namespace
}  // namespace skiff
