#include "skiff/serve/model_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/testing/error_of.h"

namespace skiff::serve {
namespace {

namespace fs = std::filesystem;
using skiff::testing::error_of;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A config as Triton's documentation and model zoos write them, with fields skiff skips
// (platform, format, kind, optimization, parameters, model_warmup, ...).
constexpr char kTritonConfig[] = R"cfg(
name: "resnet"
platform: "onnxruntime_onnx"
max_batch_size: 8
version_policy: { latest: { num_versions: 2 } }
input [
  {
    name: "image"
    data_type: TYPE_FP32
    format: FORMAT_NCHW
    dims: [ 3, -1, 224 ]
    reject_nonfinite: true
  },
  {
    name: "scale"
    data_type: TYPE_FP64
    dims: [ 1 ]
    optional: false
    allow_ragged_batch: false
  }
]
output [
  {
    name: "probs"
    data_type: TYPE_FP32
    dims: [ 1000 ]
    label_filename: "labels.txt"
  }
]
instance_group [
  { count: 2 kind: KIND_CPU },
  { kind: KIND_CPU }
]
dynamic_batching {
  preferred_batch_size: [ 4, 8 ]
  max_queue_delay_microseconds: 100
  preserve_ordering: true
  default_queue_policy { timeout_action: REJECT default_timeout_microseconds: 5000
                         allow_timeout_override: true max_queue_size: 16 }
}
# comments are fine
optimization { execution_accelerators { cpu_execution_accelerator: [ { name: "openvino" } ] } }
parameters { key: "intra_op_thread_count" value: { string_value: "1" } }
model_warmup [ { name: "zeros" batch_size: 1 inputs { key: "image" value: { zero_data: true } } } ]
)cfg";

ModelConfig parse(const std::string& text, const std::string& name = "resnet") {
  return parse_model_config(text, "models/" + name + "/config.pbtxt", name);
}

std::string parse_error(const std::string& text, const std::string& name = "resnet") {
  return error_of([&] { parse(text, name); });
}

TEST(ModelConfig, ReadsATritonConfigAndSkipsTheFieldsSkiffDoesNotKnow) {
  const ModelConfig c = parse(kTritonConfig);
  EXPECT_EQ(c.name, "resnet");
  EXPECT_EQ(c.max_batch_size, 8);
  ASSERT_EQ(c.inputs.size(), 2u);
  EXPECT_EQ(c.inputs[0].name, "image");
  EXPECT_EQ(c.inputs[0].dtype, DType::kF32);
  EXPECT_THAT(c.inputs[0].dims, ElementsAre(3, -1, 224));
  EXPECT_TRUE(c.inputs[0].reject_nonfinite);
  EXPECT_EQ(c.inputs[1].dtype, DType::kF64);
  EXPECT_FALSE(c.inputs[1].reject_nonfinite);
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].name, "probs");
  EXPECT_THAT(c.outputs[0].dims, ElementsAre(1000));
  EXPECT_EQ(c.instance_count, 3);  // 2, and 1 for the group without a count
  EXPECT_TRUE(c.dynamic_batching.enabled);
  EXPECT_THAT(c.dynamic_batching.preferred_batch_sizes, ElementsAre(4, 8));
  EXPECT_EQ(c.dynamic_batching.max_queue_delay_us, 100);
  EXPECT_EQ(c.dynamic_batching.default_timeout_us, 5000);
  EXPECT_EQ(c.dynamic_batching.max_queue_size, 16);
  EXPECT_EQ(c.version_policy.kind, VersionPolicy::Kind::kLatest);
  EXPECT_EQ(c.version_policy.num_versions, 2);
}

TEST(ModelConfig, DefaultsForAShortConfig) {
  const ModelConfig c = parse("input { name: \"x\" data_type: TYPE_INT64 dims: 4 }");
  EXPECT_EQ(c.name, "resnet");  // the folder's name when the config gives none
  EXPECT_EQ(c.max_batch_size, 0);
  EXPECT_EQ(c.instance_count, 1);
  EXPECT_FALSE(c.dynamic_batching.enabled);
  EXPECT_EQ(c.version_policy.kind, VersionPolicy::Kind::kLatest);
  EXPECT_EQ(c.version_policy.num_versions, 1);
  EXPECT_TRUE(c.outputs.empty());
  EXPECT_EQ(c.default_model_filename, "");
}

TEST(ModelConfig, EveryDataTypeWithASkiffDtype) {
  const std::pair<const char*, DType> types[] = {
      {"TYPE_BOOL", DType::kBool}, {"TYPE_UINT8", DType::kU8},  {"TYPE_INT8", DType::kI8},
      {"TYPE_INT16", DType::kI16}, {"TYPE_INT32", DType::kI32}, {"TYPE_INT64", DType::kI64},
      {"TYPE_BF16", DType::kBF16}, {"TYPE_FP32", DType::kF32},  {"TYPE_FP64", DType::kF64}};
  for (const auto& [name, dtype] : types) {
    const ModelConfig c =
        parse(std::string("output { name: \"y\" dims: 1 data_type: ") + name + " }");
    EXPECT_EQ(c.outputs[0].dtype, dtype) << name;
  }
}

TEST(ModelConfig, SkipsUnknownListsWrittenWithOrWithoutAColon) {
  // Brackets in strings and comments are left alone.
  const ModelConfig c = parse(
      "model_warmup [ { name: \"a [b\" } ]  # ensemble [\n"
      "sequence_batching { control_input [ { name: 'c[' } ] }\n"
      "parameters: [ { key: \"k\" value { string_value: \"[\" } } ]\n"
      "input [ { name: \"x[0]\" data_type: TYPE_FP32 dims: [2] } ]\n"
      "max_batch_size: 4\n");
  ASSERT_EQ(c.inputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].name, "x[0]");
  EXPECT_EQ(c.max_batch_size, 4);
  // Lines stay where they were: the error is on line 3.
  EXPECT_THAT(parse_error("model_warmup\n[ { name: \"a\" } ]\nmax_batch_size: x"),
              HasSubstr("config.pbtxt:3:"));
}

TEST(ModelConfig, RefusesReshape) {
  EXPECT_THAT(parse_error("max_batch_size: 2\ninput { name: \"x\" data_type: TYPE_FP32 dims: 1\n"
                          "reshape: { shape: [ ] } }"),
              HasSubstr("config.pbtxt:3: input[\"x\"].reshape: skiff serve does not reshape "
                        "tensors"));
}

TEST(ModelConfig, VersionPolicies) {
  EXPECT_EQ(parse("version_policy { all {} }").version_policy.kind, VersionPolicy::Kind::kAll);
  const ModelConfig c = parse("version_policy: { specific: { versions: [3, 1, 3] } }");
  EXPECT_EQ(c.version_policy.kind, VersionPolicy::Kind::kSpecific);
  EXPECT_THAT(c.version_policy.versions, ElementsAre(1, 3));
}

TEST(ModelConfig, SyntaxErrorsNameTheFileLineAndColumn) {
  const std::string e = parse_error("name: \"resnet\"\nmax_batch_size: eight\n");
  EXPECT_THAT(e, HasSubstr("models/resnet/config.pbtxt:2:17: "));
  EXPECT_THAT(e, HasSubstr("eight"));
  EXPECT_THAT(parse_error("input { name: \"x\" data_type: TYPE_FLOAT32 }"),
              HasSubstr("config.pbtxt:1:43: Unknown enumeration value of \"TYPE_FLOAT32\""));
  EXPECT_THAT(parse_error("input { name: \"x\""), HasSubstr("config.pbtxt:1:"));
}

TEST(ModelConfig, ErrorsNameTheFileLineAndField) {
  const std::string text =
      "name: \"resnet\"\n"
      "input [\n"
      "  { name: \"a\" data_type: TYPE_FP32 dims: [1] },\n"
      "  { name: \"b\"\n"
      "    data_type: TYPE_STRING dims: [1] }\n"
      "]\n";
  EXPECT_EQ(parse_error(text),
            "models/resnet/config.pbtxt:5: input[\"b\"].data_type: TYPE_STRING has no skiff "
            "dtype (skiff serves TYPE_BOOL, TYPE_UINT8, TYPE_INT8, TYPE_INT16, TYPE_INT32, "
            "TYPE_INT64, TYPE_BF16, TYPE_FP32, TYPE_FP64)");
}

TEST(ModelConfig, TensorErrors) {
  EXPECT_THAT(parse_error("\n\ninput { name: \"x\" dims: 1 }"),
              HasSubstr("config.pbtxt:3: input[\"x\"].data_type: no data_type given"));
  EXPECT_THAT(parse_error("output { data_type: TYPE_FP32 }"),
              HasSubstr("config.pbtxt:1: output[0]: has no name"));
  EXPECT_THAT(parse_error("input { name: \"x\" data_type: TYPE_FP16 dims: 1 }"),
              HasSubstr("TYPE_FP16 has no skiff dtype"));
  EXPECT_THAT(parse_error("input { name: \"x\" data_type: TYPE_FP32 dims: [2, 0] }"),
              HasSubstr("input[\"x\"].dims[1]: 0 is not a size"));
  EXPECT_THAT(parse_error("input { name: \"x\" data_type: TYPE_FP32 dims: [-2] }"),
              HasSubstr("input[\"x\"].dims[0]: -2 is not a size"));
  EXPECT_THAT(parse_error("output [{ name: \"y\" data_type: TYPE_FP32 dims: 1 },\n"
                          "{ name: \"y\" data_type: TYPE_INT32 dims: 1 }]"),
              HasSubstr("config.pbtxt:2: output[\"y\"]: a second output named \"y\" (output[0]"));
  EXPECT_THAT(parse_error("max_batch_size: 4 input { name: \"x\" data_type: TYPE_FP32 "
                          "dims: [1, 1, 1, 1, 1, 1, 1, 1] }"),
              HasSubstr("input[\"x\"].dims: 8 dims and the batch dim are more than skiff's"));
  EXPECT_THAT(parse_error("output { name: \"y\" data_type: TYPE_FP32 reject_nonfinite: true }"),
              HasSubstr("output[\"y\"].reject_nonfinite: applies to inputs only"));
  EXPECT_THAT(parse_error("input { name: \"i\" data_type: TYPE_INT32 reject_nonfinite: true }"),
              HasSubstr("applies to floating-point inputs only; \"i\" is TYPE_INT32"));
}

TEST(ModelConfig, ModelLevelErrors) {
  EXPECT_THAT(parse_error("\nname: \"other\""),
              HasSubstr("config.pbtxt:2: name: \"other\" differs from the model's folder name "
                        "\"resnet\""));
  EXPECT_THAT(parse_error("max_batch_size: -1"),
              HasSubstr("config.pbtxt:1: max_batch_size: -1 is below 0"));
  EXPECT_THAT(parse_error("instance_group [{ count: 1 }, { count: -2 }]"),
              HasSubstr("instance_group[1].count: -2 instances"));
  EXPECT_THAT(parse_error("default_model_filename: \"model.onnx\""),
              HasSubstr("default_model_filename: \"model.onnx\" is neither a program"));
  EXPECT_THAT(parse_error("default_model_filename: \"../x.skmodel\""),
              HasSubstr("default_model_filename: \"../x.skmodel\" is not a file name"));
}

TEST(ModelConfig, DynamicBatchingErrors) {
  EXPECT_THAT(parse_error("dynamic_batching {}"),
              HasSubstr("config.pbtxt:1: dynamic_batching: needs max_batch_size > 0"));
  EXPECT_THAT(parse_error("max_batch_size: 8\n"
                          "dynamic_batching {\n preferred_batch_size: [4,\n 16] }"),
              HasSubstr("config.pbtxt:3: dynamic_batching.preferred_batch_size[1]: 16 is not a "
                        "batch size from 1 to max_batch_size (8)"));
  EXPECT_THAT(parse_error("max_batch_size: 8 dynamic_batching { preferred_batch_size: 0 }"),
              HasSubstr("preferred_batch_size[0]: 0 is not a batch size"));
  EXPECT_THAT(parse_error("max_batch_size: 8 dynamic_batching { default_queue_policy { "
                          "max_queue_size: 4294967295 } }"),
              HasSubstr("dynamic_batching.default_queue_policy.max_queue_size: 4294967295 is "
                        "more than"));
  EXPECT_THAT(parse_error("max_batch_size: 8 dynamic_batching { max_queue_delay_microseconds: "
                          "18446744073709551615 }"),
              HasSubstr("max_queue_delay_microseconds: 18446744073709551615 microseconds"));
}

TEST(ModelConfig, VersionPolicyErrors) {
  EXPECT_THAT(parse_error("\nversion_policy { latest { num_versions: 0 } }"),
              HasSubstr("config.pbtxt:2: version_policy.latest.num_versions: 0 serves no "
                        "version"));
  EXPECT_THAT(parse_error("version_policy { specific { } }"),
              HasSubstr("version_policy.specific: lists no versions"));
  EXPECT_THAT(parse_error("version_policy { specific { versions: [1, -4] } }"),
              HasSubstr("version_policy.specific.versions[1]: -4 is not a version"));
  EXPECT_THAT(parse_error("version_policy { }"),
              HasSubstr("version_policy: gives no policy (latest, all or specific)"));
}

TEST(ModelConfig, ReadsTheConfigOfAModelFolder) {
  const fs::path dir =
      fs::temp_directory_path() / ("skiff_model_config_" + std::to_string(getpid())) / "resnet";
  fs::create_directories(dir);
  std::ofstream(dir / "config.pbtxt") << kTritonConfig;
  EXPECT_EQ(read_model_config(dir.string()).inputs.size(), 2u);
  EXPECT_EQ(read_model_config(dir.string() + "/").name, "resnet");
  std::ofstream(dir / "config.pbtxt") << "max_batch_size: -3";
  EXPECT_EQ(error_of([&] { read_model_config(dir.string()); }),
            (dir / "config.pbtxt").string() + ":1: max_batch_size: -3 is below 0 (0: no batching)");
  fs::remove(dir / "config.pbtxt");
  EXPECT_THAT(error_of([&] { read_model_config(dir.string()); }),
              HasSubstr((dir / "config.pbtxt").string() + ": cannot be read"));
  fs::remove_all(dir.parent_path());
}

// A program with a batch of images in and class scores out.
Signature image_signature() {
  Signature s;
  s.inputs = {{"image", DType::kF32, {-1, 3, -1, 224}}, {"scale", DType::kF64, {-1, 1}}};
  s.outputs = {{"probs", DType::kF32, {-1, -1}}, {"features", DType::kF32, {-1, 512}}};
  return s;
}

std::string signature_error(const std::string& config_text, const Signature& s) {
  return error_of([&] { check_signature(parse(config_text), s); });
}

TEST(ModelSignature, AConfigThatFitsTheModel) {
  check_signature(parse(kTritonConfig), image_signature());  // probs only: fewer outputs
  Signature fixed = image_signature();
  fixed.inputs[0].dims = {-1, 3, 224, 224};
  EXPECT_THAT(signature_error(kTritonConfig, fixed),
              HasSubstr("model \"resnet\": input \"image\": dim 2 is -1 (any size) in the "
                        "config but 224 in the model"));
}

TEST(ModelSignature, ErrorsNameTheTensor) {
  Signature s = image_signature();
  s.inputs[1].dtype = DType::kF32;
  EXPECT_EQ(signature_error(kTritonConfig, s),
            "model \"resnet\": input \"scale\" is float64 in the config but float32 in the "
            "model");
  s = image_signature();
  s.inputs.push_back({"mask", DType::kBool, {-1}});
  EXPECT_THAT(signature_error(kTritonConfig, s),
              HasSubstr("the model's input \"mask\" is missing from the config's inputs"));
  s = image_signature();
  s.inputs.pop_back();
  EXPECT_THAT(signature_error(kTritonConfig, s),
              HasSubstr("input \"scale\" of the config is not an input of the model (its "
                        "inputs: \"image\")"));
  s = image_signature();
  s.outputs = {{"logits", DType::kF32, {-1, 1000}}};
  EXPECT_THAT(signature_error(kTritonConfig, s),
              HasSubstr("output \"probs\" of the config is not an output of the model (its "
                        "outputs: \"logits\")"));
  s = image_signature();
  s.inputs[0].dims = {3, -1, 224};
  EXPECT_THAT(signature_error(kTritonConfig, s),
              HasSubstr("input \"image\" has dims [3, -1, 224] in the config (with the batch "
                        "dim: [-1, 3, -1, 224]) but the model's shape is [3, -1, 224]"));
  s = image_signature();
  s.outputs[0].dims = {1, 1000};
  EXPECT_THAT(signature_error(kTritonConfig, s),
              HasSubstr("output \"probs\": max_batch_size 8 batches it along its first dim, but "
                        "the model fixes that dim to 1"));
  s = image_signature();
  s.outputs[0].dims = {-1, 10};
  EXPECT_THAT(signature_error(kTritonConfig, s),
              HasSubstr("output \"probs\": dim 1 is 1000 in the config but 10 in the model"));
}

TEST(ModelSignature, WithoutBatchingTheDimsAreTheWholeShape) {
  Signature s;
  s.inputs = {{"x", DType::kI64, {4}}};
  check_signature(parse("input { name: \"x\" data_type: TYPE_INT64 dims: 4 }"), s);
  s.inputs[0].dims = {-1, 4};
  EXPECT_THAT(signature_error("input { name: \"x\" data_type: TYPE_INT64 dims: 4 }", s),
              HasSubstr("input \"x\" has dims [4] in the config but the model's shape is "
                        "[-1, 4]"));
}

TEST(ModelSignature, AConfigFromTheSignatureAlone) {
  const ModelConfig c = config_from_signature("resnet", image_signature());
  EXPECT_EQ(c.name, "resnet");
  EXPECT_EQ(c.max_batch_size, 0);
  EXPECT_EQ(c.instance_count, 1);
  ASSERT_EQ(c.inputs.size(), 2u);
  EXPECT_THAT(c.inputs[0].dims, ElementsAre(-1, 3, -1, 224));
  EXPECT_EQ(c.inputs[1].dtype, DType::kF64);
  ASSERT_EQ(c.outputs.size(), 2u);
  EXPECT_EQ(c.outputs[1].name, "features");
  Signature complex = image_signature();
  complex.outputs[1].dtype = DType::kC64;
  EXPECT_EQ(error_of([&] { config_from_signature("resnet", complex); }),
            "model \"resnet\": output \"features\" is complex64, which the inference protocol "
            "has no datatype for");
}

TEST(ModelSignature, CompletesAConfigThatListsNoTensors) {
  const ModelConfig c =
      complete_from_signature(parse("max_batch_size: 4 dynamic_batching {}\n"
                                    "output { name: \"features\" data_type: TYPE_FP32 dims: 512 }"),
                              image_signature());
  ASSERT_EQ(c.inputs.size(), 2u);
  EXPECT_THAT(c.inputs[0].dims, ElementsAre(3, -1, 224));  // less the batch dim
  EXPECT_THAT(c.inputs[1].dims, ElementsAre(1));
  ASSERT_EQ(c.outputs.size(), 1u);  // the config's own list stays
  EXPECT_TRUE(c.dynamic_batching.enabled);
  Signature scalar = image_signature();
  scalar.inputs[1].dims = {};
  EXPECT_THAT(error_of([&] { complete_from_signature(parse("max_batch_size: 4"), scalar); }),
              HasSubstr("input \"scale\" is a scalar, which max_batch_size 4 cannot batch"));
  Signature fixed = image_signature();
  fixed.inputs[0].dims = {2, 3, -1, 224};
  EXPECT_THAT(error_of([&] { complete_from_signature(parse("max_batch_size: 4"), fixed); }),
              HasSubstr("input \"image\": max_batch_size 4 batches it along its first dim, but "
                        "the model fixes that dim to 2"));
}

}  // namespace
}  // namespace skiff::serve
