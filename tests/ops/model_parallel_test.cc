// The tensor-parallel ops in a world of one (their communication over a ring of one rank:
// the sums and gathers of two or more ranks are tested by the tensor-parallel jobs of
// tests/python/distributed): values, gradients by finite differences (each op's gradient is
// the dual op), c_split's part of any rank, and the errors.
#include <gtest/gtest.h>

#include "skiff/dist/communicator.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::OpTest;
using testing::random_tensor;

class ModelParallelOps : public ::testing::Test {
 protected:
  void SetUp() override { dist::set_communicator(0, dist::single_process_communicator()); }
};

TEST_F(ModelParallelOps, OneRankPassesValuesAndGradientsThrough) {
  for (const char* type : {"c_identity", "mp_allreduce_sum", "c_split", "c_concat"}) {
    SCOPED_TRACE(type);
    for (DType dtype : {DType::kF32, DType::kF64}) {
      const Tensor x = random_tensor({3, 4}, dtype, 5);
      OpTest t(type);
      t.input("X", x);
      t.check_output("Out", x);
      t.check_grad({"X"});
    }
  }
}

TEST_F(ModelParallelOps, SplitKeepsThisRanksPartOfTheLastAxis) {
  const Tensor x = Tensor::from_vector<double>({2, 6}, {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15});
  OpTest t("c_split");
  t.input("X", x).attr("rank", int64_t{1}).attr("nranks", int64_t{3});
  t.check_output("Out", Tensor::from_vector<double>({2, 2}, {2, 3, 12, 13}));
}

TEST_F(ModelParallelOps, MistakesAreNamed) {
  OpTest uneven("c_split");
  uneven.input("X", random_tensor({2, 5}, DType::kF32, 1)).attr("nranks", int64_t{2});
  expect_error(uneven, {"c_split", "not divisible by nranks 2"});
  OpTest outside("c_concat");
  outside.input("X", random_tensor({2, 4}, DType::kF32, 1))
      .attr("rank", int64_t{2})
      .attr("nranks", int64_t{2});
  expect_error(outside, {"c_concat", "rank 2 is not in [0, nranks 2)"});
  OpTest scalar("c_split");
  scalar.input("X", random_tensor({}, DType::kF32, 1));
  expect_error(scalar, {"c_split", "must have an axis"});
}

}  // namespace
}  // namespace skiff
