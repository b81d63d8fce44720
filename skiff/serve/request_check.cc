#include "skiff/serve/request_check.h"

#include <cmath>
#include <set>
#include <sstream>

#include "skiff/serve/tensor_codec.h"

namespace skiff::serve {

namespace {

std::string dims_text(const std::vector<int64_t>& dims) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < dims.size(); ++i) s << (i ? ", " : "") << dims[i];
  s << "]";
  return s.str();
}

template <typename T>
void check_finite(const Tensor& t, const std::string& name) {
  const T* p = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (!std::isfinite(static_cast<double>(p[i]))) {
      bad_request("input '" + name + "' has " +
                  (std::isnan(static_cast<double>(p[i])) ? "NaN" : "an infinity") + " at element " +
                  std::to_string(i) + ": the model refuses values that are not finite");
    }
  }
}

}  // namespace

std::vector<Tensor> checked_inputs(const ModelConfig& config, const InferRequest& request) {
  std::vector<Tensor> ordered(config.inputs.size());
  std::vector<bool> given(config.inputs.size(), false);
  int64_t batch = -1;
  std::string batch_input;
  for (const InferInput& in : request.inputs) {
    size_t k = 0;
    while (k < config.inputs.size() && config.inputs[k].name != in.name) ++k;
    if (k == config.inputs.size()) {
      std::string names;
      for (const auto& c : config.inputs) names += (names.empty() ? "" : ", ") + c.name;
      bad_request("the model '" + config.name + "' has no input '" + in.name +
                  "' (its inputs: " + names + ")");
    }
    if (given[k]) bad_request("input '" + in.name + "' is given twice");
    given[k] = true;
    const auto& want = config.inputs[k];
    const Tensor& t = in.value;
    if (t.dtype() != want.dtype)
      bad_request("input '" + in.name + "' must be " + datatype_name(want.dtype) + ", got " +
                  datatype_name(t.dtype()));
    std::vector<int64_t> dims = t.shape().vec();
    if (config.max_batch_size > 0) {
      if (dims.empty())
        bad_request("input '" + in.name + "' needs a leading batch dim (the model batches up to " +
                    std::to_string(config.max_batch_size) + "), got a scalar");
      if (dims[0] < 1 || dims[0] > config.max_batch_size)
        bad_request("input '" + in.name + "' has a batch of " + std::to_string(dims[0]) +
                    ": the model takes 1 to " + std::to_string(config.max_batch_size));
      if (batch >= 0 && dims[0] != batch)
        bad_request("input '" + in.name + "' has a batch of " + std::to_string(dims[0]) + " but '" +
                    batch_input + "' has " + std::to_string(batch));
      batch = dims[0];
      batch_input = in.name;
      dims.erase(dims.begin());
    }
    bool fits = dims.size() == want.dims.size();
    for (size_t d = 0; fits && d < dims.size(); ++d)
      fits = want.dims[d] < 0 || want.dims[d] == dims[d];
    if (!fits) {
      bad_request("input '" + in.name + "' must have shape " +
                  (config.max_batch_size > 0 ? "[batch] + " : "") + dims_text(want.dims) +
                  ", got " + dims_text(t.shape().vec()));
    }
    if (want.reject_nonfinite) {
      if (t.dtype() == DType::kF32) check_finite<float>(t, in.name);
      if (t.dtype() == DType::kF64) check_finite<double>(t, in.name);
    }
    ordered[k] = t;
  }
  for (size_t k = 0; k < config.inputs.size(); ++k)
    if (!given[k]) bad_request("the request has no input '" + config.inputs[k].name + "'");
  return ordered;
}

std::vector<AnsweredOutput> answered_outputs(const ModelConfig& config,
                                             const InferRequest& request) {
  std::vector<AnsweredOutput> out;
  if (request.outputs.empty()) {
    for (size_t i = 0; i < config.outputs.size(); ++i)
      out.push_back({i, output_is_binary(request, config.outputs[i].name)});
    return out;
  }
  std::set<std::string> seen;
  for (const RequestedOutput& r : request.outputs) {
    size_t k = 0;
    while (k < config.outputs.size() && config.outputs[k].name != r.name) ++k;
    if (k == config.outputs.size())
      bad_request("the model '" + config.name + "' has no output '" + r.name + "'");
    if (!seen.insert(r.name).second) bad_request("output '" + r.name + "' is requested twice");
    out.push_back({k, output_is_binary(request, r.name)});
  }
  return out;
}

}  // namespace skiff::serve
