// The parts of model_config.h that hold a config against the model's own signature.
#include <string>
#include <vector>

#include "skiff/core/error.h"
#include "skiff/core/shape.h"
#include "skiff/serve/model_config.h"

namespace skiff::serve {

namespace {

std::string dims_str(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string names(const std::vector<TensorSignature>& tensors) {
  if (tensors.empty()) return "none";
  std::string s;
  for (const TensorSignature& t : tensors) s += (s.empty() ? "\"" : ", \"") + t.name + "\"";
  return s;
}

template <typename T>
const T* find(const std::vector<T>& tensors, const std::string& name) {
  for (const T& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

// Throws unless the config's tensor `c` can be fed to (or read from) the model's `m`.
void check_tensor(const ModelConfig& config, const char* kind, const TensorConfig& c,
                  const TensorSignature& m) {
  const std::string where = str_cat("model \"", config.name, "\": ", kind, " \"", c.name, "\"");
  SKIFF_CHECK(c.dtype == m.dtype, where, " is ", dtype_name(c.dtype), " in the config but ",
              dtype_name(m.dtype), " in the model");
  std::vector<int64_t> full = c.dims;
  if (config.max_batch_size > 0) full.insert(full.begin(), -1);
  SKIFF_CHECK(full.size() == m.dims.size(), where, " has dims ", dims_str(c.dims), " in the config",
              config.max_batch_size > 0 ? " (with the batch dim: " : "",
              config.max_batch_size > 0 ? dims_str(full) + ")" : "", " but the model's shape is ",
              dims_str(m.dims));
  for (size_t i = 0; i < full.size(); ++i) {
    if (m.dims[i] == -1 || m.dims[i] == full[i]) continue;
    SKIFF_CHECK(!(i == 0 && config.max_batch_size > 0), where, ": max_batch_size ",
                config.max_batch_size, " batches it along its first dim, but the model fixes ",
                "that dim to ", m.dims[0], " (the model's shape is ", dims_str(m.dims), ")");
    fail(where, ": dim ", i, " is ", full[i] == -1 ? "-1 (any size)" : std::to_string(full[i]),
         " in the config but ", m.dims[i], " in the model (the model's shape is ", dims_str(m.dims),
         ")");
  }
}

// The config entry for the model's tensor `m`: its dims less the batch dim when batching.
// Complex dtypes are the ones without an Open Inference Protocol datatype.
TensorConfig tensor_from(const ModelConfig& config, const char* kind, const TensorSignature& m) {
  const std::string where = str_cat("model \"", config.name, "\": ", kind, " \"", m.name, "\"");
  SKIFF_CHECK(!is_complex(m.dtype), where, " is ", dtype_name(m.dtype),
              ", which the inference protocol has no datatype for");
  TensorConfig t;
  t.name = m.name;
  t.dtype = m.dtype;
  t.dims = m.dims;
  if (config.max_batch_size > 0) {
    SKIFF_CHECK(!t.dims.empty(), where, " is a scalar, which max_batch_size ",
                config.max_batch_size, " cannot batch (it needs a leading batch dim)");
    t.dims.erase(t.dims.begin());
  }
  return t;
}

}  // namespace

void check_signature(const ModelConfig& config, const Signature& signature) {
  for (const TensorSignature& m : signature.inputs)
    SKIFF_CHECK(find(config.inputs, m.name) != nullptr, "model \"", config.name,
                "\": the model's input \"", m.name, "\" is missing from the config's inputs");
  for (const TensorConfig& c : config.inputs) {
    const TensorSignature* m = find(signature.inputs, c.name);
    SKIFF_CHECK(m != nullptr, "model \"", config.name, "\": input \"", c.name,
                "\" of the config is not an input of the model (its inputs: ",
                names(signature.inputs), ")");
    check_tensor(config, "input", c, *m);
  }
  for (const TensorConfig& c : config.outputs) {
    const TensorSignature* m = find(signature.outputs, c.name);
    SKIFF_CHECK(m != nullptr, "model \"", config.name, "\": output \"", c.name,
                "\" of the config is not an output of the model (its outputs: ",
                names(signature.outputs), ")");
    check_tensor(config, "output", c, *m);
  }
}

ModelConfig complete_from_signature(ModelConfig config, const Signature& signature) {
  if (config.inputs.empty())
    for (const TensorSignature& m : signature.inputs)
      config.inputs.push_back(tensor_from(config, "input", m));
  if (config.outputs.empty())
    for (const TensorSignature& m : signature.outputs)
      config.outputs.push_back(tensor_from(config, "output", m));
  check_signature(config, signature);
  return config;
}

ModelConfig config_from_signature(const std::string& name, const Signature& signature) {
  ModelConfig config;
  config.name = name;
  return complete_from_signature(std::move(config), signature);
}

}  // namespace skiff::serve
