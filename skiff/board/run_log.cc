#include "skiff/board/run_log.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "skiff/board/record.h"
#include "skiff/board/summary.h"
#include "skiff/core/error.h"

namespace skiff::board {
namespace fs = std::filesystem;

namespace {

constexpr size_t kChunk = size_t{64} << 20;             // bytes read at a time
constexpr uint64_t kLargestRecord = uint64_t{1} << 30;  // longer lengths are corruption

float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float value;
  if (exponent == 0) {
    value = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    value = mantissa ? NAN : INFINITY;
  } else {
    value = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
  }
  return sign ? -value : value;
}

template <typename T>
void append_content(const std::string& content, std::vector<double>* out) {
  const size_t n = content.size() / sizeof(T);
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, content.data() + i * sizeof(T), sizeof(T));
    out->push_back(static_cast<double>(v));
  }
}

// A numeric tensor's elements, whichever field holds them.
std::vector<double> numbers_of(const proto::TensorProto& t) {
  std::vector<double> out;
  out.insert(out.end(), t.float_val().begin(), t.float_val().end());
  out.insert(out.end(), t.double_val().begin(), t.double_val().end());
  out.insert(out.end(), t.int_val().begin(), t.int_val().end());
  out.insert(out.end(), t.int64_val().begin(), t.int64_val().end());
  out.insert(out.end(), t.bool_val().begin(), t.bool_val().end());
  for (int32_t h : t.half_val()) out.push_back(half_to_float(static_cast<uint16_t>(h)));
  if (!out.empty() || t.tensor_content().empty()) return out;
  switch (t.dtype()) {
    case proto::DT_FLOAT:
      append_content<float>(t.tensor_content(), &out);
      break;
    case proto::DT_DOUBLE:
      append_content<double>(t.tensor_content(), &out);
      break;
    case proto::DT_INT32:
      append_content<int32_t>(t.tensor_content(), &out);
      break;
    case proto::DT_INT64:
      append_content<int64_t>(t.tensor_content(), &out);
      break;
    case proto::DT_UINT8:
      append_content<uint8_t>(t.tensor_content(), &out);
      break;
    case proto::DT_BOOL:
      append_content<uint8_t>(t.tensor_content(), &out);
      break;
    case proto::DT_HALF: {
      std::vector<double> bits;
      append_content<uint16_t>(t.tensor_content(), &bits);
      for (double b : bits) out.push_back(half_to_float(static_cast<uint16_t>(b)));
      break;
    }
    default:
      break;
  }
  return out;
}

std::vector<int64_t> dims_of(const proto::TensorProto& t) {
  std::vector<int64_t> dims;
  for (const auto& d : t.tensor_shape().dim()) dims.push_back(d.size());
  return dims;
}

HParamValue hparam_of(const google::protobuf::Value& v) {
  HParamValue out;
  switch (v.kind_case()) {
    case google::protobuf::Value::kStringValue:
      out.kind = HParamValue::Kind::kString;
      out.text = v.string_value();
      break;
    case google::protobuf::Value::kBoolValue:
      out.kind = HParamValue::Kind::kBool;
      out.flag = v.bool_value();
      break;
    default:
      out.number = v.number_value();
      break;
  }
  return out;
}

// Protobuf's wire format, just enough for decode_scalar_event.
struct WireReader {
  const unsigned char* p;
  const unsigned char* end;

  bool varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && p < end; shift += 7) {
      const unsigned char byte = *p++;
      *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return true;
    }
    return false;
  }
  template <typename T>
  bool fixed(T* v) {
    if (end - p < static_cast<ptrdiff_t>(sizeof(T))) return false;
    std::memcpy(v, p, sizeof(T));
    p += sizeof(T);
    return true;
  }
  bool bytes(WireReader* inner) {
    uint64_t n;
    if (!varint(&n) || n > static_cast<uint64_t>(end - p)) return false;
    *inner = {p, p + n};
    p += n;
    return true;
  }
};

// An event that is one simple_value scalar (most of what any writer writes), read without
// the generated parser; false for every other event, which that parser then reads.
bool decode_scalar_event(const char* data, size_t size, double* wall_time, int64_t* step,
                         std::string_view* tag, float* value) {
  WireReader event{reinterpret_cast<const unsigned char*>(data),
                   reinterpret_cast<const unsigned char*>(data) + size};
  *wall_time = 0;
  *step = 0;
  bool has_value = false;
  uint64_t key;
  while (event.p < event.end) {
    if (!event.varint(&key)) return false;
    if (key == 0x09) {  // 1: wall_time, fixed64
      if (!event.fixed(wall_time)) return false;
    } else if (key == 0x10) {  // 2: step, varint
      uint64_t v;
      if (!event.varint(&v)) return false;
      *step = static_cast<int64_t>(v);
    } else if (key == 0x2a && !has_value) {  // 5: summary, holding one value
      WireReader summary, value_fields;
      if (!event.bytes(&summary) || !summary.varint(&key) || key != 0x0a ||
          !summary.bytes(&value_fields) || summary.p != summary.end) {
        return false;
      }
      *tag = std::string_view();
      while (value_fields.p < value_fields.end) {
        if (!value_fields.varint(&key)) return false;
        if (key == 0x0a) {  // 1: tag
          WireReader text;
          if (!value_fields.bytes(&text)) return false;
          *tag = std::string_view(reinterpret_cast<const char*>(text.p), text.end - text.p);
        } else if (key == 0x15) {  // 2: simple_value, fixed32
          if (!value_fields.fixed(value)) return false;
          has_value = true;
        } else {
          return false;  // metadata, another kind of value: the parser's job
        }
      }
    } else {
      return false;
    }
  }
  return has_value;
}

}  // namespace

struct RunLog::File {
  std::string path;
  uint64_t offset = 0;
  uint64_t stalled_at = UINT64_MAX;  // an incomplete tail seen here at the last reload
  bool broken = false;
};

// The reused messages of decoding (so run_log.h needs no generated header).
struct RunLog::Decoder {
  proto::Event event;
  int64_t events = 0;
};

RunLog::RunLog(std::string dir, RunLogLimits limits)
    : dir_(std::move(dir)), limits_(limits), decoder_(std::make_unique<Decoder>()) {}

RunLog::~RunLog() = default;

std::vector<std::string> RunLog::take_warnings() {
  std::vector<std::string> out;
  out.swap(warnings_);
  return out;
}

int64_t RunLog::reload() {
  std::error_code error;
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir_, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.find("tfevents") != std::string::npos && it->is_regular_file(error)) {
      names.push_back(name);
    }
  }
  if (error && error != std::errc::no_such_file_or_directory) {
    warnings_.push_back(str_cat(dir_, ": ", error.message()));
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string path = (fs::path(dir_) / name).string();
    bool known =
        std::any_of(files_.begin(), files_.end(), [&](const auto& f) { return f->path == path; });
    if (!known) files_.push_back(std::make_unique<File>(File{path}));
  }
  std::sort(files_.begin(), files_.end(),
            [](const auto& a, const auto& b) { return a->path < b->path; });
  const int64_t before = decoder_->events;
  for (auto& file : files_) {
    if (!file->broken) read_file(*file);
  }
  return decoder_->events - before;
}

void RunLog::read_file(File& file) {
  std::FILE* f = std::fopen(file.path.c_str(), "rb");
  if (!f) return;  // vanished since the listing
  std::fseek(f, 0, SEEK_END);
  const long end = std::ftell(f);
  const uint64_t size = end < 0 ? 0 : static_cast<uint64_t>(end);
  if (size < file.offset) {
    warnings_.push_back(str_cat(file.path, ": the file shrank from ", file.offset, " to ", size,
                                " bytes; read again from its start"));
    file.offset = 0;
  }
  std::string buffer;
  proto::Event& event = decoder_->event;
  uint64_t chunk = kChunk;
  while (file.offset < size) {
    buffer.resize(std::min(size - file.offset, chunk));
    std::fseek(f, static_cast<long>(file.offset), SEEK_SET);
    buffer.resize(std::fread(buffer.data(), 1, buffer.size(), f));
    RecordScanner scan(buffer.data(), buffer.size());
    while (auto record = scan.next()) {
      const uint64_t at = file.offset + (record->data - buffer.data()) - 12;
      if (record->corrupt) {
        warnings_.push_back(
            str_cat(file.path, ": the record at byte ", at, " fails its CRC; skipped"));
        continue;
      }
      double wall_time;
      int64_t step;
      std::string_view tag;
      float value;
      if (decode_scalar_event(record->data, record->size, &wall_time, &step, &tag, &value)) {
        ++decoder_->events;
        append_scalar(scalar_series(tag), step, wall_time, value);
        continue;
      }
      if (!event.ParseFromArray(record->data, static_cast<int>(record->size))) {
        warnings_.push_back(
            str_cat(file.path, ": the record at byte ", at, " is not an event; skipped"));
        continue;
      }
      ++decoder_->events;
      if (event.has_summary()) add_summary(event);
    }
    file.offset += scan.offset();
    if (scan.status() == RecordScanner::Status::kBadLength) {
      warnings_.push_back(str_cat(file.path, ": the length of the record at byte ", file.offset,
                                  " fails its CRC; the rest of the file is not read"));
      file.broken = true;
      break;
    }
    if (scan.status() != RecordScanner::Status::kIncomplete || buffer.empty()) {
      chunk = kChunk;
      if (buffer.empty()) break;  // (the file shrank while being read)
      continue;
    }
    if (file.offset + (buffer.size() - scan.offset()) >= size) {
      // The tail is not a whole record: a writer still writing, or a cut file.
      if (file.stalled_at == file.offset) {
        warnings_.push_back(str_cat(file.path, ": its last ", size - file.offset,
                                    " bytes are not a whole record (a cut file?)"));
      }
      file.stalled_at = file.offset;
      break;
    }
    if (scan.offset() == 0) {  // one record longer than a chunk: read it whole next
      uint64_t length;
      std::memcpy(&length, buffer.data(), 8);
      if (length > kLargestRecord) {
        warnings_.push_back(str_cat(file.path, ": a record of ", length, " bytes at byte ",
                                    file.offset, "; the rest of the file is not read"));
        file.broken = true;
        break;
      }
      chunk = length + 16;
    }
  }
  std::fclose(f);
}

void RunLog::add_summary(const proto::Event& event) {
  const int64_t step = event.step();
  const double wall_time = event.wall_time();
  for (const proto::Summary_Value& value : event.summary().value()) {
    const std::string& tag = value.tag();
    std::string plugin;
    if (value.has_metadata() && !value.metadata().plugin_data().plugin_name().empty()) {
      plugin = value.metadata().plugin_data().plugin_name();
      plugin_of_tag_[tag] = plugin;
      if (plugin == kHParamsPlugin) {
        add_hparams(value.metadata().plugin_data().content());
        continue;
      }
    } else if (auto known = plugin_of_tag_.find(tag); known != plugin_of_tag_.end()) {
      plugin = known->second;
    }
    switch (value.value_case()) {
      case proto::Summary_Value::kSimpleValue:
        append_scalar(scalar_series(tag), step, wall_time, value.simple_value());
        break;
      case proto::Summary_Value::kHisto: {
        const proto::HistogramProto& h = value.histo();
        HistogramRecord r{step,
                          wall_time,
                          h.min(),
                          h.max(),
                          h.num(),
                          h.sum(),
                          h.sum_squares(),
                          {h.bucket_limit().begin(), h.bucket_limit().end()},
                          {h.bucket().begin(), h.bucket().end()}};
        histograms_[tag].add(std::move(r), limits_.histograms, rng_);
        break;
      }
      case proto::Summary_Value::kImage: {
        const proto::Summary_Image& image = value.image();
        BlobRecord r{step, wall_time, image.width(), image.height(),
                     0,    0,         "image/png",   image.encoded_image_string()};
        images_[tag].add(std::move(r), limits_.images, rng_);
        break;
      }
      case proto::Summary_Value::kAudio: {
        const proto::Summary_Audio& audio = value.audio();
        BlobRecord r{step,
                     wall_time,
                     0,
                     0,
                     audio.sample_rate(),
                     audio.length_frames(),
                     audio.content_type().empty() ? "audio/wav" : audio.content_type(),
                     audio.encoded_audio_string()};
        audio_[tag].add(std::move(r), limits_.audio, rng_);
        break;
      }
      case proto::Summary_Value::kTensor:
        add_tensor(tag, plugin, step, wall_time, value.tensor());
        break;
      default:
        break;
    }
  }
}

void RunLog::add_tensor(const std::string& tag, const std::string& plugin, int64_t step,
                        double wall_time, const proto::TensorProto& tensor) {
  const std::vector<int64_t> dims = dims_of(tensor);
  if (plugin == kTextPlugin) {
    std::string text;
    for (const std::string& s : tensor.string_val()) text += (text.empty() ? "" : "\n") + s;
    texts_[tag].add(TextRecord{step, wall_time, std::move(text)}, limits_.texts, rng_);
    return;
  }
  if (plugin == kPrCurvesPlugin) {
    const std::vector<double> v = numbers_of(tensor);
    if (dims.size() != 2 || dims[0] != 6 || v.size() != static_cast<size_t>(6 * dims[1])) {
      warnings_.push_back(str_cat(dir_, ": the PR curve '", tag, "' at step ", step,
                                  " is not a [6, thresholds] tensor; skipped"));
      return;
    }
    const auto n = static_cast<size_t>(dims[1]);
    PrCurveRecord r;
    r.step = step;
    r.wall_time = wall_time;
    r.thresholds = static_cast<int>(n);
    std::vector<float>* rows[6] = {&r.tp, &r.fp, &r.tn, &r.fn, &r.precision, &r.recall};
    for (size_t row = 0; row < 6; ++row)
      rows[row]->assign(v.begin() + row * n, v.begin() + (row + 1) * n);
    pr_curves_[tag].add(std::move(r), limits_.pr_curves, rng_);
    return;
  }
  if (plugin == "histograms") {  // TF2: [buckets, 3] of (left edge, right edge, count)
    const std::vector<double> v = numbers_of(tensor);
    if (dims.size() != 2 || dims[1] != 3 || v.size() != static_cast<size_t>(dims[0] * 3)) return;
    HistogramRecord r;
    r.step = step;
    r.wall_time = wall_time;
    for (size_t b = 0; b * 3 < v.size(); ++b) {
      if (b == 0) r.min = v[0];
      r.max = v[b * 3 + 1];
      r.limits.push_back(v[b * 3 + 1]);
      r.counts.push_back(v[b * 3 + 2]);
      r.num += v[b * 3 + 2];
      r.sum += v[b * 3 + 2] * (v[b * 3] + v[b * 3 + 1]) / 2;
    }
    histograms_[tag].add(std::move(r), limits_.histograms, rng_);
    return;
  }
  if (plugin == "images" || plugin == "audio") {  // TF2 string tensors of encoded blobs
    if (plugin == "images" && tensor.string_val_size() >= 3) {
      const int width = std::atoi(tensor.string_val(0).c_str());
      const int height = std::atoi(tensor.string_val(1).c_str());
      for (int i = 2; i < tensor.string_val_size(); ++i) {
        images_[tag].add(
            BlobRecord{step, wall_time, width, height, 0, 0, "image/png", tensor.string_val(i)},
            limits_.images, rng_);
      }
    } else if (plugin == "audio") {
      for (int i = 0; i < tensor.string_val_size(); i += 2) {
        audio_[tag].add(BlobRecord{step, wall_time, 0, 0, 0, 0, "audio/wav", tensor.string_val(i)},
                        limits_.audio, rng_);
      }
    }
    return;
  }
  if (plugin.empty() || plugin == kScalarsPlugin) {
    const std::vector<double> v = numbers_of(tensor);
    if (v.size() == 1 && tensor.dtype() != proto::DT_STRING) {
      append_scalar(scalar_series(tag), step, wall_time, v[0]);
    }
  }
}

void RunLog::add_hparams(const std::string& content) {
  proto::HParamsPluginData data;
  if (!data.ParseFromString(content)) {
    warnings_.push_back(str_cat(dir_, ": unreadable hparams plugin data; skipped"));
    return;
  }
  if (!hparams_) hparams_ = std::make_unique<HParamsRecord>();
  if (data.has_session_start_info()) {
    std::map<std::string, HParamValue> sorted;
    for (const auto& [name, value] : data.session_start_info().hparams()) {
      sorted[name] = hparam_of(value);
    }
    hparams_->hparams.assign(sorted.begin(), sorted.end());
  } else if (data.has_experiment()) {
    hparams_->metrics.clear();
    for (const proto::MetricInfo& metric : data.experiment().metric_infos()) {
      hparams_->metrics.push_back(metric.name().group().empty()
                                      ? metric.name().tag()
                                      : metric.name().group() + "/" + metric.name().tag());
    }
  }
}

ScalarSeries& RunLog::scalar_series(std::string_view tag) {
  if (!last_series_ || tag != last_scalar_tag_) {
    last_scalar_tag_.assign(tag.data(), tag.size());
    last_series_ = &scalars_[last_scalar_tag_];
  }
  return *last_series_;
}

void RunLog::append_scalar(ScalarSeries& s, int64_t step, double wall_time, double value) {
  if (s.seen++ % s.stride != 0) return;
  if (s.steps.size() >= limits_.scalars) {  // keep every other point from now on
    size_t kept = 0;
    for (size_t i = 0; i < s.steps.size(); i += 2, ++kept) {
      s.steps[kept] = s.steps[i];
      s.wall_times[kept] = s.wall_times[i];
      s.values[kept] = s.values[i];
    }
    s.steps.resize(kept);
    s.wall_times.resize(kept);
    s.values.resize(kept);
    s.stride *= 2;
    if ((s.seen - 1) % s.stride != 0) return;
  }
  s.steps.push_back(step);
  s.wall_times.push_back(wall_time);
  s.values.push_back(static_cast<float>(value));
}

namespace {

template <typename Map>
std::vector<std::string> keys_of(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& entry : map) keys.push_back(entry.first);
  return keys;  // (std::map: sorted)
}

template <typename Map>
auto items_of(const Map& map, const std::string& tag) -> decltype(&map.begin()->second.items()) {
  auto it = map.find(tag);
  return it == map.end() ? nullptr : &it->second.items();
}

}  // namespace

std::vector<std::string> RunLog::tags(TagKind kind) const {
  switch (kind) {
    case TagKind::kScalars:
      return keys_of(scalars_);
    case TagKind::kHistograms:
      return keys_of(histograms_);
    case TagKind::kImages:
      return keys_of(images_);
    case TagKind::kAudio:
      return keys_of(audio_);
    case TagKind::kText:
      return keys_of(texts_);
    case TagKind::kPrCurves:
      return keys_of(pr_curves_);
  }
  return {};
}

const ScalarSeries* RunLog::scalars(const std::string& tag) const {
  auto it = scalars_.find(tag);
  return it == scalars_.end() ? nullptr : &it->second;
}
const std::vector<HistogramRecord>* RunLog::histograms(const std::string& tag) const {
  return items_of(histograms_, tag);
}
const std::vector<BlobRecord>* RunLog::images(const std::string& tag) const {
  return items_of(images_, tag);
}
const std::vector<BlobRecord>* RunLog::audio(const std::string& tag) const {
  return items_of(audio_, tag);
}
const std::vector<TextRecord>* RunLog::texts(const std::string& tag) const {
  return items_of(texts_, tag);
}
const std::vector<PrCurveRecord>* RunLog::pr_curves(const std::string& tag) const {
  return items_of(pr_curves_, tag);
}

}  // namespace skiff::board
