// The passes by name: the one list the pipeline (passes/pipeline.h), the bindings and
// `skiff passes` read. Each entry adapts a pass's C++ function to the pass form: options
// in from attribute values, what it did out as a report.
#include "skiff/passes/fuse_conv.h"
#include "skiff/passes/int8.h"
#include "skiff/passes/pipeline.h"
#include "skiff/passes/ps_split.h"

namespace skiff {

namespace {

Program fuse_conv_bias_relu_pass(const Program& program, const PassOptions&, PassReport*) {
  return fuse_conv_bias_relu(program);
}

Program convert_to_int8_pass(const Program& program, const PassOptions&, PassReport* report) {
  Int8Report r;
  Program out = convert_to_int8(program, &r);
  report->set("converted", int64_t{r.converted});
  report->set("requantized", int64_t{r.requantized});
  report->set("left_float", r.left_float);
  return out;
}

PsSplitMode ps_split_mode(const std::string& mode) {
  if (mode == "sync") return PsSplitMode::kSync;
  if (mode == "async") return PsSplitMode::kAsync;
  if (mode == "geo") return PsSplitMode::kGeo;
  fail("ps_split: mode '", mode, "' (static programs train in 'sync', 'async' or 'geo' mode)");
}

template <typename T>
const T& option(const PassOptions& options, const char* name) {
  return std::get<T>(*options.find(name));
}

Program ps_split_pass(const Program& program, const PassOptions& o, PassReport*) {
  using Strings = std::vector<std::string>;
  PsSplitOptions options;
  const auto& sparse_params = option<Strings>(o, "sparse_params");
  const auto& sparse_tables = option<Strings>(o, "sparse_tables");
  const auto& sparse_dims = option<std::vector<int64_t>>(o, "sparse_dims");
  SKIFF_CHECK(
      sparse_tables.size() == sparse_params.size() && sparse_dims.size() == sparse_params.size(),
      "ps_split: sparse_params, sparse_tables and sparse_dims differ in length (",
      sparse_params.size(), ", ", sparse_tables.size(), ", ", sparse_dims.size(), ")");
  for (size_t i = 0; i < sparse_params.size(); ++i)
    options.sparse.push_back({sparse_params[i], sparse_tables[i], sparse_dims[i]});
  const auto& dense_params = option<Strings>(o, "dense_params");
  const auto& dense_tables = option<Strings>(o, "dense_tables");
  SKIFF_CHECK(dense_tables.size() == dense_params.size(),
              "ps_split: dense_params and dense_tables differ in length (", dense_params.size(),
              ", ", dense_tables.size(), ")");
  for (size_t i = 0; i < dense_params.size(); ++i)
    options.dense.push_back({dense_params[i], dense_tables[i]});
  options.mode = ps_split_mode(option<std::string>(o, "mode"));
  options.k_steps = option<int64_t>(o, "k_steps");
  return ps_split(program, options);
}

AttrSchema opt(std::string name, Attr default_value, std::string doc) {
  AttrSchema a;
  a.name = std::move(name);
  a.type = attr_type(default_value);
  a.default_value = std::move(default_value);
  a.doc = std::move(doc);
  return a;
}

}  // namespace

const std::vector<PassInfo>& registered_passes() {
  using Strings = std::vector<std::string>;
  static const std::vector<PassInfo> passes = {
      {"fuse_conv_bias_relu",
       "Fuses conv2d -> elementwise_add of a per-channel bias [-> relu] into one conv2d "
       "(inference only: the fused op has no gradient; passes/fuse_conv.h).",
       {},
       fuse_conv_bias_relu_pass},
      {"convert_to_int8",
       "Turns fake-quantized matmuls and conv2d's of int8 weights into int8 compute "
       "(quantize_linear + quantized_matmul / quantized_conv2d; passes/int8.h). Reports "
       "'converted', 'requantized' and 'left_float' (why each op left stays float).",
       {},
       convert_to_int8_pass},
      {"ps_split",
       "The trainer's part of a training program for parameter-server training "
       "(passes/ps_split.h); the startup program follows with ps_split_startup.",
       {opt("sparse_params", Strings{}, "embedding tables whose rows live on the servers"),
        opt("sparse_tables", Strings{}, "the sparse table of each, by position"),
        opt("sparse_dims", std::vector<int64_t>{}, "the row width of each, by position"),
        opt("dense_params", Strings{}, "parameters kept whole on the servers"),
        opt("dense_tables", Strings{}, "the dense table of each, by position"),
        opt("mode", std::string("sync"), "'sync', 'async' or 'geo'"),
        opt("k_steps", int64_t{0}, "geo mode: steps between syncs (positive)")},
       ps_split_pass},
  };
  return passes;
}

}  // namespace skiff
