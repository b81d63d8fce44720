#include "skiff/board/summary.h"

#include <algorithm>
#include <cmath>

#include "skiff/core/error.h"

namespace skiff::board {

namespace {

void append_varint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

template <typename T>
void append_fixed(T v, std::string* out) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));  // little-endian targets
}

size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, ++n;
  return n;
}

}  // namespace

void append_scalar_event(double wall_time, int64_t step, const std::string& tag, float value,
                         std::string* out) {
  // Event { 1: wall_time (fixed64), 2: step (varint), 5: Summary { 1: Value { 1: tag,
  // 2: simple_value (fixed32) } } }, fields in number order as protobuf writes them.
  const size_t value_size = (tag.empty() ? 0 : 1 + varint_size(tag.size()) + tag.size()) + 5;
  const size_t summary_size = 1 + varint_size(value_size) + value_size;
  if (wall_time != 0) {
    out->push_back(0x09);
    append_fixed(wall_time, out);
  }
  if (step != 0) {
    out->push_back(0x10);
    append_varint(static_cast<uint64_t>(step), out);
  }
  out->push_back(0x2a);
  append_varint(summary_size, out);
  out->push_back(0x0a);
  append_varint(value_size, out);
  if (!tag.empty()) {
    out->push_back(0x0a);
    append_varint(tag.size(), out);
    out->append(tag);
  }
  out->push_back(0x15);
  append_fixed(value, out);
}

void fill_histogram(const std::vector<double>& values, int buckets, proto::HistogramProto* h) {
  SKIFF_CHECK(buckets >= 1, "add_histogram: ", buckets, " buckets (at least 1)");
  double lo = INFINITY, hi = -INFINITY, sum = 0, sum_squares = 0, num = 0;
  for (double v : values) {
    if (std::isnan(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
    sum_squares += v * v;
    num += 1;
  }
  h->set_num(num);
  h->set_sum(sum);
  h->set_sum_squares(sum_squares);
  if (num == 0) return;
  h->set_min(lo);
  h->set_max(hi);
  if (hi == lo) buckets = 1;
  std::vector<double> counts(buckets, 0.0);
  const double width = (hi - lo) / buckets;
  for (double v : values) {
    if (std::isnan(v)) continue;
    int b = width > 0 ? static_cast<int>((v - lo) / width) : 0;
    counts[std::clamp(b, 0, buckets - 1)] += 1;
  }
  for (int b = 0; b < buckets; ++b) {
    h->add_bucket_limit(b + 1 == buckets ? hi : lo + width * (b + 1));
    h->add_bucket(counts[b]);
  }
}

void fill_pr_curve(const std::vector<double>& labels, const std::vector<double>& predictions,
                   const std::vector<double>& weights, int num_thresholds,
                   proto::Summary_Value* value) {
  SKIFF_CHECK(labels.size() == predictions.size(), "add_pr_curve: ", labels.size(), " labels but ",
              predictions.size(), " predictions");
  SKIFF_CHECK(weights.empty() || weights.size() == labels.size(), "add_pr_curve: ", weights.size(),
              " weights for ", labels.size(), " labels");
  SKIFF_CHECK(num_thresholds >= 2, "add_pr_curve: num_thresholds is ", num_thresholds,
              " (at least 2)");
  const int n = num_thresholds;
  // Bucket b holds the predictions in [b / (n - 1), (b + 1) / (n - 1)); counts at
  // threshold t are those of the buckets from t up.
  std::vector<double> positives(n, 0.0), negatives(n, 0.0);
  for (size_t i = 0; i < labels.size(); ++i) {
    const double p = std::clamp(predictions[i], 0.0, 1.0);
    const int b = static_cast<int>(std::floor(p * (n - 1)));
    const double w = weights.empty() ? 1.0 : weights[i];
    (labels[i] >= 0.5 ? positives : negatives)[std::clamp(b, 0, n - 1)] += w;
  }
  std::vector<double> tp(n), fp(n);
  double tp_sum = 0, fp_sum = 0;
  for (int t = n - 1; t >= 0; --t) {
    tp_sum += positives[t];
    fp_sum += negatives[t];
    tp[t] = tp_sum;
    fp[t] = fp_sum;
  }
  constexpr double kMinCount = 1e-7;  // keeps 0 / 0 at 0
  proto::TensorProto* tensor = value->mutable_tensor();
  tensor->set_dtype(proto::DT_FLOAT);
  tensor->mutable_tensor_shape()->add_dim()->set_size(6);
  tensor->mutable_tensor_shape()->add_dim()->set_size(n);
  auto add_row = [&](auto&& at) {
    for (int t = 0; t < n; ++t) tensor->add_float_val(static_cast<float>(at(t)));
  };
  add_row([&](int t) { return tp[t]; });
  add_row([&](int t) { return fp[t]; });
  add_row([&](int t) { return fp[0] - fp[t]; });  // true negatives
  add_row([&](int t) { return tp[0] - tp[t]; });  // false negatives
  add_row([&](int t) { return tp[t] / std::max(kMinCount, tp[t] + fp[t]); });
  add_row([&](int t) { return tp[t] / std::max(kMinCount, tp[0]); });
  proto::PrCurvePluginData data;
  data.set_num_thresholds(static_cast<uint32_t>(n));
  auto* plugin = value->mutable_metadata()->mutable_plugin_data();
  plugin->set_plugin_name(kPrCurvesPlugin);
  plugin->set_content(data.SerializeAsString());
}

void fill_text(const std::string& text, proto::Summary_Value* value) {
  proto::TensorProto* tensor = value->mutable_tensor();
  tensor->set_dtype(proto::DT_STRING);
  tensor->add_string_val(text);
  value->mutable_metadata()->mutable_plugin_data()->set_plugin_name(kTextPlugin);
}

namespace {

void set_hparams_content(const proto::HParamsPluginData& data, proto::Summary_Value* value) {
  auto* plugin = value->mutable_metadata()->mutable_plugin_data();
  plugin->set_plugin_name(kHParamsPlugin);
  plugin->set_content(data.SerializeAsString());
  // (a scalar tensor, so that readers which list tensors see the tag)
  value->mutable_tensor()->set_dtype(proto::DT_FLOAT);
  value->mutable_tensor()->add_float_val(0.f);
}

}  // namespace

void fill_hparams_experiment(const std::vector<std::pair<std::string, HParamValue>>& hparams,
                             const std::vector<std::string>& metrics, double wall_time,
                             proto::Summary_Value* value) {
  proto::HParamsPluginData data;
  proto::Experiment* experiment = data.mutable_experiment();
  experiment->set_time_created_secs(wall_time);
  for (const auto& [name, v] : hparams) {
    proto::HParamInfo* info = experiment->add_hparam_infos();
    info->set_name(name);
    info->set_type(v.kind == HParamValue::Kind::kString ? proto::DATA_TYPE_STRING
                   : v.kind == HParamValue::Kind::kBool ? proto::DATA_TYPE_BOOL
                                                        : proto::DATA_TYPE_FLOAT64);
  }
  for (const std::string& metric : metrics) {
    experiment->add_metric_infos()->mutable_name()->set_tag(metric);
  }
  value->set_tag(kHParamsExperimentTag);
  set_hparams_content(data, value);
}

void fill_hparams_session(const std::vector<std::pair<std::string, HParamValue>>& hparams,
                          double wall_time, proto::Summary_Value* value) {
  proto::HParamsPluginData data;
  proto::SessionStartInfo* session = data.mutable_session_start_info();
  session->set_start_time_secs(wall_time);
  for (const auto& [name, v] : hparams) {
    google::protobuf::Value& out = (*session->mutable_hparams())[name];
    switch (v.kind) {
      case HParamValue::Kind::kString:
        out.set_string_value(v.text);
        break;
      case HParamValue::Kind::kBool:
        out.set_bool_value(v.flag);
        break;
      case HParamValue::Kind::kNumber:
        out.set_number_value(v.number);
        break;
    }
  }
  value->set_tag(kHParamsSessionStartTag);
  set_hparams_content(data, value);
}

}  // namespace skiff::board
