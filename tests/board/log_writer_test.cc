// LogWriter → RunLog round trips: each kind read back with the values written (PNG and
// WAV decoded here), a flooded queue accounts for every record, a closed writer refuses.
#include "skiff/board/log_writer.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "skiff/board/run_log.h"
#include "skiff/core/error.h"

namespace skiff::board {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("skiff_board_" + name + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir;
}

uint32_t be32(const std::string& s, size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data() + at);
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// The pixels of a PNG written by encode_png (one IDAT, filter 0 on every row).
std::vector<uint8_t> decode_png(const std::string& png, int* height, int* width) {
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  *width = static_cast<int>(be32(png, 16));
  *height = static_cast<int>(be32(png, 20));
  const size_t idat = png.find("IDAT");
  const uint32_t length = be32(png, idat - 4);
  std::vector<uint8_t> raw(static_cast<size_t>(*height) * (*width * 4 + 1));
  uLongf raw_size = raw.size();
  EXPECT_EQ(uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(png.data() + idat + 4),
                       length),
            Z_OK);
  raw.resize(raw_size);
  const size_t row = raw_size / *height;
  std::vector<uint8_t> pixels;
  for (int y = 0; y < *height; ++y) {
    EXPECT_EQ(raw[y * row], 0);  // filter: none
    pixels.insert(pixels.end(), raw.begin() + y * row + 1, raw.begin() + (y + 1) * row);
  }
  return pixels;
}

TEST(LogWriter, EveryKindReadsBackAsWritten) {
  const fs::path dir = fresh_dir("kinds");
  std::vector<uint8_t> pixels(4 * 5 * 3);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 7);
  std::vector<float> samples = {0.f, 0.5f, -0.5f, 1.f, -1.f, 2.f};  // 3 frames x 2 channels
  {
    LogWriter log(dir.string());
    for (int step = 0; step < 100; ++step)
      log.add_scalar("loss", 1.0 / (step + 1), step, 1000 + step);
    log.add_histogram("weights", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9.5}, 3, 4);
    log.add_image("digit", pixels, 4, 5, 3, 7);
    log.add_audio("tone", samples, 3, 2, 8000, 2);
    log.add_text("note", "hello\nboard", 5);
    log.add_pr_curve("pr", {1, 0, 1, 1, 0}, {0.9, 0.8, 0.4, 0.1, 0.05}, 9, 3);
    HParamValue lr, opt, nesterov;
    lr.number = 0.1;
    opt.kind = HParamValue::Kind::kString;
    opt.text = "sgd";
    nesterov.kind = HParamValue::Kind::kBool;
    nesterov.flag = true;
    log.add_hparams({{"lr", lr}, {"optimizer", opt}, {"nesterov", nesterov}}, {"loss"});
  }
  RunLog run(dir.string());
  EXPECT_GT(run.reload(), 100);
  EXPECT_TRUE(run.take_warnings().empty());

  const ScalarSeries* loss = run.scalars("loss");
  ASSERT_TRUE(loss);
  ASSERT_EQ(loss->values.size(), 100u);
  for (int step = 0; step < 100; ++step) {
    EXPECT_EQ(loss->steps[step], step);
    EXPECT_EQ(loss->wall_times[step], 1000 + step);
    EXPECT_EQ(loss->values[step], static_cast<float>(1.0 / (step + 1)));
  }

  const auto* h = run.histograms("weights");
  ASSERT_TRUE(h && h->size() == 1);
  EXPECT_EQ((*h)[0].step, 3);
  EXPECT_EQ((*h)[0].num, 10);
  EXPECT_EQ((*h)[0].min, 0);
  EXPECT_EQ((*h)[0].max, 9.5);
  EXPECT_DOUBLE_EQ((*h)[0].sum, 45.5);
  // 4 buckets of width 2.375: [0, 2.375) [2.375, 4.75) [4.75, 7.125) [7.125, 9.5]
  EXPECT_EQ((*h)[0].counts, (std::vector<double>{3, 2, 3, 2}));
  EXPECT_EQ((*h)[0].limits.back(), 9.5);

  const auto* images = run.images("digit");
  ASSERT_TRUE(images && images->size() == 1);
  EXPECT_EQ((*images)[0].width, 5);
  EXPECT_EQ((*images)[0].height, 4);
  int height = 0, width = 0;
  EXPECT_EQ(decode_png((*images)[0].data, &height, &width), pixels);
  EXPECT_EQ(height, 4);
  EXPECT_EQ(width, 5);

  const auto* audio = run.audio("tone");
  ASSERT_TRUE(audio && audio->size() == 1);
  const std::string& wav = (*audio)[0].data;
  EXPECT_EQ((*audio)[0].sample_rate, 8000);
  EXPECT_EQ((*audio)[0].frames, 3);
  ASSERT_EQ(wav.size(), 44u + 12u);
  EXPECT_EQ(wav.substr(0, 4), "RIFF");
  std::vector<int16_t> pcm(6);
  std::memcpy(pcm.data(), wav.data() + 44, 12);
  EXPECT_EQ(pcm, (std::vector<int16_t>{0, 16384, -16384, 32767, -32767, 32767}));

  const auto* texts = run.texts("note");
  ASSERT_TRUE(texts && texts->size() == 1);
  EXPECT_EQ((*texts)[0].text, "hello\nboard");

  // Thresholds 0, 0.5, 1: positives {0.9, 0.4, 0.1}, negatives {0.8, 0.05}.
  const auto* pr = run.pr_curves("pr");
  ASSERT_TRUE(pr && pr->size() == 1);
  EXPECT_EQ((*pr)[0].thresholds, 3);
  EXPECT_EQ((*pr)[0].tp, (std::vector<float>{3, 1, 0}));
  EXPECT_EQ((*pr)[0].fp, (std::vector<float>{2, 1, 0}));
  EXPECT_EQ((*pr)[0].tn, (std::vector<float>{0, 1, 2}));
  EXPECT_EQ((*pr)[0].fn, (std::vector<float>{0, 2, 3}));
  EXPECT_FLOAT_EQ((*pr)[0].precision[0], 0.6f);
  EXPECT_FLOAT_EQ((*pr)[0].precision[1], 0.5f);
  EXPECT_FLOAT_EQ((*pr)[0].recall[1], 1.f / 3);

  const HParamsRecord* hp = run.hparams();
  ASSERT_TRUE(hp);
  ASSERT_EQ(hp->hparams.size(), 3u);  // sorted by name
  EXPECT_EQ(hp->hparams[0].first, "lr");
  EXPECT_EQ(hp->hparams[0].second.number, 0.1);
  EXPECT_EQ(hp->hparams[1].first, "nesterov");
  EXPECT_TRUE(hp->hparams[1].second.flag);
  EXPECT_EQ(hp->hparams[2].second.text, "sgd");
  EXPECT_EQ(hp->metrics, std::vector<std::string>{"loss"});
  fs::remove_all(dir);
}

TEST(LogWriter, ScalarEventsKeepEveryTagStepAndValue) {
  // Scalars take a hand-written encoding: odd tags, steps and values read back exactly.
  const fs::path dir = fresh_dir("scalar_bytes");
  const std::string long_tag(300, 'g');  // a two-byte length
  const std::vector<int64_t> steps = {0, 1, 127, 128, 1ll << 40, -1, -(1ll << 50)};
  const std::vector<float> values = {0.f, -0.f, 1e-30f, -3.5f, INFINITY, 1e30f, 42.f};
  {
    LogWriter log(dir.string());
    for (size_t i = 0; i < steps.size(); ++i) {
      log.add_scalar(long_tag, values[i], steps[i], 1.5 * i);  // wall time 0 at i = 0
      log.add_scalar("", values[i], steps[i], 1e9 + i);
    }
  }
  RunLog run(dir.string());
  run.reload();
  EXPECT_TRUE(run.take_warnings().empty());
  for (const std::string& tag : {long_tag, std::string()}) {
    const ScalarSeries* s = run.scalars(tag);
    ASSERT_TRUE(s) << tag.size();
    EXPECT_EQ(s->steps, steps);
    EXPECT_EQ(s->values, values);
  }
  EXPECT_EQ(run.scalars(long_tag)->wall_times[3], 4.5);
  EXPECT_EQ(run.scalars("")->wall_times[2], 1e9 + 2);
  fs::remove_all(dir);
}

TEST(LogWriter, ANamedFileIsAppendedTo) {
  const fs::path dir = fresh_dir("named");
  LogWriterOptions options;
  options.file_name = "events.out.tfevents.mine";
  for (int writer = 0; writer < 2; ++writer) {
    LogWriter log(dir.string(), options);
    EXPECT_EQ(log.path(), (dir / "events.out.tfevents.mine").string());
    log.add_scalar("x", writer, writer);
  }
  RunLog run((dir).string());
  EXPECT_EQ(run.reload(), 3);  // one file_version record, then both scalars
  EXPECT_EQ(run.scalars("x")->values, (std::vector<float>{0, 1}));
  options.file_name = "../escape.tfevents";
  EXPECT_THROW(LogWriter(dir.string(), options), Error);
  options.file_name = "vdlrecords.1.log";  // readers would not see it
  EXPECT_THROW(LogWriter(dir.string(), options), Error);
  fs::remove_all(dir);
}

TEST(LogWriter, FlushPutsEverythingAddedInTheFile) {
  const fs::path dir = fresh_dir("flush");
  LogWriter log(dir.string(), {"", "", 64, 3600.0, 1.0});  // (no timed flush within the test)
  RunLog run(dir.string());
  for (int round = 1; round <= 3; ++round) {
    for (int i = 0; i < 1000; ++i) log.add_scalar("x", i, round * 1000 + i);
    log.flush();
    run.reload();
    EXPECT_EQ(run.scalars("x")->values.size(), round * 1000u);
  }
  EXPECT_EQ(log.dropped(), 0);
  fs::remove_all(dir);
}

TEST(LogWriter, AFloodedQueueDropsNothingUncounted) {
  const fs::path dir = fresh_dir("flood");
  constexpr int kRecords = 20000;
  int64_t dropped = 0;
  {
    LogWriter log(dir.string(), {"", "", 2, 3600.0, 0.0});  // a full queue drops at once
    for (int i = 0; i < kRecords; ++i) log.add_scalar("x", i, i);
    dropped = log.dropped();
  }
  RunLog run(dir.string());
  run.reload();
  const ScalarSeries* x = run.scalars("x");
  const int64_t written = x ? static_cast<int64_t>(x->values.size()) : 0;
  EXPECT_EQ(written + dropped, kRecords);
  fs::remove_all(dir);
}

TEST(LogWriter, RefusesBadImagesAndAClosedWriter) {
  const fs::path dir = fresh_dir("bad");
  LogWriter log(dir.string());
  EXPECT_THROW(log.add_image("im", std::vector<uint8_t>(10), 2, 2, 3, 0), Error);
  EXPECT_THROW(log.add_image("im", std::vector<uint8_t>(10), 2, 5, 5, 0), Error);
  EXPECT_THROW(log.add_pr_curve("pr", {1, 0}, {0.5}, 0), Error);
  EXPECT_THROW(log.add_pr_curve("pr", {1, 2}, {0.5, 0.5}, 0), Error);
  EXPECT_THROW(log.add_pr_curve("pr", {1, 0}, {0.5, 1.5}, 0), Error);
  EXPECT_THROW(log.add_pr_curve("pr", {1, 0}, {0.5, NAN}, 0), Error);
  log.close();
  try {
    log.add_scalar("late", 1, 0);
    FAIL() << "a closed writer took a record";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'late'"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace skiff::board
