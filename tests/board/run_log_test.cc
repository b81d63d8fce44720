// RunLog on growing, cut and corrupted files, its memory limits, and downsample().
#include "skiff/board/run_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "skiff/board/log_writer.h"
#include "skiff/board/record.h"

namespace skiff::board {
namespace {

namespace fs = std::filesystem;

struct WrittenRun {
  fs::path dir;
  std::string file;  // its event file's bytes
};

// A run with `n` scalars "x" = step at steps 0..n-1 (its file read back into memory).
WrittenRun written_run(const std::string& name, int n) {
  fs::path dir = fs::temp_directory_path() / ("skiff_run_log_" + name + std::to_string(getpid()));
  fs::remove_all(dir);
  std::string path;
  {
    LogWriter log(dir.string());
    for (int i = 0; i < n; ++i) log.add_scalar("x", i, i);
    path = log.path();
  }
  std::ifstream in(path, std::ios::binary);
  return {dir, std::string(std::istreambuf_iterator<char>(in), {})};
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

bool mentions(const std::vector<std::string>& warnings, const std::string& words) {
  for (const std::string& w : warnings) {
    if (w.find(words) != std::string::npos) return true;
  }
  return false;
}

TEST(RunLog, ReadsAGrowingFileIncrementallyAndACutTailOnceItIsWhole) {
  WrittenRun run = written_run("grow", 10);
  const fs::path events = run.dir / "events.out.tfevents.1.host";
  fs::remove_all(run.dir);
  fs::create_directories(run.dir);
  // Each scalar record here is 16 bytes of framing + its event; cut inside the last.
  const size_t cut = run.file.size() - 5;
  write_file(events, run.file.substr(0, cut));
  RunLog log(run.dir.string());
  log.reload();
  EXPECT_EQ(log.scalars("x")->values.size(), 9u);
  EXPECT_TRUE(log.take_warnings().empty());  // a writer may still be writing
  log.reload();                              // the same cut tail again: reported
  EXPECT_TRUE(mentions(log.take_warnings(), "not a whole record"));
  write_file(events, run.file);
  EXPECT_EQ(log.reload(), 1);
  EXPECT_EQ(log.scalars("x")->values.size(), 10u);
  EXPECT_EQ(log.scalars("x")->values.back(), 9.f);
  fs::remove_all(run.dir);
}

TEST(RunLog, SkipsARecordFailingItsCrcAndStopsAtABadLength) {
  WrittenRun run = written_run("crc", 10);
  const fs::path events = run.dir / "events.out.tfevents.1.host";
  fs::remove_all(run.dir);
  fs::create_directories(run.dir);
  std::string bytes = run.file;
  bytes[bytes.size() - 10] ^= 0x40;  // inside the last record's data
  write_file(events, bytes);
  RunLog log(run.dir.string());
  log.reload();
  EXPECT_EQ(log.scalars("x")->values.size(), 9u);
  EXPECT_TRUE(mentions(log.take_warnings(), "fails its CRC; skipped"));

  // Corrupt the length of the 7th record (file_version, then scalars 0..4, then 5).
  bytes = run.file;
  size_t at = 0;
  for (int i = 0; i < 6; ++i) {
    uint64_t length;
    std::memcpy(&length, bytes.data() + at, 8);
    at += 16 + length;
  }
  bytes[at] ^= 0x01;
  write_file(events, bytes);
  RunLog broken(run.dir.string());
  broken.reload();
  EXPECT_EQ(broken.scalars("x")->values.size(), 5u);  // file_version + 5 scalars before it
  EXPECT_TRUE(mentions(broken.take_warnings(), "the rest of the file is not read"));
  fs::remove_all(run.dir);
}

// A length-delimited protobuf field (lengths < 128).
std::string field(char key, const std::string& bytes) {
  return std::string(1, key) + static_cast<char>(bytes.size()) + bytes;
}

std::string fixed32(float v) { return std::string(reinterpret_cast<const char*>(&v), 4); }

TEST(RunLog, ReadsScalarEventsInAnyFieldOrderAndWithFieldsItDoesNotDecodeItself) {
  const fs::path dir =
      fs::temp_directory_path() / ("skiff_run_log_wire" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const double wall = 1234.5;
  const std::string wall_bytes = "\x09" + std::string(reinterpret_cast<const char*>(&wall), 8);
  // Event{summary{value{tag "x", simple_value 1.5}}, step 3, wall_time}: fields out of order.
  const std::string plain =
      field('\x2a', field('\x0a', field('\x0a', "x") + "\x15" + fixed32(1.5f))) + "\x10\x03" +
      wall_bytes;
  // The same with a node_name (field 7) in the value, and two values in one summary.
  const std::string named =
      "\x10\x04" + field('\x2a', field('\x0a', field('\x0a', "x") + field('\x3a', "n") + "\x15" +
                                                   fixed32(2.5f)));
  const std::string two =
      "\x10\x05" + field('\x2a', field('\x0a', field('\x0a', "x") + "\x15" + fixed32(3.5f)) +
                                     field('\x0a', field('\x0a', "y") + "\x15" + fixed32(4.5f)));
  std::string bytes;
  for (const std::string& event : {plain, named, two}) append_record(event, &bytes);
  write_file(dir / "events.out.tfevents.wire", bytes);
  RunLog log(dir.string());
  EXPECT_EQ(log.reload(), 3);
  EXPECT_TRUE(log.take_warnings().empty());
  const ScalarSeries* x = log.scalars("x");
  ASSERT_TRUE(x);
  EXPECT_EQ(x->steps, (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(x->values, (std::vector<float>{1.5f, 2.5f, 3.5f}));
  EXPECT_EQ(x->wall_times[0], wall);
  ASSERT_TRUE(log.scalars("y"));
  EXPECT_EQ(log.scalars("y")->values, std::vector<float>{4.5f});
  fs::remove_all(dir);
}

TEST(RunLog, AVanishedRunIsEmptyNotAnError) {
  RunLog log((fs::temp_directory_path() / "skiff_no_such_run_folder").string());
  EXPECT_EQ(log.reload(), 0);
  EXPECT_TRUE(log.tags(TagKind::kScalars).empty());
  EXPECT_EQ(log.scalars("x"), nullptr);
}

TEST(RunLog, KeepsScalarsUpToItsLimitByStrideAndAReservoirOfImages) {
  fs::path dir = fs::temp_directory_path() / ("skiff_run_log_limits" + std::to_string(getpid()));
  fs::remove_all(dir);
  {
    LogWriter log(dir.string());
    for (int i = 0; i < 100; ++i) log.add_scalar("x", i, i);
    for (int i = 0; i < 30; ++i) log.add_image("im", std::vector<uint8_t>(4, i), 2, 2, 1, i);
  }
  RunLogLimits limits;
  limits.scalars = 16;
  limits.images = 5;
  RunLog log(dir.string(), limits);
  log.reload();
  const ScalarSeries* x = log.scalars("x");
  EXPECT_LE(x->values.size(), 16u);
  EXPECT_EQ(x->stride, 8);
  for (size_t i = 0; i < x->steps.size(); ++i) EXPECT_EQ(x->steps[i], 8 * static_cast<int64_t>(i));
  const auto* images = log.images("im");
  ASSERT_EQ(images->size(), 5u);
  EXPECT_EQ(images->back().step, 29);  // the newest is always kept
  for (size_t i = 1; i < images->size(); ++i) EXPECT_LT((*images)[i - 1].step, (*images)[i].step);
  fs::remove_all(dir);
}

TEST(Downsample, KeepsEndsExtremesAndAtMostTheBudget) {
  const size_t n = 100000;
  std::vector<int64_t> x(n);
  std::vector<float> y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<int64_t>(i);
    y[i] = std::sin(static_cast<float>(i) / 1000.f);
  }
  y[31337] = 50.f;  // spikes a plain stride would miss
  y[77777] = -50.f;
  y[500] = NAN;
  const std::vector<int64_t> kept = downsample(x.data(), y.data(), n, 1000);
  EXPECT_LE(kept.size(), 1000u);
  EXPECT_GT(kept.size(), 600u);
  EXPECT_EQ(kept.front(), 0);
  EXPECT_EQ(kept.back(), static_cast<int64_t>(n - 1));
  EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end()));
  EXPECT_EQ(std::adjacent_find(kept.begin(), kept.end()), kept.end());
  EXPECT_NE(std::find(kept.begin(), kept.end(), 31337), kept.end());
  EXPECT_NE(std::find(kept.begin(), kept.end(), 77777), kept.end());
  EXPECT_EQ(downsample(x.data(), y.data(), 10, 1000).size(), 10u);
  EXPECT_EQ(
      downsample(x.data(), y.data(), n, 3),
      (std::vector<int64_t>{0, static_cast<int64_t>(n / 2 - 1), static_cast<int64_t>(n - 1)}));
}

}  // namespace
}  // namespace skiff::board
