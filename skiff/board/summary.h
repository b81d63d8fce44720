// Summary values of each kind, as TensorBoard's plugins lay them out (the writer's side;
// run_log.cc reads them back). Internal to the board library and its tests: it includes
// the generated protos.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "board.pb.h"
#include "skiff/board/summary_fwd.h"

namespace skiff::board {

// `values` binned into `buckets` equal-width buckets between their min and max (the
// histogram of every value; NaNs are left out of the buckets and the sums).
void fill_histogram(const std::vector<double>& values, int buckets, proto::HistogramProto* h);

// The pr_curves plugin's value: for thresholds i / (num_thresholds - 1), the weighted
// counts of positives (label >= 0.5) and negatives with prediction >= threshold, and
// the precision and recall they give.
void fill_pr_curve(const std::vector<double>& labels, const std::vector<double>& predictions,
                   const std::vector<double>& weights, int num_thresholds,
                   proto::Summary_Value* value);

// The text plugin's value: a string tensor.
void fill_text(const std::string& text, proto::Summary_Value* value);

// The hparams plugin's experiment (every hparam and metric name) and session start
// (this run's values) values.
void fill_hparams_experiment(const std::vector<std::pair<std::string, HParamValue>>& hparams,
                             const std::vector<std::string>& metrics, double wall_time,
                             proto::Summary_Value* value);
void fill_hparams_session(const std::vector<std::pair<std::string, HParamValue>>& hparams,
                          double wall_time, proto::Summary_Value* value);

// Appends the serialized Event of one simple_value scalar, the bytes the generated
// Event would give, without building it (the writer's common case).
void append_scalar_event(double wall_time, int64_t step, const std::string& tag, float value,
                         std::string* out);

// Plugin names and tags of the formats above.
inline constexpr char kTextPlugin[] = "text";
inline constexpr char kPrCurvesPlugin[] = "pr_curves";
inline constexpr char kHParamsPlugin[] = "hparams";
inline constexpr char kScalarsPlugin[] = "scalars";
inline constexpr char kHParamsExperimentTag[] = "_hparams_/experiment";
inline constexpr char kHParamsSessionStartTag[] = "_hparams_/session_start_info";

}  // namespace skiff::board
