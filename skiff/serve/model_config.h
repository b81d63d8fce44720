// A model's configuration as the server uses it: read from DIR/NAME/config.pbtxt (Triton's
// model configuration in protobuf text; proto/serve_config.proto lists the fields skiff
// acts on, the others are skipped) and checked, or made from the model's own signature
// when the folder has no config.pbtxt.
//
//   ModelConfig config = read_model_config("models/mnist");   // models/mnist/config.pbtxt
//   check_signature(config, signature);                        // against the loaded model
//   ModelConfig plain = config_from_signature("mnist", signature);  // no config.pbtxt
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "skiff/core/dtype.h"

namespace skiff::serve::config {
class ModelConfig;  // serve_config.proto's message
}  // namespace skiff::serve::config

namespace skiff::serve {

// An input or output of a model as a config gives it. With max_batch_size > 0 the dims
// leave out the leading batch dim; -1 is a dim of any size.
struct TensorConfig {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> dims;
  bool reject_nonfinite = false;  // inputs: refuse NaN and infinities before the model runs
};

// Which of the versions present the server serves (Triton's version_policy).
struct VersionPolicy {
  enum class Kind { kLatest, kAll, kSpecific };
  Kind kind = Kind::kLatest;
  int num_versions = 1;           // kLatest: the highest this many versions
  std::vector<int64_t> versions;  // kSpecific: exactly these
};

// Requests queued and joined into batches (Triton's dynamic_batching); 0 in the sizes and
// times: no limit of that kind.
struct DynamicBatching {
  bool enabled = false;
  std::vector<int> preferred_batch_sizes;
  int64_t max_queue_delay_us = 0;  // the longest a request waits for others to join it
  int max_queue_size = 0;          // past it a request is refused at once
  int64_t default_timeout_us = 0;  // a request still queued after this fails
};

struct ModelConfig {
  std::string name;
  int max_batch_size = 0;  // 0: the model takes no batch dim of the server's
  std::vector<TensorConfig> inputs;
  std::vector<TensorConfig> outputs;
  int instance_count = 1;  // model instances running requests side by side
  DynamicBatching dynamic_batching;
  VersionPolicy version_policy;
  std::string default_model_filename;  // "": the one model file of each version folder
};

// Parses and checks a config in protobuf text. `origin` names it in errors (a file path)
// and `model_name` is its folder's name, which a given `name` must equal (an absent name
// becomes it). Throws skiff::Error naming origin, the line and the field at fault.
ModelConfig parse_model_config(const std::string& text, const std::string& origin,
                               const std::string& model_name);
// Reads MODEL_DIR/config.pbtxt; the model's name is MODEL_DIR's last part. Throws
// skiff::Error as parse_model_config does, or when the file cannot be read.
ModelConfig read_model_config(const std::string& model_dir);

// An input or output of a loaded model: the program's feed or fetch var, or a compiled
// library's skiff_model_input/output. Dims are the model's full shape (-1: any size).
struct TensorSignature {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> dims;
};

struct Signature {
  std::vector<TensorSignature> inputs;
  std::vector<TensorSignature> outputs;
};

// Throws skiff::Error naming the tensor unless `config` fits `signature`: every model
// input is in the config and every config tensor is in the model, with the same dtype
// and rank, each dim equal to the model's or the model's -1 (with max_batch_size > 0 the
// model's leading dim must be -1, the batch). The config may list fewer outputs.
void check_signature(const ModelConfig& config, const Signature& signature);
// `config` with its inputs (when it lists none) and outputs (when it lists none) taken
// from `signature` (less the leading dim when max_batch_size > 0), then checked against it
// as check_signature does. Throws skiff::Error naming the tensor at fault.
ModelConfig complete_from_signature(ModelConfig config, const Signature& signature);
// The config of a model folder without config.pbtxt: named `name`, no batching, every
// input and output of `signature` as it is, defaults elsewhere. Throws skiff::Error for a
// tensor whose dtype the protocol has no datatype for (complex).
ModelConfig config_from_signature(const std::string& name, const Signature& signature);

// `c` as Triton's ModelConfig message (serve_config.proto), named `name`, on `platform`:
// what the protocol's config requests answer, over gRPC (`out`) and over HTTP (as JSON with
// Triton's field names, every field printed).
void to_message(const ModelConfig& c, const std::string& name, const std::string& platform,
                config::ModelConfig* out);
std::string model_config_json(const ModelConfig& c, const std::string& name,
                              const std::string& platform);

}  // namespace skiff::serve
