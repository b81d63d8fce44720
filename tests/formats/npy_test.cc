// .npy files: round trips for every dtype, the exact header layout numpy expects,
// hand-written headers of each version, clear refusals, and (when the project's
// virtual environment has numpy) files exchanged with numpy itself.
#include "skiff/formats/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "skiff/ir/file_io.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::error_of;

void expect_same(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.type_str(), b.type_str());
  ASSERT_EQ(a.nbytes(), b.nbytes());
  if (a.nbytes() > 0) {
    EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()), 0);
  }
}

// Version 1 .npy bytes with the given header dict (padded like numpy) and data.
std::string npy_v1(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

TEST(Npy, RoundTripEveryDtype) {
  const std::vector<Tensor> tensors = {
      Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, -6.5f}),
      Tensor::from_vector<double>({3}, {0.1, 1e-300, -2}),
      Tensor::from_vector<int32_t>({1, 2, 1}, {-1, 7}),
      Tensor::scalar<int64_t>(1LL << 50),
      Tensor::from_vector<bool>({2, 2}, {true, false, true, true}),
      Tensor::empty({0, 4}, DType::kF32),
      Tensor::from_vector<int8_t>({3}, {-128, 0, 127}),
      Tensor::from_vector<uint8_t>({2, 1}, {0, 255}),
      Tensor::from_vector<int16_t>({2}, {-32768, 1234}),
  };
  for (const Tensor& t : tensors) expect_same(npy_from_bytes(npy_to_bytes(t)), t);
}

TEST(Npy, HeaderIsWhatNumpyWrites) {
  std::string bytes = npy_to_bytes(Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(bytes.size(), 128u + 24u);  // the data starts 64-byte aligned
  EXPECT_EQ(bytes.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  EXPECT_EQ(bytes.substr(10, 59), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  EXPECT_EQ(bytes.substr(69, 58), std::string(58, ' '));
  EXPECT_EQ(bytes[127], '\n');
  EXPECT_NE(npy_to_bytes(Tensor::from_vector<double>({4}, {1, 2, 3, 4})).find("'shape': (4,)"),
            std::string::npos);
  EXPECT_NE(npy_to_bytes(Tensor::scalar<bool>(true)).find("'descr': '|b1'"), std::string::npos);
  EXPECT_NE(npy_to_bytes(Tensor::scalar<bool>(true)).find("'shape': ()"), std::string::npos);
}

TEST(Npy, ReadsHandWrittenHeaders) {
  // Keys in another order, double quotes, Python 2 longs, no trailing comma.
  std::string data(8, '\0');
  data[0] = 5;
  data[4] = 6;
  Tensor t =
      npy_from_bytes(npy_v1("{\"shape\": (2L,), 'fortran_order': False, 'descr': '<i4'}", data));
  EXPECT_EQ(t.type_str(), "int32[2]");
  EXPECT_EQ(t.to_vector<int32_t>(), (std::vector<int32_t>{5, 6}));
  // Version 2: a 4-byte header length.
  std::string v1 = npy_v1("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                          std::string("\x01\x00\x02", 3));
  std::string v2 = "\x93NUMPY";
  v2 += '\x02';
  v2 += '\x00';
  v2 += std::string(1, v1[8]) + std::string(1, v1[9]) + std::string(2, '\0');
  v2 += v1.substr(10);
  Tensor b = npy_from_bytes(v2);
  EXPECT_EQ(b.type_str(), "bool[3]");
  EXPECT_TRUE(b.data<bool>()[0]);
  EXPECT_FALSE(b.data<bool>()[1]);
  EXPECT_TRUE(b.data<bool>()[2]);  // any nonzero byte reads as true
}

TEST(Npy, RefusesWhatItCannotRead) {
  auto error_for = [](const std::string& dict, const std::string& data) {
    return error_of([&] { npy_from_bytes(npy_v1(dict, data)); });
  };
  EXPECT_NE(
      error_for("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'))
          .find("big-endian"),
      std::string::npos);
  EXPECT_NE(
      error_for("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", std::string(4, '\0'))
          .find("Fortran order"),
      std::string::npos);
  EXPECT_NE(
      error_for("{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }", std::string(2, '\0'))
          .find("dtype '<f2' is not supported"),
      std::string::npos);
  EXPECT_NE(error_for("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", "")
                .find("structured dtypes are not supported"),
            std::string::npos);
  EXPECT_NE(
      error_for("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", std::string(8, '\0'))
          .find("truncated: a float32[3] array needs 12 data bytes, the file holds 8"),
      std::string::npos);
  EXPECT_NE(error_for("{'descr': '<f4', 'fortran_order': False}", "").find("no 'shape' entry"),
            std::string::npos);
  EXPECT_NE(error_for("{'descr': '<f4', 'shape': (1, 2, 3, 4, 5, 6, 7, 8, 9), "
                      "'fortran_order': False}",
                      "")
                .find("rank 9"),
            std::string::npos);
  EXPECT_NE(error_of([] { npy_from_bytes("PK\x03\x04 a zip"); }).find("not a .npy file"),
            std::string::npos);
  std::string v4 = npy_to_bytes(Tensor::scalar<float>(1));
  v4[6] = 4;
  EXPECT_NE(error_of([&] { npy_from_bytes(v4); }).find(".npy format version 4 is not supported"),
            std::string::npos);
  std::string bytes = npy_to_bytes(Tensor::scalar<float>(1));
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_THROW(npy_from_bytes(bytes.substr(0, n)), Error) << "truncated to " << n;
}

TEST(Npy, FilesNameThemselvesInErrors) {
  EXPECT_NE(error_of([] { read_npy("/nonexistent/x.npy"); }).find("'/nonexistent/x.npy'"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              write_npy("/nonexistent/x.npy", Tensor::scalar<float>(1));
            }).find("/nonexistent/x.npy"),
            std::string::npos);
}

// The project's virtual environment (tests/formats/npy_test.cc -> repo root).
std::filesystem::path venv_python() {
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / ".venv" /
         "bin" / "python";
}

TEST(Npy, ExchangesFilesWithNumpy) {
  const auto python = venv_python();
  if (!std::filesystem::exists(python) ||
      std::system((python.string() + " -c 'import numpy' 2>/dev/null").c_str()) != 0) {
    GTEST_SKIP() << "no numpy in " << python;
  }
  const auto dir =
      std::filesystem::temp_directory_path() / ("skiff_npy_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string d = dir.string();
  write_npy(d + "/from_skiff.npy", Tensor::from_vector<double>({2, 2}, {1.5, -2, 3, 4}));
  const std::string script =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "a = np.load(d + '/from_skiff.npy')\n"
      "assert a.dtype == np.float64 and a.shape == (2, 2), (a.dtype, a.shape)\n"
      "assert (a == np.array([[1.5, -2], [3, 4]])).all(), a\n"
      "np.save(d + '/same.npy', a)\n"
      "assert open(d + '/same.npy', 'rb').read() == open(d + '/from_skiff.npy', 'rb').read()\n"
      "np.save(d + '/f32.npy', np.arange(6, dtype=np.float32).reshape(2, 3) / 4)\n"
      "np.save(d + '/i64.npy', np.array([-3, 1 << 40], dtype=np.int64))\n"
      "np.save(d + '/bool.npy', np.array([[True], [False]]))\n"
      "np.save(d + '/scalar.npy', np.int32(7))\n"
      "with open(d + '/v2.npy', 'wb') as f:\n"
      "    np.lib.format.write_array(f, np.ones((2,), np.float64), version=(2, 0))\n"
      "np.save(d + '/fortran.npy', np.asfortranarray(np.ones((2, 3), np.float32)))\n";
  write_file_atomically(d + "/check.py", script);
  ASSERT_EQ(std::system((python.string() + " " + d + "/check.py " + d).c_str()), 0);

  EXPECT_EQ(read_npy(d + "/f32.npy").to_vector<float>(),
            (std::vector<float>{0, 0.25, 0.5, 0.75, 1, 1.25}));
  EXPECT_EQ(read_npy(d + "/f32.npy").type_str(), "float32[2, 3]");
  EXPECT_EQ(read_npy(d + "/i64.npy").to_vector<int64_t>(), (std::vector<int64_t>{-3, 1LL << 40}));
  Tensor b = read_npy(d + "/bool.npy");
  EXPECT_EQ(b.type_str(), "bool[2, 1]");
  EXPECT_TRUE(b.data<bool>()[0]);
  EXPECT_FALSE(b.data<bool>()[1]);
  EXPECT_EQ(read_npy(d + "/scalar.npy").type_str(), "int32[]");
  EXPECT_EQ(read_npy(d + "/scalar.npy").item<int32_t>(), 7);
  EXPECT_EQ(read_npy(d + "/v2.npy").to_vector<double>(), (std::vector<double>{1, 1}));
  EXPECT_NE(error_of([&] { read_npy(d + "/fortran.npy"); }).find("Fortran order"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace skiff
