// A request checked against the model it is for, before anything reaches a kernel: every
// input named once, of the model's dtype and shape (with max_batch_size > 0, a leading
// batch dim of 1 to max_batch_size, the same for every input), no NaN or infinity where
// the config forbids them, and only outputs the model has. Each failure is a 400 naming
// the input, what the model expects and what the request gave.
//
//   std::vector<Tensor> inputs = checked_inputs(config, request);   // in config order
#pragma once

#include <vector>

#include "skiff/serve/infer_types.h"
#include "skiff/serve/model_config.h"

namespace skiff::serve {

// The request's inputs in the order of config.inputs (RequestError 400 otherwise).
std::vector<Tensor> checked_inputs(const ModelConfig& config, const InferRequest& request);

// The indices (into config.outputs) of the outputs to answer with, and whether each goes
// back as binary; all outputs when the request names none.
struct AnsweredOutput {
  size_t index;
  bool binary;
};
std::vector<AnsweredOutput> answered_outputs(const ModelConfig& config,
                                             const InferRequest& request);

}  // namespace skiff::serve
