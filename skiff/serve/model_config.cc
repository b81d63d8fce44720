#include "skiff/serve/model_config.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "serve_config.pb.h"
#include "skiff/core/error.h"
#include "skiff/core/shape.h"

namespace skiff::serve {

namespace {

namespace fs = std::filesystem;
namespace pb = skiff::serve::config;
using google::protobuf::Descriptor;
using google::protobuf::TextFormat;

// The first error the text parser reports (lines and columns zero-based).
class FirstParseError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (!message_.empty()) return;
    line_ = line;
    column_ = column;
    message_ = message;
  }
  std::string str(const std::string& origin) const {
    if (line_ < 0) return str_cat(origin, ": ", message_);
    return str_cat(origin, ":", line_ + 1, ":", column_ + 1, ": ", message_);
  }

 private:
  int line_ = -1;
  int column_ = -1;
  std::string message_;
};

// The first line (zero-based) of any field written in the message `tree` records; -1 when
// it records none.
int first_line(const TextFormat::ParseInfoTree* tree, const Descriptor* message) {
  int first = -1;
  for (int i = 0; tree != nullptr && i < message->field_count(); ++i) {
    const auto* f = message->field(i);
    const int line = tree->GetLocation(f, f->is_repeated() ? 0 : -1).line;
    if (line >= 0 && (first < 0 || line < first)) first = line;
  }
  return first;
}

// A field of the config being checked: its path for messages ("input[1].dims[0]"), the
// line it was written on (1-based) and the parser's locations of the fields inside it
// (messages only). The parser records one location for a whole `field: [a, b]` list, so
// an element of a list has the list's line (a message element: its first field's line),
// and a field left out has the line of the message around it.
struct Place {
  std::string origin;
  std::string path;
  int line = -1;
  const TextFormat::ParseInfoTree* tree = nullptr;

  // The field `name` of this message (`index` >= 0 for an element of a repeated field).
  Place field(const Descriptor* message, const char* name, int index = -1) const {
    Place child{origin, path.empty() ? name : path + "." + name, line, nullptr};
    if (index >= 0) child.path += str_cat("[", index, "]");
    const auto* f = message->FindFieldByName(name);
    SKIFF_CHECK(f != nullptr, "serve_config.proto has no field ", name);
    if (tree == nullptr) return child;
    const int at = f->is_repeated() ? std::max(index, 0) : -1;
    int found = tree->GetLocation(f, at).line;
    if (f->type() == google::protobuf::FieldDescriptor::TYPE_MESSAGE) {
      child.tree = tree->GetTreeForNested(f, at);
      if (found < 0) found = first_line(child.tree, f->message_type());
    }
    if (found < 0 && f->is_repeated()) found = tree->GetLocation(f, 0).line;
    if (found >= 0) child.line = found + 1;
    return child;
  }

  template <typename... Args>
  [[noreturn]] void fail(Args&&... args) const {
    const std::string where = line >= 0 ? str_cat(origin, ":", line) : origin;
    skiff::fail(where, ": ", path.empty() ? "" : path + ": ", std::forward<Args>(args)...);
  }
};

struct DataTypeDType {
  pb::DataType data_type;
  DType dtype;
};

// The config data types that have a skiff dtype.
constexpr DataTypeDType kDataTypes[] = {
    {pb::TYPE_BOOL, DType::kBool}, {pb::TYPE_UINT8, DType::kU8},  {pb::TYPE_INT8, DType::kI8},
    {pb::TYPE_INT16, DType::kI16}, {pb::TYPE_INT32, DType::kI32}, {pb::TYPE_INT64, DType::kI64},
    {pb::TYPE_BF16, DType::kBF16}, {pb::TYPE_FP32, DType::kF32},  {pb::TYPE_FP64, DType::kF64},
};

DType to_skiff_dtype(pb::DataType data_type, const Place& at) {
  if (data_type == pb::TYPE_INVALID) at.fail("no data_type given");
  for (const DataTypeDType& t : kDataTypes)
    if (t.data_type == data_type) return t.dtype;
  std::string served;
  for (const DataTypeDType& t : kDataTypes)
    served += std::string(served.empty() ? "" : ", ") + pb::DataType_Name(t.data_type);
  at.fail(pb::DataType_Name(data_type), " has no skiff dtype (skiff serves ", served, ")");
}

// An input or an output (pb::ModelInput or pb::ModelOutput: the same fields, but the dims'
// field numbers; reject_nonfinite is refused on an output).
template <typename Message>
TensorConfig read_tensor(const Message& t, const Place& at, int max_batch_size) {
  const Descriptor* d = Message::descriptor();
  if (t.name().empty()) at.fail("has no name");
  TensorConfig out;
  out.name = t.name();
  out.dtype = to_skiff_dtype(t.data_type(), at.field(d, "data_type"));
  const int batch_dims = max_batch_size > 0 ? 1 : 0;
  if (t.dims_size() + batch_dims > Shape::kMaxRank)
    at.field(d, "dims").fail(t.dims_size(), " dims", batch_dims ? " and the batch dim" : "",
                             " are more than skiff's rank limit of ", Shape::kMaxRank);
  for (int i = 0; i < t.dims_size(); ++i) {
    if (t.dims(i) < 1 && t.dims(i) != -1)
      at.field(d, "dims", i).fail(t.dims(i), " is not a size (a dim is >= 1, or -1 for any)");
    out.dims.push_back(t.dims(i));
  }
  if (t.has_reshape())
    at.field(d, "reshape")
        .fail("skiff serve does not reshape tensors: give the model's own ",
              "dims (with max_batch_size > 0, dims: [] is a [batch] tensor)");
  out.reject_nonfinite = t.reject_nonfinite();
  if (out.reject_nonfinite && std::is_same_v<Message, pb::ModelOutput>)
    at.field(d, "reject_nonfinite").fail("applies to inputs only");
  if (out.reject_nonfinite && !is_floating(out.dtype))
    at.field(d, "reject_nonfinite")
        .fail("applies to floating-point inputs only; \"", out.name, "\" is ",
              pb::DataType_Name(t.data_type()));
  return out;
}

template <typename Message>
std::vector<TensorConfig> read_tensors(const google::protobuf::RepeatedPtrField<Message>& list,
                                       const char* field, const pb::ModelConfig& c,
                                       const Place& at) {
  std::vector<TensorConfig> out;
  for (int i = 0; i < list.size(); ++i) {
    Place here = at.field(pb::ModelConfig::descriptor(), field, i);
    if (!list[i].name().empty()) here.path = str_cat(field, "[\"", list[i].name(), "\"]");
    out.push_back(read_tensor(list[i], here, c.max_batch_size()));
    for (int j = 0; j < i; ++j)
      if (out[j].name == out[i].name)
        here.fail("a second ", field, " named \"", out[i].name, "\" (", field, "[", j,
                  "] has that name)");
  }
  return out;
}

int read_instance_count(const pb::ModelConfig& c, const Place& at) {
  if (c.instance_group_size() == 0) return 1;
  int64_t total = 0;
  for (int i = 0; i < c.instance_group_size(); ++i) {
    const int count = c.instance_group(i).count();
    const Place here = at.field(pb::ModelConfig::descriptor(), "instance_group", i);
    if (count < 0)
      here.field(pb::ModelInstanceGroup::descriptor(), "count")
          .fail(count, " instances (a count is >= 1; 0 or none: 1)");
    total += count == 0 ? 1 : count;
  }
  if (total > INT_MAX)
    at.field(pb::ModelConfig::descriptor(), "instance_group")
        .fail(total, " instances in all are more than ", INT_MAX);
  return static_cast<int>(total);
}

int64_t microseconds(uint64_t us, const Place& at) {
  if (us > static_cast<uint64_t>(INT64_MAX)) at.fail(us, " microseconds are too many");
  return static_cast<int64_t>(us);
}

DynamicBatching read_dynamic_batching(const pb::ModelConfig& c, const Place& config) {
  DynamicBatching out;
  if (!c.has_dynamic_batching()) return out;
  const Place at = config.field(pb::ModelConfig::descriptor(), "dynamic_batching");
  if (c.max_batch_size() == 0)
    at.fail("needs max_batch_size > 0 (with 0 the model takes no batch dim to batch on)");
  const pb::ModelDynamicBatching& b = c.dynamic_batching();
  const Descriptor* d = pb::ModelDynamicBatching::descriptor();
  out.enabled = true;
  for (int i = 0; i < b.preferred_batch_size_size(); ++i) {
    const int size = b.preferred_batch_size(i);
    if (size < 1 || size > c.max_batch_size())
      at.field(d, "preferred_batch_size", i)
          .fail(size, " is not a batch size from 1 to max_batch_size (", c.max_batch_size(), ")");
    out.preferred_batch_sizes.push_back(size);
  }
  out.max_queue_delay_us =
      microseconds(b.max_queue_delay_microseconds(), at.field(d, "max_queue_delay_microseconds"));
  const Place queue = at.field(d, "default_queue_policy");
  const Descriptor* q = pb::ModelQueuePolicy::descriptor();
  const pb::ModelQueuePolicy& policy = b.default_queue_policy();
  if (policy.max_queue_size() > static_cast<uint32_t>(INT_MAX))
    queue.field(q, "max_queue_size").fail(policy.max_queue_size(), " is more than ", INT_MAX);
  out.max_queue_size = static_cast<int>(policy.max_queue_size());
  out.default_timeout_us = microseconds(policy.default_timeout_microseconds(),
                                        queue.field(q, "default_timeout_microseconds"));
  return out;
}

VersionPolicy read_version_policy(const pb::ModelConfig& c, const Place& config) {
  VersionPolicy out;
  if (!c.has_version_policy()) return out;
  const Place at = config.field(pb::ModelConfig::descriptor(), "version_policy");
  const Descriptor* d = pb::ModelVersionPolicy::descriptor();
  const pb::ModelVersionPolicy& p = c.version_policy();
  switch (p.policy_choice_case()) {
    case pb::ModelVersionPolicy::kLatest: {
      const uint32_t n = p.latest().num_versions();
      const Place count =
          at.field(d, "latest").field(pb::ModelVersionPolicy::Latest::descriptor(), "num_versions");
      if (n == 0) count.fail("0 serves no version (give 1 or more)");
      if (n > static_cast<uint32_t>(INT_MAX)) count.fail(n, " is more than ", INT_MAX);
      out.num_versions = static_cast<int>(n);
      return out;
    }
    case pb::ModelVersionPolicy::kAll:
      out.kind = VersionPolicy::Kind::kAll;
      return out;
    case pb::ModelVersionPolicy::kSpecific: {
      out.kind = VersionPolicy::Kind::kSpecific;
      const Place specific = at.field(d, "specific");
      const auto& versions = p.specific().versions();
      if (versions.empty()) specific.fail("lists no versions");
      for (int i = 0; i < versions.size(); ++i) {
        if (versions[i] < 0)
          specific.field(pb::ModelVersionPolicy::Specific::descriptor(), "versions", i)
              .fail(versions[i], " is not a version (versions are numbers >= 0)");
        out.versions.push_back(versions[i]);
      }
      std::sort(out.versions.begin(), out.versions.end());
      out.versions.erase(std::unique(out.versions.begin(), out.versions.end()), out.versions.end());
      return out;
    }
    case pb::ModelVersionPolicy::POLICY_CHOICE_NOT_SET:
      at.fail("gives no policy (latest, all or specific)");
  }
  at.fail("gives an unknown policy");
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

ModelConfig from_proto(const pb::ModelConfig& c, const Place& at, const std::string& model_name) {
  const Descriptor* d = pb::ModelConfig::descriptor();
  ModelConfig out;
  out.name = c.name().empty() ? model_name : c.name();
  if (out.name != model_name)
    at.field(d, "name").fail("\"", c.name(), "\" differs from the model's folder name \"",
                             model_name, "\" (they must be equal)");
  if (c.max_batch_size() < 0)
    at.field(d, "max_batch_size").fail(c.max_batch_size(), " is below 0 (0: no batching)");
  out.max_batch_size = c.max_batch_size();
  out.inputs = read_tensors(c.input(), "input", c, at);
  out.outputs = read_tensors(c.output(), "output", c, at);
  out.instance_count = read_instance_count(c, at);
  out.dynamic_batching = read_dynamic_batching(c, at);
  out.version_policy = read_version_policy(c, at);
  const std::string& file = c.default_model_filename();
  if (!file.empty()) {
    const Place here = at.field(d, "default_model_filename");
    if (file.find('/') != std::string::npos || file == "." || file == "..")
      here.fail("\"", file, "\" is not a file name (a file of the version folder)");
    if (!ends_with(file, ".skmodel") && !ends_with(file, ".so"))
      here.fail("\"", file, "\" is neither a program (.skmodel) nor a library (.so)");
  }
  out.default_model_filename = file;
  return out;
}

// `text` with a colon between a field name and the "[" of its list (`model_warmup [...]`
// becomes `model_warmup:[...]`): protobuf's parser skips an unknown field with a list of
// messages only in the colon form, and Triton configs write both. Strings and # comments
// stay as they are; lines stay where they were.
std::string with_list_colons(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 16);
  char last = 0;  // the last character outside strings, comments and whitespace
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '#') {
      const size_t end = std::min(text.find('\n', i), text.size());
      out.append(text, i, end - i);
      i = end - 1;
      continue;
    }
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < text.size() && text[j] != c && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
      j = std::min(j, text.size() - 1);
      out.append(text, i, j - i + 1);
      i = j;
      last = c;
      continue;
    }
    if (c == '[' && (std::isalnum(static_cast<unsigned char>(last)) || last == '_')) {
      if (!out.empty() && (out.back() == ' ' || out.back() == '\t'))
        out.back() = ':';
      else
        out += ':';
    }
    out += c;
    if (!std::isspace(static_cast<unsigned char>(c))) last = c;
  }
  return out;
}

}  // namespace

ModelConfig parse_model_config(const std::string& text, const std::string& origin,
                               const std::string& model_name) {
  pb::ModelConfig proto;
  TextFormat::Parser parser;
  parser.AllowUnknownField(true);
  FirstParseError error;
  parser.RecordErrorsTo(&error);
  TextFormat::ParseInfoTree tree;
  parser.WriteLocationsTo(&tree);
  if (!parser.ParseFromString(with_list_colons(text), &proto)) fail(error.str(origin));
  return from_proto(proto, Place{origin, "", -1, &tree}, model_name);
}

ModelConfig read_model_config(const std::string& model_dir) {
  fs::path dir(model_dir);
  if (!dir.has_filename()) dir = dir.parent_path();
  const std::string path = (dir / "config.pbtxt").string();
  std::ifstream in(path, std::ios::binary);
  SKIFF_CHECK(in.good(), path, ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  SKIFF_CHECK(!in.bad(), path, ": reading failed");
  return parse_model_config(text.str(), path, dir.filename().string());
}

void to_message(const ModelConfig& c, const std::string& name, const std::string& platform,
                config::ModelConfig* out) {
  out->set_name(name);
  out->set_platform(platform);
  out->set_max_batch_size(c.max_batch_size);
  auto data_type = [](DType dtype) {
    for (const DataTypeDType& t : kDataTypes)
      if (t.dtype == dtype) return t.data_type;
    fail("a config tensor of ", dtype_name(dtype), ", which the protocol has no type for");
  };
  for (const TensorConfig& t : c.inputs) {
    pb::ModelInput* in = out->add_input();
    in->set_name(t.name);
    in->set_data_type(data_type(t.dtype));
    for (int64_t d : t.dims) in->add_dims(d);
    in->set_reject_nonfinite(t.reject_nonfinite);
  }
  for (const TensorConfig& t : c.outputs) {
    pb::ModelOutput* o = out->add_output();
    o->set_name(t.name);
    o->set_data_type(data_type(t.dtype));
    for (int64_t d : t.dims) o->add_dims(d);
  }
  pb::ModelInstanceGroup* group = out->add_instance_group();
  group->set_count(c.instance_count);
  group->set_kind(pb::ModelInstanceGroup::KIND_CPU);
  if (c.dynamic_batching.enabled) {
    pb::ModelDynamicBatching* batching = out->mutable_dynamic_batching();
    for (int size : c.dynamic_batching.preferred_batch_sizes)
      batching->add_preferred_batch_size(size);
    batching->set_max_queue_delay_microseconds(
        static_cast<uint64_t>(c.dynamic_batching.max_queue_delay_us));
    pb::ModelQueuePolicy* queue = batching->mutable_default_queue_policy();
    queue->set_max_queue_size(static_cast<uint32_t>(c.dynamic_batching.max_queue_size));
    queue->set_default_timeout_microseconds(
        static_cast<uint64_t>(c.dynamic_batching.default_timeout_us));
  }
}

namespace {

// Protobuf's JSON writes 64-bit integers as strings; Triton's config JSON has numbers. The
// fields of `descriptor` that are 64-bit integers become numbers in `value`, recursively.
void int64_as_numbers(nlohmann::json& value, const Descriptor* descriptor) {
  using google::protobuf::FieldDescriptor;
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* f = descriptor->field(i);
    auto it = value.find(f->name());
    if (it == value.end()) continue;
    auto fix = [&](nlohmann::json& v) {
      if (f->type() == FieldDescriptor::TYPE_MESSAGE && v.is_object()) {
        int64_as_numbers(v, f->message_type());
      } else if (v.is_string() && (f->cpp_type() == FieldDescriptor::CPPTYPE_INT64 ||
                                   f->cpp_type() == FieldDescriptor::CPPTYPE_UINT64)) {
        const std::string text = v.get<std::string>();
        v = f->cpp_type() == FieldDescriptor::CPPTYPE_INT64 ? nlohmann::json(std::stoll(text))
                                                            : nlohmann::json(std::stoull(text));
      }
    };
    if (it->is_array()) {
      for (nlohmann::json& v : *it) fix(v);
    } else {
      fix(*it);
    }
  }
}

}  // namespace

std::string model_config_json(const ModelConfig& c, const std::string& name,
                              const std::string& platform) {
  pb::ModelConfig message;
  to_message(c, name, platform, &message);
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string text;
  const auto status = google::protobuf::util::MessageToJsonString(message, &text, options);
  SKIFF_CHECK(status.ok(), "model '", name,
              "': the config does not convert to JSON: ", status.ToString());
  nlohmann::json json = nlohmann::json::parse(text);
  int64_as_numbers(json, pb::ModelConfig::descriptor());
  return json.dump();
}

}  // namespace skiff::serve
