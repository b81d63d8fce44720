// skiff board's reader: every record of one run (a folder of TensorBoard event files,
// written by skiff, TensorBoard or PyTorch), kept per tag in memory of bounded size.
//
//   board::RunLog run("runs/mlp");
//   run.reload();                           // again later: reads what was appended
//   for (const auto& w : run.take_warnings()) std::cerr << w << "\n";
//   if (const board::ScalarSeries* loss = run.scalars("train/loss")) plot(loss->values);
//
// Not thread-safe: one caller at a time. Bad data never stops it: a record failing its CRC is
// skipped, a file whose framing is lost is read no further, a record cut off at the end of a file
// is read when the rest arrives; each is reported once by take_warnings().
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skiff/board/summary_fwd.h"

namespace skiff::board {

// Every point of a scalar tag, as columns. Past the run's scalar limit it keeps every
// `stride`-th point (the limit halves the series and doubles the stride).
struct ScalarSeries {
  std::vector<int64_t> steps;
  std::vector<double> wall_times;
  std::vector<float> values;
  int64_t stride = 1;
  int64_t seen = 0;  // points read, kept or not
};

struct HistogramRecord {
  int64_t step = 0;
  double wall_time = 0;
  double min = 0, max = 0, num = 0, sum = 0, sum_squares = 0;
  std::vector<double> limits;  // each bucket's right edge
  std::vector<double> counts;
};

// An image or an audio clip, encoded (PNG, WAV, ...).
struct BlobRecord {
  int64_t step = 0;
  double wall_time = 0;
  int width = 0, height = 0;  // images
  double sample_rate = 0;     // audio
  int64_t frames = 0;
  std::string content_type;
  std::string data;
};

struct TextRecord {
  int64_t step = 0;
  double wall_time = 0;
  std::string text;
};

// Counts and rates at thresholds i / (thresholds - 1).
struct PrCurveRecord {
  int64_t step = 0;
  double wall_time = 0;
  int thresholds = 0;
  std::vector<float> tp, fp, tn, fn, precision, recall;
};

struct HParamsRecord {
  std::vector<std::pair<std::string, HParamValue>> hparams;
  std::vector<std::string> metrics;
};

// How much of each kind a run keeps per tag (TensorBoard's defaults, but every scalar).
struct RunLogLimits {
  size_t scalars = size_t{4} << 20;
  size_t histograms = 500;
  size_t images = 10;
  size_t audio = 10;
  size_t texts = 100;
  size_t pr_curves = 100;
};

// Items of one tag up to a capacity, a uniform sample of all seen, always with the
// newest, in the order they came.
template <typename T>
class Reservoir {
 public:
  void add(T item, size_t capacity, std::mt19937_64& rng) {
    ++seen_;
    if (items_.size() < capacity) {
      items_.push_back(std::move(item));
      return;
    }
    const uint64_t r = rng() % seen_;
    if (r < capacity)
      items_.erase(items_.begin() + static_cast<ptrdiff_t>(r));
    else
      items_.pop_back();
    items_.push_back(std::move(item));
  }
  const std::vector<T>& items() const { return items_; }

 private:
  std::vector<T> items_;
  uint64_t seen_ = 0;
};

enum class TagKind { kScalars, kHistograms, kImages, kAudio, kText, kPrCurves };

class RunLog {
 public:
  explicit RunLog(std::string dir, RunLogLimits limits = {});
  ~RunLog();
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;

  // Reads what was appended to the run's event files since the last call (and new
  // files); returns the number of events read.
  int64_t reload();
  // The problems met since the last call, one line each.
  std::vector<std::string> take_warnings();

  const std::string& dir() const { return dir_; }
  // The tags of one kind, sorted.
  std::vector<std::string> tags(TagKind kind) const;
  // A tag's records, or nullptr when the run has none of that kind under it.
  const ScalarSeries* scalars(const std::string& tag) const;
  const std::vector<HistogramRecord>* histograms(const std::string& tag) const;
  const std::vector<BlobRecord>* images(const std::string& tag) const;
  const std::vector<BlobRecord>* audio(const std::string& tag) const;
  const std::vector<TextRecord>* texts(const std::string& tag) const;
  const std::vector<PrCurveRecord>* pr_curves(const std::string& tag) const;
  // The run's hyperparameters (hparams plugin), or nullptr.
  const HParamsRecord* hparams() const { return hparams_.get(); }

 private:
  struct File;
  struct Decoder;
  void read_file(File& file);
  void add_summary(const proto::Event& event);
  void add_tensor(const std::string& tag, const std::string& plugin, int64_t step, double wall_time,
                  const proto::TensorProto& tensor);
  void add_hparams(const std::string& plugin_content);
  // The series of `tag` (the last one asked for is cached: scalars come in runs).
  ScalarSeries& scalar_series(std::string_view tag);
  void append_scalar(ScalarSeries& series, int64_t step, double wall_time, double value);

  std::string dir_;
  RunLogLimits limits_;
  std::vector<std::unique_ptr<File>> files_;  // in name order
  std::vector<std::string> warnings_;
  std::unique_ptr<Decoder> decoder_;
  std::mt19937_64 rng_{20261203};
  std::map<std::string, ScalarSeries> scalars_;
  std::string last_scalar_tag_;
  ScalarSeries* last_series_ = nullptr;
  std::map<std::string, Reservoir<HistogramRecord>> histograms_;
  std::map<std::string, Reservoir<BlobRecord>> images_;
  std::map<std::string, Reservoir<BlobRecord>> audio_;
  std::map<std::string, Reservoir<TextRecord>> texts_;
  std::map<std::string, Reservoir<PrCurveRecord>> pr_curves_;
  std::map<std::string, std::string> plugin_of_tag_;  // metadata comes with a tag's first value
  std::unique_ptr<HParamsRecord> hparams_;
};

// Indices of at most about `max_points` of the n points (x[i], y[i]) that keep the
// shape of the series: its first and last points and, in each of (max_points - 2) / 3
// buckets, the point of largest triangle (LTTB) and the bucket's min and max. All
// indices when n <= max_points.
std::vector<int64_t> downsample(const int64_t* x, const float* y, size_t n, size_t max_points);

}  // namespace skiff::board
