// bfloat16 in files: a bfloat16 variable survives a .skmodel round trip and the verifier,
// a bfloat16 tensor a .skparams round trip bit for bit (with persistable loading), and
// .npy, which has no bfloat16, refuses it with an error that says what to do.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "skiff/api/builder.h"
#include "skiff/formats/npy.h"
#include "skiff/ir/printer.h"
#include "skiff/ir/serialize.h"
#include "skiff/ir/verifier.h"
#include "skiff/ops/registry.h"
#include "skiff/runtime/persistables.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::error_of;
using testing::random_tensor;

class Bf16FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("skiff_bf16_files_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

Program bf16_program() {
  Program p;
  BlockBuilder b(&p);
  const std::string x = b.data("x", DType::kF32, {-1, 4});
  const std::string w = b.persistable("w", DType::kBF16, {4, 3});
  const std::string xh = b.apply("cast", {{"X", {x}}}, {{"out_dtype", std::string("bfloat16")}});
  b.apply("matmul", {{"X", {xh}}, {"Y", {w}}}, {{"out_dtype", std::string("float32")}});
  return p;
}

TEST_F(Bf16FilesTest, ProgramRoundTrip) {
  const Program p = bf16_program();
  const Program back = program_from_bytes(program_to_bytes(p));
  const VarDesc* w = back.global_block().find_local_var("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->dtype, DType::kBF16);
  EXPECT_NO_THROW(verify_program(back, find_op_schema));
  EXPECT_EQ(program_to_text(back), program_to_text(p));
  EXPECT_NE(program_to_text(p).find("bfloat16"), std::string::npos) << program_to_text(p);
}

TEST_F(Bf16FilesTest, ParamsRoundTripBitForBit) {
  Tensor special = Tensor::empty({4}, DType::kBF16);
  const uint16_t bits[] = {0x7fc0, 0x8000, 0x0001, 0xff80};  // NaN, -0, a denormal, -inf
  std::memcpy(special.raw_data(), bits, sizeof bits);
  const NamedTensors saved = {{"w", random_tensor({3, 5}, DType::kBF16, 1)}, {"s", special}};
  save_params(path("p.skparams"), saved);
  const NamedTensors loaded = load_params(path("p.skparams"));
  ASSERT_EQ(loaded.size(), saved.size());
  for (size_t i = 0; i < saved.size(); ++i) {
    EXPECT_EQ(loaded[i].second.type_str(), saved[i].second.type_str());
    EXPECT_EQ(std::memcmp(loaded[i].second.raw_data(), saved[i].second.raw_data(),
                          saved[i].second.nbytes()),
              0)
        << saved[i].first;
  }

  // The persistable helpers check a bfloat16 declaration like any other.
  const Program p = bf16_program();
  const Tensor w = random_tensor({4, 3}, DType::kBF16, 2);
  Scope scope;
  scope.var("w")->mutable_tensor()->copy_from(w);
  save_persistables(path("model.skparams"), p, scope);
  Scope fresh;
  load_persistables(path("model.skparams"), p, &fresh);
  const Tensor& back = *fresh.find_var("w")->tensor();
  EXPECT_EQ(back.type_str(), "bfloat16[4, 3]");
  EXPECT_EQ(std::memcmp(back.raw_data(), w.raw_data(), w.nbytes()), 0);
}

TEST_F(Bf16FilesTest, NpyRefusesBfloat16) {
  const std::string message =
      error_of([&] { write_npy(path("x.npy"), random_tensor({2}, DType::kBF16, 1)); });
  EXPECT_NE(message.find("bfloat16"), std::string::npos) << message;
  EXPECT_NE(message.find("float32"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(path("x.npy")));
}

}  // namespace
}  // namespace skiff
