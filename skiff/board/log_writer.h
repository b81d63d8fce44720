// skiff board's log writer: TensorBoard event files, written off the caller's thread.
//
//   board::LogWriter log("runs/mlp");
//   for (int step = 0; step < steps; ++step) {
//     ...
//     log.add_scalar("train/loss", loss, step);
//   }
//   log.close();  // (the destructor closes too)
//
// Every add_* copies its arguments into a bounded queue and returns; a thread encodes
// the records (PNG, WAV, histograms), frames them and appends them to the file,
// flushing it every `flush_secs`. When the queue stays full for `block_secs` the record
// is dropped, counted by dropped() and reported on stderr: a step is never held up
// long and no record is lost silently.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "skiff/board/summary_fwd.h"

namespace skiff::board {

struct LogWriterOptions {
  std::string filename_suffix;  // appended to the event file's name
  std::string file_name;        // when set, the event file's name (holding "tfevents";
                                // appended to if it exists)
  size_t max_queue = 4096;      // records waiting to be written
  double flush_secs = 2.0;      // how often the file is flushed
  double block_secs = 1.0;      // how long a full queue holds up the caller before a drop
};

class LogWriter {
 public:
  // Creates `logdir` (and its parents) and a new event file in it.
  explicit LogWriter(const std::string& logdir, LogWriterOptions options = {});
  ~LogWriter();
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  // The event file: logdir/events.out.tfevents.SECONDS.HOST.PID.N[suffix], or
  // logdir/file_name.
  const std::string& path() const { return path_; }

  // Each records one value of `tag` at `step`; `wall_time` (seconds since the epoch)
  // <= 0 means now.
  void add_scalar(std::string tag, double value, int64_t step, double wall_time = 0);
  // `values` binned in `buckets` equal-width buckets.
  void add_histogram(std::string tag, std::vector<double> values, int64_t step, int buckets = 10,
                     double wall_time = 0);
  // An 8-bit image, `height` rows of `width` * `channels` bytes (1, 2, 3 or 4 channels).
  void add_image(std::string tag, std::vector<uint8_t> pixels, int height, int width, int channels,
                 int64_t step, double wall_time = 0);
  // `frames` interleaved frames of `channels` samples in [-1, 1].
  void add_audio(std::string tag, std::vector<float> samples, int64_t frames, int channels,
                 int sample_rate, int64_t step, double wall_time = 0);
  void add_text(std::string tag, std::string text, int64_t step, double wall_time = 0);
  // Precision/recall at `num_thresholds` thresholds of binary `labels` (0 or 1) against
  // `predictions` in [0, 1]; `weights` empty or one per label. Other values fail.
  void add_pr_curve(std::string tag, std::vector<double> labels, std::vector<double> predictions,
                    int64_t step, int num_thresholds = 10, std::vector<double> weights = {},
                    double wall_time = 0);
  // This run's hyperparameters, and the scalar tags that are its metrics.
  void add_hparams(std::vector<std::pair<std::string, HParamValue>> hparams,
                   std::vector<std::string> metrics, double wall_time = 0);

  // Returns when every record added so far is in the file (written and flushed).
  void flush();
  // Flushes and closes the file; later add_* calls fail.
  void close();
  // Records dropped because the queue stayed full.
  int64_t dropped() const;

 private:
  // A record waiting in the queue: its summary value is made on the writer thread.
  struct Pending {
    std::string tag;
    int64_t step;
    double wall_time;
    double scalar;                                    // when `fill` is empty
    std::function<void(proto::Summary_Value*)> fill;  // the other kinds
  };

  void push(Pending pending);
  void run();
  void write_batch(std::deque<Pending>& batch, std::string* buffer);

  const LogWriterOptions options_;
  std::string path_;
  std::FILE* file_ = nullptr;

  mutable std::mutex mutex_;
  std::condition_variable has_work_;  // the writer waits on it
  std::condition_variable has_room_;  // callers wait on it when the queue is full
  std::condition_variable written_;   // flush() waits on it
  std::deque<Pending> queue_;
  uint64_t added_ = 0;         // records accepted so far
  uint64_t done_ = 0;          // records written and flushed
  uint64_t flush_wanted_ = 0;  // flush() asked for the records up to this one
  int64_t dropped_ = 0;
  bool closing_ = false;
  bool closed_ = false;
  std::thread thread_;
};

}  // namespace skiff::board
