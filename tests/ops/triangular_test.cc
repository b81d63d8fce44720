// tril_triu: both triangles for diagonals below, on and above the main one, batched
// and non-square matrices in every dtype, the threaded path, gradients, errors.
#include <gtest/gtest.h>

#include <vector>

#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr DType kAllDTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};

OpTest tril_triu(const Tensor& x, int64_t diagonal, bool lower) {
  OpTest t("tril_triu");
  t.input("X", x).attr("diagonal", diagonal).attr("lower", lower);
  return t;
}

// x with the elements outside the triangle zeroed, by index.
Tensor reference(const Tensor& x, int64_t diagonal, bool lower) {
  std::vector<double> v = to_f64(x).to_vector<double>();
  const int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
  for (size_t k = 0; k < v.size(); ++k) {
    const int64_t i = static_cast<int64_t>(k) / cols % rows, j = static_cast<int64_t>(k) % cols;
    if (lower ? j - i > diagonal : j - i < diagonal) v[k] = 0;
  }
  return from_f64(Tensor::from_vector<double>(x.shape(), v), x.dtype());
}

TEST(TrilTriuOp, MatchesIndexReferenceInEveryDtype) {
  for (DType dt : kAllDTypes) {
    const Tensor x = random_tensor({2, 3, 5}, dt, 1, -4, 4);
    for (int64_t diagonal : {-4, -1, 0, 2, 6}) {
      for (bool lower : {true, false}) {
        SCOPED_TRACE(str_cat(dtype_name(dt), " diagonal ", diagonal, " lower ", lower));
        tril_triu(x, diagonal, lower).check_output("Out", reference(x, diagonal, lower), 0, 0);
      }
    }
  }
  const Tensor big = random_tensor({3, 300, 200}, DType::kF32, 2);
  tril_triu(big, -7, true).check_output("Out", reference(big, -7, true), 0, 0);
}

TEST(TrilTriuOp, Gradient) {
  const Tensor x = random_tensor({2, 4, 3}, DType::kF64, 3);
  tril_triu(x, 0, true).check_grad({"X"});
  tril_triu(x, 1, false).check_grad({"X"});
}

TEST(TrilTriuOp, Errors) {
  expect_error(tril_triu(random_tensor({4}, DType::kF32, 4), 0, true),
               {"tril_triu", "at least 2 dims", "[4]"});
}

}  // namespace
}  // namespace skiff
