// gather, gather_nd, scatter, scatter_reduce and one_hot: values in every dtype against index
// references (negative and repeated indices, the threaded path), shapes declared over
// -1 dims, gradients by finite differences (repeated indices included), and errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "skiff/runtime/executor.h"
#include "tests/ops/shape_reference.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::by_index;
using testing::declared_shape;
using testing::expect_error;
using testing::flat_offset;
using testing::from_f64;
using testing::Index;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr DType kAllDTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};

// `values` as an int32 or int64 tensor of `shape`.
Tensor ids(const Shape& shape, const std::vector<int64_t>& values, DType dtype = DType::kI64) {
  return from_f64(to_f64(Tensor::from_vector<int64_t>(shape, values)), dtype);
}

int64_t wrapped(int64_t v, int64_t dim) { return v < 0 ? v + dim : v; }

// ---- gather ----

OpTest gather_op(const Tensor& x, const Tensor& index, int64_t axis) {
  OpTest t("gather");
  t.input("X", x).input("Index", index).attr("axis", axis);
  return t;
}

Tensor gather_reference(const Tensor& x, const Tensor& index, int axis) {
  std::vector<int64_t> idx;
  for (double v : to_f64(index).to_vector<double>()) idx.push_back(static_cast<int64_t>(v));
  Shape out;
  for (int d = 0; d < x.rank(); ++d) {
    if (d != axis) out.push_back(x.dim(d));
    if (d == axis && index.rank() == 1) out.push_back(index.numel());
  }
  return by_index(x, out, [&](const Index& i) {
    Index j = i;
    if (index.rank() == 0) j.insert(j.begin() + axis, 0);
    j[axis] = wrapped(idx[index.rank() == 0 ? 0 : i[axis]], x.dim(axis));
    return flat_offset(x.shape(), j);
  });
}

TEST(GatherOp, MatchesReferenceInEveryDtype) {
  struct Case {
    Shape x;
    Tensor index;
    int64_t axis;
  };
  std::vector<int64_t> many;
  many.reserve(3000);
  for (int i = 0; i < 3000; ++i) many.push_back((i * 7919) % 1000 - 500);
  const Case cases[] = {
      {{5, 3}, ids({4}, {4, 0, -1, 2}), 0},  {{2, 4, 3}, ids({2}, {3, 0}, DType::kI32), 1},
      {{2, 4, 3}, ids({3}, {2, 2, -3}), -1}, {{6}, ids({4}, {5, 1, 1, 0}, DType::kI32), 0},
      {{2, 4, 3}, ids({}, {1}), 1},          {{3, 2}, ids({0}, {}), 0},
      {{1000, 64}, ids({3000}, many), 0},
  };
  for (const Case& c : cases) {
    for (DType dtype : kAllDTypes) {
      SCOPED_TRACE(
          str_cat(c.x, " index ", c.index.type_str(), " axis ", c.axis, " ", dtype_name(dtype)));
      Tensor x = random_tensor(c.x, dtype, 1, -9, 9);
      const int axis = static_cast<int>(c.axis < 0 ? c.axis + c.x.rank() : c.axis);
      gather_op(x, c.index, c.axis).check_output("Out", gather_reference(x, c.index, axis), 0, 0);
    }
  }
}

TEST(GatherOp, ShapesDeclaredOverUnknownDims) {
  EXPECT_EQ(
      declared_shape("gather", {{"X", DType::kF32, {-1, 3}}, {"Index", DType::kI64, {-1}}}, {}),
      Shape({-1, 3}));
  EXPECT_EQ(declared_shape("gather", {{"X", DType::kF32, {4, -1}}, {"Index", DType::kI32, {2}}},
                           {{"axis", int64_t{1}}}),
            Shape({4, 2}));
}

TEST(GatherOp, GradientMatchesFiniteDifferences) {
  gather_op(random_tensor({4, 3}, DType::kF64, 2), ids({3}, {1, 1, -1}), 0).check_grad({"X"});
  gather_op(random_tensor({2, 4, 3}, DType::kF64, 3), ids({2}, {3, 0}, DType::kI32), 1)
      .check_grad({"X"});
}

TEST(GatherOp, Errors) {
  Tensor x = random_tensor({5, 3}, DType::kF32, 4);
  expect_error(gather_op(x, ids({2}, {1, 5}), 0), {"gather", "index 5", "axis 0", "[5, 3]"});
  expect_error(gather_op(x, ids({2}, {1, -6}), 0), {"index -6", "[5, 3]"});
  expect_error(gather_op(x, ids({2, 1}, {1, 2}), 0), {"1-D", "[2, 1]"});
  expect_error(gather_op(x, random_tensor({2}, DType::kF32, 5), 0), {"int32 or int64", "float32"});
  expect_error(gather_op(x, ids({1}, {0}), 2), {"axis 2", "[5, 3]"});
}

// ---- gather_nd ----

OpTest gather_nd_op(const Tensor& x, const Tensor& index) {
  OpTest t("gather_nd");
  t.input("X", x).input("Index", index);
  return t;
}

Tensor gather_nd_reference(const Tensor& x, const Tensor& index) {
  const Tensor idx = to_f64(index);
  const int k = static_cast<int>(index.dim(-1));
  Shape out;
  for (int d = 0; d + 1 < index.rank(); ++d) out.push_back(index.dim(d));
  for (int d = k; d < x.rank(); ++d) out.push_back(x.dim(d));
  const int lead = index.rank() - 1;
  return by_index(x, out, [&](const Index& i) {
    int64_t t = 0;
    for (int d = 0; d < lead; ++d) t = t * index.dim(d) + i[d];
    Index j;
    for (int d = 0; d < k; ++d)
      j.push_back(wrapped(static_cast<int64_t>(idx.data<double>()[t * k + d]), x.dim(d)));
    for (int d = lead; d < static_cast<int>(i.size()); ++d) j.push_back(i[d]);
    return flat_offset(x.shape(), j);
  });
}

TEST(GatherNdOp, MatchesReferenceInEveryDtype) {
  const Tensor cases[] = {
      ids({3, 2}, {1, 2, 0, -1, 2, 0}),
      ids({2, 1}, {2, -3}, DType::kI32),
      ids({2, 2, 3}, {0, 0, 0, 2, 3, 1, 1, 1, 1, -1, -1, -1}),
      ids({2, 0}, {}),
      ids({1, 3, 2}, {0, 1, 1, 1, 0, 1}),
  };
  for (const Tensor& index : cases) {
    for (DType dtype : kAllDTypes) {
      SCOPED_TRACE(str_cat("index ", index.type_str(), " ", dtype_name(dtype)));
      Tensor x = random_tensor({3, 4, 2}, dtype, 6, -9, 9);
      gather_nd_op(x, index).check_output("Out", gather_nd_reference(x, index), 0, 0);
    }
  }
}

TEST(GatherNdOp, ShapesDeclaredOverUnknownDims) {
  EXPECT_EQ(declared_shape("gather_nd",
                           {{"X", DType::kF32, {-1, 4, 2}}, {"Index", DType::kI64, {-1, 2}}}, {}),
            Shape({-1, 2}));
}

TEST(GatherNdOp, GradientMatchesFiniteDifferences) {
  gather_nd_op(random_tensor({3, 2, 2}, DType::kF64, 7), ids({3, 2}, {1, 0, 1, 0, -1, 1}))
      .check_grad({"X"});
}

TEST(GatherNdOp, Errors) {
  Tensor x = random_tensor({3, 4}, DType::kF32, 8);
  expect_error(gather_nd_op(x, ids({1, 3}, {0, 0, 0})), {"gather_nd", "[1, 3]", "[3, 4]"});
  expect_error(gather_nd_op(x, ids({1, 2}, {0, 4})), {"index 4", "axis 1", "[3, 4]"});
  expect_error(gather_nd_op(x, ids({}, {0})), {"rank >= 1"});
}

// ---- scatter ----

OpTest scatter_op(const Tensor& x, const Tensor& index, const Tensor& updates, bool overwrite) {
  OpTest t("scatter");
  t.input("X", x).input("Ids", index).input("Updates", updates).attr("overwrite", overwrite);
  return t;
}

Tensor scatter_reference(const Tensor& x, const std::vector<int64_t>& rows, const Tensor& updates,
                         bool overwrite) {
  Tensor out = to_f64(x);
  const Tensor u = to_f64(updates);
  const int64_t n = x.dim(0), row = x.numel() / n;
  double* o = out.data<double>();
  if (!overwrite) {
    for (int64_t r : rows) std::fill_n(o + wrapped(r, n) * row, row, 0.0);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    for (int64_t k = 0; k < row; ++k) {
      double& dst = o[wrapped(rows[i], n) * row + k];
      dst = (overwrite ? 0.0 : dst) + u.data<double>()[i * row + k];
    }
  }
  return from_f64(out, x.dtype());
}

TEST(ScatterOp, MatchesReferenceInEveryDtype) {
  const std::vector<std::vector<int64_t>> row_sets = {{1, 3, -1}, {1, 3, 1}, {0}};
  for (bool overwrite : {true, false}) {
    for (const auto& rows : row_sets) {
      for (DType dtype : kAllDTypes) {
        if (!overwrite && dtype == DType::kBool) continue;
        for (DType index_dtype : {DType::kI32, DType::kI64}) {
          SCOPED_TRACE(str_cat("overwrite ", overwrite, " rows ", rows.size(), " ",
                               dtype_name(dtype), " ", dtype_name(index_dtype)));
          const int64_t m = static_cast<int64_t>(rows.size());
          Tensor x = random_tensor({5, 3}, dtype, 9, -9, 9);
          Tensor updates = random_tensor({m, 3}, dtype, 10, -9, 9);
          scatter_op(x, ids({m}, rows, index_dtype), updates, overwrite)
              .check_output("Out", scatter_reference(x, rows, updates, overwrite), 0, 0);
        }
      }
    }
  }
}

TEST(ScatterOp, WritesIntoItsInput) {
  Program p;
  BlockBuilder b(&p);
  const std::string x = b.data("x", DType::kF32, {4, 2});
  const std::string rows = b.data("rows", DType::kI64, {2});
  const std::string updates = b.data("updates", DType::kF32, {2, 2});
  b.op("scatter", {{"X", {x}}, {"Ids", {rows}}, {"Updates", {updates}}}, {{"Out", {x}}},
       {{"overwrite", false}});
  Tensor xv = random_tensor({4, 2}, DType::kF32, 19), uv = random_tensor({2, 2}, DType::kF32, 20);
  Tensor want = scatter_reference(xv, {2, 2}, uv, false);
  Scope scope;
  auto out = Executor().run(p, &scope, {{x, xv}, {rows, ids({2}, {2, 2})}, {updates, uv}}, {x});
  std::string why;
  EXPECT_TRUE(testing::all_close(out[0], want, 1e-6, 1e-6, &why)) << why;
}

TEST(ScatterOp, ShapesDeclaredOverUnknownDims) {
  EXPECT_EQ(declared_shape("scatter",
                           {{"X", DType::kF32, {-1, 3}},
                            {"Ids", DType::kI64, {-1}},
                            {"Updates", DType::kF32, {-1, 3}}},
                           {}),
            Shape({-1, 3}));
}

TEST(ScatterOp, GradientsMatchFiniteDifferences) {
  for (bool overwrite : {true, false}) {
    SCOPED_TRACE(overwrite ? "overwrite" : "sum");
    scatter_op(random_tensor({4, 2}, DType::kF64, 11), ids({3}, {1, 3, 1}),
               random_tensor({3, 2}, DType::kF64, 12), overwrite)
        .check_grad({"X", "Updates"});
  }
}

// ---- scatter_reduce ----

OpTest scatter_reduce_op(const Tensor& x, const Tensor& positions, const Tensor& updates,
                         const std::string& reduce, bool include_self) {
  OpTest t("scatter_reduce");
  t.input("X", x).input("Index", positions).input("Updates", updates);
  t.attr("reduce", reduce).attr("include_self", include_self);
  return t;
}

TEST(ScatterReduceOp, CombinesAsPaddlesPutAlongAxis) {
  // Paddle's put_along_axis example: x [[10, 30, 20], [60, 40, 50]], updates 1, 3 into
  // element 0 and 2, 4 into element 1.
  const Tensor x = Tensor::from_vector<int64_t>({2, 3}, {10, 30, 20, 60, 40, 50});
  const Tensor pos = ids({4}, {0, 1, 0, 1}, DType::kI32);
  const Tensor upd = Tensor::from_vector<int64_t>({2, 2}, {1, 2, 3, 4});
  struct Case {
    const char* reduce;
    bool include_self;
    std::vector<int64_t> first_two;
  };
  const Case cases[] = {{"sum", true, {14, 36}},   {"sum", false, {4, 6}},
                        {"prod", true, {30, 240}}, {"mean", true, {4, 12}},
                        {"mean", false, {2, 3}},   {"amin", true, {1, 2}},
                        {"amax", true, {10, 30}},  {"amax", false, {3, 4}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(str_cat(c.reduce, " include_self ", c.include_self));
    std::vector<int64_t> want = {c.first_two[0], c.first_two[1], 20, 60, 40, 50};
    for (DType dtype : {DType::kI64, DType::kI32, DType::kF64, DType::kF32}) {
      if (std::string(c.reduce) == "mean" && is_floating(dtype)) continue;  // see below
      scatter_reduce_op(from_f64(to_f64(x), dtype), pos, from_f64(to_f64(upd), dtype), c.reduce,
                        c.include_self)
          .check_output("Out", from_f64(to_f64(Tensor::from_vector<int64_t>({2, 3}, want)), dtype),
                        0, 0);
    }
  }
}

TEST(ScatterReduceOp, FloatMeansDoNotTruncate) {
  scatter_reduce_op(Tensor::from_vector<double>({3}, {10, 30, 20}), ids({2}, {0, 0}),
                    Tensor::from_vector<double>({2}, {1, 3}), "mean", true)
      .check_output("Out", Tensor::from_vector<double>({3}, {14.0 / 3, 30, 20}), 1e-12, 0);
}

TEST(ScatterReduceOp, GradientsMatchFiniteDifferences) {
  // Distinct values, so that no max or min is tied within the finite-difference step.
  const Tensor x = Tensor::from_vector<double>({2, 3}, {1.5, -2.0, 0.7, 3.1, -0.4, 2.2});
  const Tensor upd = Tensor::from_vector<double>({4}, {0.3, -1.1, 2.6, 1.9});
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      SCOPED_TRACE(str_cat(reduce, " include_self ", include_self));
      scatter_reduce_op(x, ids({4}, {0, 4, 0, 5}), upd, reduce, include_self)
          .check_grad({"X", "Updates"});
    }
  }
}

TEST(ScatterReduceOp, ATiedMaximumSharesItsGradient) {
  OpTest t = scatter_reduce_op(Tensor::from_vector<double>({2}, {5, 1}), ids({2}, {0, 0}),
                               Tensor::from_vector<double>({2}, {5, 2}), "amax", true);
  t.check_grad({"X", "Updates"});
}

TEST(ScatterReduceOp, Errors) {
  const Tensor x = random_tensor({2, 3}, DType::kF32, 30);
  expect_error(
      scatter_reduce_op(x, ids({1}, {6}), random_tensor({1}, DType::kF32, 31), "sum", true),
      {"scatter_reduce", "position 6", "6 elements"});
  expect_error(
      scatter_reduce_op(x, ids({1}, {0}), random_tensor({1}, DType::kF32, 32), "median", true),
      {"scatter_reduce", "'median'"});
  expect_error(
      scatter_reduce_op(x, ids({2}, {0, 1}), random_tensor({3}, DType::kF32, 33), "sum", true),
      {"scatter_reduce", "one value per position"});
}

TEST(ScatterOp, Errors) {
  Tensor x = random_tensor({4, 2}, DType::kF32, 13);
  expect_error(scatter_op(x, ids({2}, {0, 1}), random_tensor({2, 3}, DType::kF32, 14), true),
               {"scatter", "[2, 3]", "[4, 2]"});
  expect_error(scatter_op(x, ids({1}, {4}), random_tensor({1, 2}, DType::kF32, 15), true),
               {"index 4", "[4, 2]"});
  Tensor flags = random_tensor({4, 2}, DType::kBool, 16);
  expect_error(scatter_op(flags, ids({1}, {0}), random_tensor({1, 2}, DType::kBool, 17), false),
               {"overwrite=false", "bool"});
}

// ---- one_hot ----

OpTest one_hot_op(const Tensor& x, int64_t depth, const AttrList& attrs = {}) {
  OpTest t("one_hot");
  t.input("X", x).attr("depth", depth);
  for (const auto& [name, value] : attrs) t.attr(name, value);
  return t;
}

TEST(OneHotOp, EncodesLabels) {
  for (DType index_dtype : {DType::kI32, DType::kI64}) {
    Tensor want = Tensor::from_vector<float>({2, 2, 3}, {1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0});
    one_hot_op(ids({2, 2}, {0, 2, 1, 1}, index_dtype), 3).check_output("Out", want, 0, 0);
  }
  one_hot_op(ids({2}, {1, 0}), 2, {{"dtype", std::string("float64")}})
      .check_output("Out", Tensor::from_vector<double>({2, 2}, {0, 1, 1, 0}), 0, 0);
  one_hot_op(ids({3}, {-1, 3, 1}), 3, {{"allow_out_of_range", true}})
      .check_output("Out", Tensor::from_vector<float>({3, 3}, {0, 0, 0, 0, 0, 0, 0, 1, 0}), 0, 0);
}

TEST(OneHotOp, ShapesDeclaredOverUnknownDims) {
  EXPECT_EQ(declared_shape("one_hot", {{"X", DType::kI64, {-1}}}, {{"depth", int64_t{5}}}),
            Shape({-1, 5}));
}

TEST(OneHotOp, Errors) {
  expect_error(one_hot_op(ids({2}, {1, 3}), 3), {"one_hot", "label 3", "depth 3"});
  expect_error(one_hot_op(ids({2}, {1, 0}), 0), {"depth must be >= 1"});
  expect_error(one_hot_op(random_tensor({2}, DType::kF32, 18), 3), {"int32 or int64", "float32"});
  expect_error(one_hot_op(ids({2}, {1, 0}), 2, {{"dtype", std::string("int32")}}),
               {"float32 or float64", "int32"});
}

}  // namespace
}  // namespace skiff
