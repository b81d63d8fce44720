// A loaded version of a model, run one batch at a time: an interpreted program (a
// jit.save'd .skmodel with its .skparams, run by the Executor) or a compiled one (a
// `skiff compile --lib` libmodel.so, called through its C API). Each instance owns what a
// run writes, so a model with N instances runs N batches at once, one per instance.
//
//   auto model = load_program_model("m/1/model.skmodel", "m/1/model.skparams", 2);
//   std::vector<Tensor> outs = model->run(0, {x});   // instance 0, inputs in order
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "skiff/core/tensor.h"
#include "skiff/serve/model_config.h"

namespace skiff::serve {

class ModelBackend {
 public:
  virtual ~ModelBackend() = default;
  virtual const Signature& signature() const = 0;
  virtual int num_instances() const = 0;
  // "skiff_program" or "skiff_compiled" (the platform in model metadata).
  virtual const char* platform() const = 0;
  // Runs one batch on `instance` (in [0, num_instances), one call at a time each):
  // inputs and outputs in signature order. The outputs own their memory.
  virtual std::vector<Tensor> run(int instance, const std::vector<Tensor>& inputs) = 0;
};

// Loads a program and its parameters (verified; errors name the file) with `instances`
// execution contexts sharing the parameters.
std::unique_ptr<ModelBackend> load_program_model(const std::string& program_path,
                                                 const std::string& params_path, int instances);

// Loads a compiled model library; `params_path` is used when its parameters are not
// embedded ("" otherwise). Each instance is a context of its own (skiff_model_create).
std::unique_ptr<ModelBackend> load_compiled_model(const std::string& library_path,
                                                  const std::string& params_path, int instances);

}  // namespace skiff::serve
