// .skparams files: exact round trips for every dtype and shape, detection of any
// damage, atomic replacement, and the persistable-variable helpers of the runtime
// (runtime/persistables.h) over them.
#include "skiff/formats/params_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "skiff/ir/file_io.h"
#include "skiff/runtime/persistables.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::error_of;

class ParamsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("skiff_params_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

NamedTensors sample_tensors() {
  Tensor empty = Tensor::empty({0, 3}, DType::kF32);
  return {{"w", Tensor::from_vector<float>({2, 3}, {1, -2, 3.5f, 4, 5, 6})},
          {"b", Tensor::from_vector<double>({3}, {0.25, -1e300, 7})},
          {"step", Tensor::scalar<int64_t>(-(1LL << 40))},
          {"ids", Tensor::from_vector<int32_t>({1, 1, 1, 1, 1, 1, 1, 2}, {-7, 9})},
          {"mask", Tensor::from_vector<bool>({4}, {true, false, false, true})},
          {"q", Tensor::from_vector<int8_t>({3}, {-128, 5, 127})},
          {"pixels", Tensor::from_vector<uint8_t>({2}, {0, 255})},
          {"acc", Tensor::from_vector<int16_t>({2}, {-300, 300})},
          {"nothing", empty}};
}

void expect_same(const NamedTensors& a, const NamedTensors& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_EQ(a[i].second.type_str(), b[i].second.type_str()) << a[i].first;
    ASSERT_EQ(a[i].second.nbytes(), b[i].second.nbytes());
    if (a[i].second.nbytes() > 0) {
      EXPECT_EQ(std::memcmp(a[i].second.raw_data(), b[i].second.raw_data(), a[i].second.nbytes()),
                0)
          << a[i].first;
    }
  }
}

TEST_F(ParamsFileTest, RoundTripKeepsOrderTypesAndValues) {
  save_params(path("p.skparams"), sample_tensors());
  expect_same(load_params(path("p.skparams")), sample_tensors());
  save_params(path("empty.skparams"), {});
  EXPECT_TRUE(load_params(path("empty.skparams")).empty());
}

TEST_F(ParamsFileTest, OverwritesAtomicallyWithoutLeftovers) {
  save_params(path("p.skparams"), sample_tensors());
  save_params(path("p.skparams"), {{"only", Tensor::scalar<float>(1)}});
  EXPECT_EQ(load_params(path("p.skparams")).size(), 1u);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_))
    files += entry.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST_F(ParamsFileTest, EveryTruncationAndByteFlipIsDetected) {
  save_params(path("p.skparams"),
              {{"w", Tensor::from_vector<float>({2}, {1, 2})}, {"k", Tensor::scalar<int32_t>(3)}});
  const std::string bytes = read_file(path("p.skparams"));
  for (size_t n = 0; n < bytes.size(); ++n) {
    write_file_atomically(path("cut.skparams"), bytes.substr(0, n));
    std::string e = error_of([&] { load_params(path("cut.skparams")); });
    EXPECT_NE(e.find("cannot load parameters from '" + path("cut.skparams") + "'"),
              std::string::npos)
        << "truncated to " << n << ": " << e;
  }
  for (size_t i = 12; i < bytes.size(); ++i) {  // past magic and version: checksummed
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x10);
    write_file_atomically(path("bad.skparams"), damaged);
    EXPECT_NE(error_of([&] { load_params(path("bad.skparams")); }).find("checksum mismatch"),
              std::string::npos)
        << "byte " << i;
  }
}

TEST_F(ParamsFileTest, ClearErrorsForOtherFiles) {
  write_file_atomically(path("text.skparams"), "hello world, not parameters");
  EXPECT_NE(
      error_of([&] { load_params(path("text.skparams")); }).find("not a skiff parameter file"),
      std::string::npos);
  save_params(path("p.skparams"), sample_tensors());
  std::string bytes = read_file(path("p.skparams"));
  bytes[8] = 9;  // the format version
  write_file_atomically(path("v9.skparams"), bytes);
  EXPECT_NE(error_of([&] {
              load_params(path("v9.skparams"));
            }).find("written by parameter format version 9, this skiff reads version 1"),
            std::string::npos);
  EXPECT_NE(error_of([&] { load_params(path("missing.skparams")); }).find("cannot open"),
            std::string::npos);
}

TEST_F(ParamsFileTest, SaveRejectsBadInput) {
  Tensor t = Tensor::scalar<float>(1);
  EXPECT_NE(error_of([&] {
              save_params(path("d.skparams"), {{"a", t}, {"a", t}});
            }).find("two tensors to save are both named 'a'"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              save_params(path("u.skparams"), {{"a", Tensor()}});
            }).find("tensor 'a' has no value to save"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path("d.skparams")));
}

Program program_with_parameters() {
  Program p;
  VarDesc w("w", DType::kF32, Shape{2, 3});
  w.persistable = true;
  p.global_block().add_var(w);
  VarDesc b("b", DType::kF64, Shape{-1});
  b.persistable = true;
  p.global_block().add_var(b);
  p.global_block().add_var(VarDesc("x", DType::kF32, Shape{-1, 2}));
  return p;
}

TEST_F(ParamsFileTest, PersistablesRoundTripThroughScopes) {
  Program p = program_with_parameters();
  Scope scope;
  NamedTensors values = sample_tensors();
  scope.var("w")->set(values[0].second);
  scope.var("b")->set(values[1].second);
  scope.var("x")->set(Tensor::from_vector<float>({1, 2}, {1, 2}));  // not persistable
  save_persistables(path("m.skparams"), p, scope);
  NamedTensors saved = load_params(path("m.skparams"));
  ASSERT_EQ(saved.size(), 2u);  // sorted by name, x left out
  EXPECT_EQ(saved[0].first, "b");
  EXPECT_EQ(saved[1].first, "w");

  Scope fresh;
  load_persistables(path("m.skparams"), p, &fresh);
  EXPECT_EQ(fresh.find_var("w")->tensor()->to_vector<float>(), values[0].second.to_vector<float>());
  EXPECT_EQ(fresh.find_var("b")->tensor()->to_vector<double>(),
            values[1].second.to_vector<double>());
  EXPECT_EQ(fresh.find_var("x"), nullptr);
}

TEST_F(ParamsFileTest, PersistableErrorsNameTheVariable) {
  Program p = program_with_parameters();
  Scope scope;
  scope.var("w")->set(Tensor::zeros({2, 3}, DType::kF32));
  EXPECT_NE(error_of([&] {
              save_persistables(path("m.skparams"), p, scope);
            }).find("persistable variable 'b' has no value"),
            std::string::npos);

  save_params(path("short.skparams"),
              {{"w", Tensor::zeros({2, 3}, DType::kF32)}, {"extra", Tensor::scalar<float>(0)}});
  EXPECT_NE(error_of([&] {
              load_persistables(path("short.skparams"), p, &scope);
            }).find("has no tensor for persistable variable 'b' (it holds w, extra)"),
            std::string::npos);

  save_params(path("shape.skparams"),
              {{"w", Tensor::zeros({3, 2}, DType::kF32)}, {"b", Tensor::zeros({5}, DType::kF64)}});
  EXPECT_NE(error_of([&] {
              load_persistables(path("shape.skparams"), p, &scope);
            }).find("holds w as float32[3, 2], but the program declares it float32[2, 3]"),
            std::string::npos);

  // Extra tensors are ignored; -1 dims accept any size.
  save_params(path("ok.skparams"), {{"w", Tensor::zeros({2, 3}, DType::kF32)},
                                    {"b", Tensor::zeros({5}, DType::kF64)},
                                    {"adam_moment", Tensor::zeros({2, 3}, DType::kF32)}});
  Scope fresh;
  load_persistables(path("ok.skparams"), p, &fresh);
  EXPECT_EQ(fresh.find_var("b")->tensor()->numel(), 5);
  EXPECT_EQ(fresh.find_var("adam_moment"), nullptr);
}

}  // namespace
}  // namespace skiff
