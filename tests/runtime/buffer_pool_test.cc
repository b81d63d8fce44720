#include "skiff/runtime/buffer_pool.h"

#include <gtest/gtest.h>

#include <cmath>

#include "skiff/runtime/executor.h"
#include "tests/testing/programs.h"

namespace skiff {
namespace {

TEST(BufferPool, ReusesTheSmallestBufferThatFits) {
  BufferPool pool;
  Variable a, b, c;
  a.set(Tensor::zeros({100}, DType::kF32));
  b.set(Tensor::zeros({10}, DType::kF32));
  const void* small = b.tensor()->raw_data();
  pool.recycle(&a);
  pool.recycle(&b);
  EXPECT_TRUE(a.empty());
  EXPECT_GE(pool.pooled_bytes(), 440u);
  pool.provide(&c, 32);
  Tensor* t = c.mutable_tensor();
  t->resize({8}, DType::kF32);
  EXPECT_EQ(t->raw_data(), small) << "the 40-byte buffer fits 32 bytes best";
}

TEST(BufferPool, SharedBuffersAreNotPooled) {
  BufferPool pool;
  Variable a;
  a.set(Tensor::zeros({16}, DType::kF32));
  Tensor view = *a.tensor();  // shares the storage
  pool.recycle(&a);
  EXPECT_EQ(pool.pooled_bytes(), 0u);
  EXPECT_TRUE(view.initialized());
}

TEST(BufferPool, SelectedRowsValuesArePooledAndProvided) {
  BufferPool pool;
  Variable a, b;
  SelectedRows* rows = a.mutable_selected_rows();
  rows->rows = {1, 4};
  rows->value = Tensor::zeros({2, 8}, DType::kF32);
  const void* buffer = rows->value.raw_data();
  pool.recycle(&a);
  EXPECT_TRUE(a.empty());
  EXPECT_GE(pool.pooled_bytes(), 64u);
  pool.provide(&b, 64, VarKind::kSelectedRows);
  ASSERT_TRUE(b.is_selected_rows());
  Tensor& value = b.mutable_selected_rows()->value;
  value.resize({2, 8}, DType::kF32);
  EXPECT_EQ(value.raw_data(), buffer);
  EXPECT_EQ(pool.pooled_bytes(), 0u);
}

TEST(BufferPool, PreparedBlockStaysCorrectWhileReusingBuffers) {
  // A chain of temporaries, one a reshape view of another, run repeatedly.
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF64, {2, 3});
  std::string e = testing::unary(b, "exp", "x");
  std::string r = b.apply("reshape", {{"X", {e}}}, {{"shape", std::vector<int64_t>{3, 2}}});
  std::string t = testing::unary(b, "tanh", r);
  std::string y = testing::add(b, testing::unary(b, "exp", t), r);
  Executor exe;
  auto prepared = exe.prepare(p, {y});
  Scope scope;
  for (int run = 0; run < 3; ++run) {
    double v = 0.1 * run;
    feed(p, &scope, "x", Tensor::from_vector<double>({2, 3}, {v, v, v, v, v, v}));
    exe.run(*prepared, &scope);
    double ex = std::exp(v);
    for (double got : fetch(scope, y).to_vector<double>())
      EXPECT_NEAR(got, std::exp(std::tanh(ex)) + ex, 1e-12) << "run " << run;
  }
}

}  // namespace
}  // namespace skiff
