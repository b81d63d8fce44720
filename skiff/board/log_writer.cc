#include "skiff/board/log_writer.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "skiff/board/encode.h"
#include "skiff/board/record.h"
#include "skiff/board/summary.h"
#include "skiff/core/error.h"

namespace skiff::board {
namespace {

using Clock = std::chrono::steady_clock;

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

double or_now(double wall_time) { return wall_time > 0 ? wall_time : now_seconds(); }

std::string event_file_name(const std::string& suffix) {
  static std::atomic<int> files{0};
  char host[256] = "localhost";
  gethostname(host, sizeof(host) - 1);
  return str_cat("events.out.tfevents.", static_cast<int64_t>(now_seconds()), ".", host, ".",
                 getpid(), ".", files++, suffix);
}

// The first record of an event file.
std::string file_version_event() {
  proto::Event event;
  event.set_wall_time(now_seconds());
  event.set_file_version("brain.Event:2");
  return event.SerializeAsString();
}

}  // namespace

LogWriter::LogWriter(const std::string& logdir, LogWriterOptions options)
    : options_(std::move(options)) {
  SKIFF_CHECK(options_.max_queue >= 1, "LogWriter: max_queue is 0");
  std::error_code error;
  std::filesystem::create_directories(logdir, error);
  SKIFF_CHECK(!error, "LogWriter: cannot create the log folder ", logdir, ": ", error.message());
  const std::string name =
      options_.file_name.empty() ? event_file_name(options_.filename_suffix) : options_.file_name;
  SKIFF_CHECK(name.find('/') == std::string::npos, "LogWriter: the file name '", name,
              "' is not a plain name (the file goes in the log folder)");
  SKIFF_CHECK(name.find("tfevents") != std::string::npos, "LogWriter: the file name '", name,
              "' lacks \"tfevents\", without which TensorBoard and skiff board ignore it");
  path_ = (std::filesystem::path(logdir) / name).string();
  file_ = std::fopen(path_.c_str(), "ab");  // (a named file is appended to)
  SKIFF_CHECK(file_, "LogWriter: cannot create ", path_);
  if (std::ftell(file_) == 0) {
    std::string first;
    append_record(file_version_event(), &first);
    std::fwrite(first.data(), 1, first.size(), file_);
    std::fflush(file_);
  }
  thread_ = std::thread([this] { run(); });
}

LogWriter::~LogWriter() {
  try {
    close();
  } catch (const std::exception& e) {
    std::cerr << "skiff board: closing " << path_ << ": " << e.what() << "\n";
  }
}

void LogWriter::add_scalar(std::string tag, double value, int64_t step, double wall_time) {
  push({std::move(tag), step, or_now(wall_time), value, nullptr});
}

void LogWriter::add_histogram(std::string tag, std::vector<double> values, int64_t step,
                              int buckets, double wall_time) {
  SKIFF_CHECK(buckets >= 1, "add_histogram '", tag, "': ", buckets, " buckets (at least 1)");
  push({std::move(tag), step, or_now(wall_time), 0,
        [values = std::move(values), buckets](proto::Summary_Value* v) {
          fill_histogram(values, buckets, v->mutable_histo());
        }});
}

void LogWriter::add_image(std::string tag, std::vector<uint8_t> pixels, int height, int width,
                          int channels, int64_t step, double wall_time) {
  SKIFF_CHECK(height > 0 && width > 0 && channels >= 1 && channels <= 4, "add_image '", tag,
              "': an image of ", height, "x", width, "x", channels,
              " (height x width x 1, 2, 3 or 4 channels)");
  SKIFF_CHECK(pixels.size() == static_cast<size_t>(height) * width * channels, "add_image '", tag,
              "': ", pixels.size(), " bytes for ", height, "x", width, "x", channels);
  push({std::move(tag), step, or_now(wall_time), 0,
        [pixels = std::move(pixels), height, width, channels](proto::Summary_Value* v) {
          proto::Summary_Image* image = v->mutable_image();
          image->set_height(height);
          image->set_width(width);
          image->set_colorspace(channels);
          image->set_encoded_image_string(encode_png(pixels.data(), height, width, channels));
        }});
}

void LogWriter::add_audio(std::string tag, std::vector<float> samples, int64_t frames, int channels,
                          int sample_rate, int64_t step, double wall_time) {
  SKIFF_CHECK(channels >= 1 && sample_rate > 0, "add_audio '", tag, "': ", channels,
              " channels at ", sample_rate, " Hz");
  SKIFF_CHECK(samples.size() == static_cast<size_t>(frames) * channels, "add_audio '", tag,
              "': ", samples.size(), " samples for ", frames, " frames of ", channels, " channels");
  push({std::move(tag), step, or_now(wall_time), 0,
        [samples = std::move(samples), frames, channels, sample_rate](proto::Summary_Value* v) {
          proto::Summary_Audio* audio = v->mutable_audio();
          audio->set_sample_rate(static_cast<float>(sample_rate));
          audio->set_num_channels(channels);
          audio->set_length_frames(frames);
          audio->set_content_type("audio/wav");
          audio->set_encoded_audio_string(
              encode_wav(samples.data(), frames, channels, sample_rate));
        }});
}

void LogWriter::add_text(std::string tag, std::string text, int64_t step, double wall_time) {
  push({std::move(tag), step, or_now(wall_time), 0,
        [text = std::move(text)](proto::Summary_Value* v) { fill_text(text, v); }});
}

void LogWriter::add_pr_curve(std::string tag, std::vector<double> labels,
                             std::vector<double> predictions, int64_t step, int num_thresholds,
                             std::vector<double> weights, double wall_time) {
  SKIFF_CHECK(labels.size() == predictions.size(), "add_pr_curve '", tag, "': ", labels.size(),
              " labels but ", predictions.size(), " predictions");
  SKIFF_CHECK(weights.empty() || weights.size() == labels.size(), "add_pr_curve '", tag,
              "': ", weights.size(), " weights for ", labels.size(), " labels");
  SKIFF_CHECK(num_thresholds >= 2, "add_pr_curve '", tag, "': num_thresholds is ", num_thresholds,
              " (at least 2)");
  for (size_t i = 0; i < labels.size(); ++i) {
    SKIFF_CHECK(labels[i] == 0 || labels[i] == 1, "add_pr_curve '", tag, "': label ", i, " is ",
                labels[i], " (labels are 0 or 1)");
    SKIFF_CHECK(predictions[i] >= 0 && predictions[i] <= 1, "add_pr_curve '", tag, "': prediction ",
                i, " is ", predictions[i], " (predictions are in [0, 1])");
  }
  push({std::move(tag), step, or_now(wall_time), 0,
        [labels = std::move(labels), predictions = std::move(predictions),
         weights = std::move(weights), num_thresholds](proto::Summary_Value* v) {
          fill_pr_curve(labels, predictions, weights, num_thresholds, v);
        }});
}

void LogWriter::add_hparams(std::vector<std::pair<std::string, HParamValue>> hparams,
                            std::vector<std::string> metrics, double wall_time) {
  const double when = or_now(wall_time);
  push({kHParamsExperimentTag, 0, when, 0,
        [=](proto::Summary_Value* v) { fill_hparams_experiment(hparams, metrics, when, v); }});
  push({kHParamsSessionStartTag, 0, when, 0,
        [hparams = std::move(hparams), when](proto::Summary_Value* v) {
          fill_hparams_session(hparams, when, v);
        }});
}

void LogWriter::push(Pending pending) {
  std::unique_lock<std::mutex> lock(mutex_);
  SKIFF_CHECK(!closing_, "LogWriter: ", path_, " is closed (adding '", pending.tag, "')");
  if (queue_.size() >= options_.max_queue) {
    has_work_.notify_one();
    const auto block = std::chrono::duration<double>(options_.block_secs);
    if (!has_room_.wait_for(lock, block,
                            [&] { return queue_.size() < options_.max_queue || closing_; })) {
      ++dropped_;
      if ((dropped_ & (dropped_ - 1)) == 0) {  // 1, 2, 4, 8, ...: reported, not flooded
        std::cerr << "skiff board: the queue of " << path_ << " stayed full for "
                  << options_.block_secs << " s: " << dropped_ << " record(s) dropped so far\n";
      }
      return;
    }
    SKIFF_CHECK(!closing_, "LogWriter: ", path_, " is closed (adding '", pending.tag, "')");
  }
  queue_.push_back(std::move(pending));
  ++added_;
  // The writer sleeps until its next flush unless the queue fills up: callers do not
  // pay for waking it on every record.
  if (queue_.size() == options_.max_queue / 2 + 1) has_work_.notify_one();
}

void LogWriter::flush() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (closed_) return;
  const uint64_t target = added_;
  flush_wanted_ = std::max(flush_wanted_, target);
  has_work_.notify_one();
  written_.wait(lock, [&] { return done_ >= target || closed_; });
}

void LogWriter::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closing_) return;
    closing_ = true;
  }
  has_work_.notify_one();
  has_room_.notify_all();
  thread_.join();
  std::fclose(file_);
  file_ = nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  written_.notify_all();
}

int64_t LogWriter::dropped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

void LogWriter::run() {
  const auto period = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options_.flush_secs));
  auto next_flush = Clock::now() + period;
  std::deque<Pending> batch;
  std::string buffer;
  uint64_t written = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    has_work_.wait_until(lock, next_flush, [&] {
      return closing_ || flush_wanted_ > done_ || queue_.size() > options_.max_queue / 2;
    });
    batch.swap(queue_);
    lock.unlock();
    has_room_.notify_all();
    written += batch.size();
    write_batch(batch, &buffer);
    if (!buffer.empty() && std::fwrite(buffer.data(), 1, buffer.size(), file_) != buffer.size()) {
      std::cerr << "skiff board: writing " << path_ << " failed: records lost\n";
    }
    buffer.clear();
    lock.lock();
    const bool due = closing_ || flush_wanted_ > done_ || Clock::now() >= next_flush;
    if (due && queue_.size() <= options_.max_queue / 2) {
      lock.unlock();
      std::fflush(file_);
      next_flush = Clock::now() + period;
      lock.lock();
      done_ = written;
      written_.notify_all();
    }
    if (closing_ && queue_.empty()) return;
  }
}

void LogWriter::write_batch(std::deque<Pending>& batch, std::string* buffer) {
  proto::Event event;
  std::string bytes;
  for (Pending& p : batch) {
    if (!p.fill) {
      bytes.clear();
      append_scalar_event(p.wall_time, p.step, p.tag, static_cast<float>(p.scalar), &bytes);
      append_record(bytes, buffer);
      continue;
    }
    event.Clear();
    event.set_wall_time(p.wall_time);
    event.set_step(p.step);
    proto::Summary_Value* value = event.mutable_summary()->add_value();
    value->set_tag(p.tag);
    try {
      p.fill(value);
    } catch (const std::exception& e) {
      std::cerr << "skiff board: '" << p.tag << "' at step " << p.step
                << " not written: " << e.what() << "\n";
      continue;
    }
    event.SerializeToString(&bytes);
    append_record(bytes, buffer);
  }
  batch.clear();
}

}  // namespace skiff::board
