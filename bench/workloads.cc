#include "bench/workloads.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "skiff/api/optimizer.h"
#include "skiff/api/rnn.h"
#include "skiff/autodiff/backward.h"
#include "skiff/core/error.h"
#include "skiff/runtime/executor.h"

namespace skiff::bench {

namespace {

using Ints = std::vector<int64_t>;

// Declares parameter `name`: created by `startup` with `init`, or only declared.
std::string param(BlockBuilder& b, const std::string& name, const Shape& shape, Program* startup,
                  Initializer init) {
  if (startup) return b.parameter(name, DType::kF32, shape, startup, init);
  return b.persistable(name, DType::kF32, shape);
}

// x [N, in] -> x W + b with W [in, out] named <prefix>_w, b [out] named <prefix>_b.
std::string fc(BlockBuilder& b, const std::string& x, const std::string& prefix, int64_t in,
               int64_t out, Program* startup) {
  std::string w = param(b, prefix + "_w", {in, out}, startup,
                        Initializer::uniform(-glorot(in, out), glorot(in, out)));
  std::string bias = param(b, prefix + "_b", {out}, startup, Initializer::constant(0));
  std::string z = b.apply("matmul", {{"X", {x}}, {"Y", {w}}});
  return b.apply("elementwise_add", {{"X", {z}}, {"Y", {bias}}});
}

// conv3x3(pad 1) with bias, relu, 2x2 max pool (stride 2).
std::string conv_relu_pool(BlockBuilder& b, const std::string& x, const std::string& prefix,
                           int64_t in_channels, int64_t out_channels, Program* startup) {
  const double bound = glorot(in_channels * 9, out_channels * 9);
  std::string w = param(b, prefix + "_w", {out_channels, in_channels, 3, 3}, startup,
                        Initializer::uniform(-bound, bound));
  std::string bias = param(b, prefix + "_b", {out_channels}, startup, Initializer::constant(0));
  std::string conv = b.unique_name(prefix);
  b.op("conv2d", {{"Input", {x}}, {"Filter", {w}}, {"Bias", {bias}}}, {{"Output", {conv}}},
       {{"strides", Ints{1, 1}},
        {"paddings", Ints{1, 1}},
        {"dilations", Ints{1, 1}},
        {"groups", int64_t{1}}});
  std::string act = b.apply("relu", {{"X", {conv}}});
  return b.apply("pool2d", {{"X", {act}}},
                 {{"pooling_type", std::string("max")},
                  {"ksize", Ints{2, 2}},
                  {"strides", Ints{2, 2}},
                  {"paddings", Ints{0, 0}}});
}

}  // namespace

Tensor fixed_tensor(const Shape& shape, double scale, double phase, double offset) {
  Tensor t = Tensor::empty(shape, DType::kF32);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i)
    p[i] = static_cast<float>(offset +
                              scale * std::sin(0.61803398875 * static_cast<double>(i) + phase));
  return t;
}

double glorot(int64_t fan_in, int64_t fan_out) {
  return std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
}

void set_params(Scope* scope, const std::vector<ParamValue>& params) {
  for (const ParamValue& p : params) {
    Variable* v = scope->find_var(p.name);
    SKIFF_CHECK(v != nullptr && v->tensor() != nullptr, "set_params: no parameter '", p.name,
                "' in the scope");
    SKIFF_CHECK(v->tensor()->shape() == p.value.shape(), "set_params: '", p.name, "' is ",
                v->tensor()->type_str(), ", the value is ", p.value.type_str());
    v->set(p.value.clone());
  }
}

std::string mlp_network(BlockBuilder& b, const std::string& x, Program* startup) {
  std::string h = fc(b, x, "fc0", 784, 512, startup);
  h = fc(b, b.apply("relu", {{"X", {h}}}), "fc1", 512, 512, startup);
  return fc(b, b.apply("relu", {{"X", {h}}}), "fc2", 512, 10, startup);
}

std::string mlp_inference_program(Program* program) {
  BlockBuilder b(program);
  b.data("x", DType::kF32, {-1, 784});
  const std::string logits = mlp_network(b, "x", nullptr);
  program->feed_names = {"x"};
  program->fetch_names = {logits};
  return logits;
}

std::vector<ParamValue> mlp_params() {
  const int64_t widths[] = {784, 512, 512, 10};
  std::vector<ParamValue> out;
  for (int layer = 0; layer < 3; ++layer) {
    const int64_t in = widths[layer], width = widths[layer + 1];
    const std::string prefix = "fc" + std::to_string(layer);
    out.push_back({prefix + "_w", fixed_tensor({in, width}, glorot(in, width), 0.1 + layer)});
    out.push_back({prefix + "_b", fixed_tensor({width}, 0.01, 0.5 + layer)});
  }
  return out;
}

std::string cnn_network(BlockBuilder& b, const std::string& x, Program* startup) {
  std::string h = conv_relu_pool(b, x, "conv1", 1, 32, startup);
  h = conv_relu_pool(b, h, "conv2", 32, 64, startup);
  std::string flat =
      b.apply("flatten", {{"X", {h}}}, {{"start_axis", int64_t{1}}, {"stop_axis", int64_t{-1}}});
  return fc(b, flat, "fc", 3136, 10, startup);
}

std::vector<ParamValue> cnn_params() {
  return {
      {"conv1_w", fixed_tensor({32, 1, 3, 3}, glorot(9, 288), 0.1)},
      {"conv1_b", fixed_tensor({32}, 0.01, 0.5)},
      {"conv2_w", fixed_tensor({64, 32, 3, 3}, glorot(288, 576), 1.1)},
      {"conv2_b", fixed_tensor({64}, 0.01, 1.5)},
      {"fc_w", fixed_tensor({3136, 10}, glorot(3136, 10), 2.1)},
      {"fc_b", fixed_tensor({10}, 0.01, 2.5)},
  };
}

std::string ctr_network(BlockBuilder& b, const std::string& ids, Program* startup) {
  std::string table =
      param(b, "table", {kCtrRows, kCtrDim}, startup, Initializer::uniform(-0.05, 0.05));
  std::string rows = b.unique_name("rows");
  b.op("embedding", {{"W", {table}}, {"Ids", {ids}}}, {{"Out", {rows}}}, {{"is_sparse", true}});
  std::string features =
      b.apply("reshape", {{"X", {rows}}}, {{"shape", Ints{-1, kCtrFields * kCtrDim}}});
  std::string h = fc(b, features, "fc0", kCtrFields * kCtrDim, 256, startup);
  return fc(b, b.apply("relu", {{"X", {h}}}), "fc1", 256, 1, startup);
}

std::vector<ParamValue> ctr_params() {
  return {
      {"table", fixed_tensor({kCtrRows, kCtrDim}, 0.05, 0.3)},
      {"fc0_w", fixed_tensor({416, 256}, glorot(416, 256), 1.1)},
      {"fc0_b", fixed_tensor({256}, 0.01, 1.5)},
      {"fc1_w", fixed_tensor({256, 1}, glorot(256, 1), 2.1)},
      {"fc1_b", fixed_tensor({1}, 0.01, 2.5)},
  };
}

Tensor sine_grid(int64_t rows, int64_t cols, double scale, double a, double b, double phase) {
  Tensor t = Tensor::empty({rows, cols}, DType::kF32);
  float* p = t.data<float>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      p[r * cols + c] = static_cast<float>(scale * std::sin(a * r + b * c + phase));
  return t;
}

namespace {

// sine_grid's single row as a vector [cols].
Tensor sine_row(int64_t cols, double scale, double b, double phase) {
  Tensor t = sine_grid(1, cols, scale, 0.0, b, phase);
  t.reshape({cols});
  return t;
}

}  // namespace

Tensor lstm_tokens(int64_t first_step, const Shape& shape) {
  Tensor t = Tensor::empty(shape, DType::kI64);
  int64_t* p = t.data<int64_t>();
  for (int64_t s = 0; s < kLstmSeq; ++s)
    for (int64_t b = 0; b < kLstmBatch; ++b)
      p[s * kLstmBatch + b] = ((s + first_step) * 131 + b * 977 + 7) % kLstmVocab;
  return t;
}

std::string lstm_stack(BlockBuilder& b, const std::string& x, Program* startup) {
  RnnOptions o;
  o.hidden = kLstmHidden;
  o.num_layers = kLstmLayers;
  o.name = "lstm";
  return lstm_layer(b, x, o, startup).outputs;
}

std::string lstm_output_loss(BlockBuilder& b, const std::string& h, Program* startup) {
  b.data("labels", DType::kI64, {kLstmSeq * kLstmBatch, 1});
  std::string flat = b.apply("reshape", {{"X", {h}}}, {{"shape", Ints{-1, kLstmHidden}}});
  std::string w_out = b.parameter("w_out", DType::kF32, {kLstmHidden, kLstmVocab}, startup);
  std::string b_out = b.parameter("b_out", DType::kF32, {kLstmVocab}, startup);
  std::string logits =
      b.apply("elementwise_add",
              {{"X", {b.apply("matmul", {{"X", {flat}}, {"Y", {w_out}}})}}, {"Y", {b_out}}});
  std::string softmax = b.unique_name("softmax"), losses = b.unique_name("losses");
  b.op("softmax_with_cross_entropy", {{"Logits", {logits}}, {"Label", {"labels"}}},
       {{"Softmax", {softmax}}, {"Loss", {losses}}});
  return b.apply("reduce_mean", {{"X", {losses}}});
}

ModelProgram lstm_lm_model(bool train) {
  ModelProgram m;
  BlockBuilder b(&m.main);
  b.data("ids", DType::kI64, {kLstmSeq, kLstmBatch});
  std::string table = b.parameter("embedding", DType::kF32, {kLstmVocab, kLstmEmbed}, &m.startup);
  std::string x = b.apply("embedding", {{"W", {table}}, {"Ids", {"ids"}}});
  m.loss = lstm_output_loss(b, lstm_stack(b, x, &m.startup), &m.startup);
  if (!train) return m;
  auto param_grads = append_backward(m.main, m.loss);
  std::vector<std::string> grads;
  for (const auto& pg : param_grads) grads.push_back(pg.second);
  b.op("clip_by_global_norm", {{"X", grads}}, {{"Out", grads}}, {{"clip_norm", 0.25}});
  OptimizerConfig sgd;
  sgd.learning_rate = 1.0;
  append_optimizer(m.main, m.startup, param_grads, sgd);
  return m;
}

std::vector<ParamValue> lstm_lm_params() {
  std::vector<ParamValue> out;
  out.push_back({"embedding", sine_grid(kLstmVocab, kLstmEmbed, 0.1, 0.37, 0.11, 0.05)});
  for (int l = 0; l < kLstmLayers; ++l) {
    const std::string p = "lstm_l" + std::to_string(l) + "_";
    out.push_back(
        {p + "weight_ih", sine_grid(kLstmEmbed, 4 * kLstmHidden, 0.07, 0.71, 1.31, 0.2 * l + 0.1)});
    out.push_back({p + "weight_hh",
                   sine_grid(kLstmHidden, 4 * kLstmHidden, 0.07, 1.17, 0.53, 0.2 * l + 0.3)});
    out.push_back({p + "bias", sine_row(4 * kLstmHidden, 0.05, 0.29, 0.2 * l)});
  }
  out.push_back({"w_out", sine_grid(kLstmHidden, kLstmVocab, 0.07, 0.43, 0.97, 0.4)});
  out.push_back({"b_out", sine_row(kLstmVocab, 0.01, 0.13, 0.0)});
  return out;
}

std::string append_softmax_loss(BlockBuilder& b, const std::string& logits,
                                const std::string& label) {
  std::string softmax = b.unique_name("softmax"), xent = b.unique_name("xent");
  b.op("softmax_with_cross_entropy", {{"Logits", {logits}}, {"Label", {label}}},
       {{"Softmax", {softmax}}, {"Loss", {xent}}});
  return b.apply("reduce_mean", {{"X", {xent}}});
}

Tensor image_batch(const Shape& shape) { return fixed_tensor(shape, 0.5, 0.1, 0.5); }

Tensor image_labels(int64_t batch) {
  Tensor t = Tensor::empty({batch, 1}, DType::kI64);
  for (int64_t r = 0; r < batch; ++r) t.data<int64_t>()[r] = (r * 7 + 3) % 10;
  return t;
}

Tensor ctr_ids(int64_t step) {
  Tensor t = Tensor::empty({kCtrBatch, kCtrFields}, DType::kI64);
  int64_t* p = t.data<int64_t>();
  for (int64_t e = 0; e < kCtrBatch; ++e) {
    const int64_t row = step * kCtrBatch + e;
    for (int64_t f = 0; f < kCtrFields; ++f)
      p[e * kCtrFields + f] = (row * 2654435761LL + f * 1000003LL + 7) % kCtrRows;
  }
  return t;
}

Tensor ctr_labels(int64_t step) {
  Tensor t = Tensor::empty({kCtrBatch, 1}, DType::kF32);
  for (int64_t e = 0; e < kCtrBatch; ++e) {
    const int64_t row = step * kCtrBatch + e;
    t.data<float>()[e] = (row * 40503 + 11) % 3 == 0 ? 1.0f : 0.0f;
  }
  return t;
}

double median_ms(int reps, const std::function<void()>& fn, int warmup) {
  for (int w = 0; w < warmup; ++w) fn();
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

namespace {

double status_field_mb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(in, line))
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
      return std::atof(line.c_str() + n + 1) / 1024.0;
  return -1;
}

}  // namespace

double peak_rss_mb() { return status_field_mb("VmHWM"); }
double current_rss_mb() { return status_field_mb("VmRSS"); }

TrainingBench mlp_training() {
  TrainingBench w2;
  w2.title = "W2 MLP 784-512-512-10, batch 64, Adam: training step";
  BlockBuilder b(&w2.main);
  b.data("x", DType::kF32, {-1, 784});
  b.data("label", DType::kI64, {-1, 1});
  std::string logits = mlp_network(b, "x", &w2.startup);
  w2.loss = append_softmax_loss(b, logits, "label");
  OptimizerConfig adam;
  adam.type = "adam";
  adam.learning_rate = 1e-3;
  append_optimizer(w2.main, w2.startup, append_backward(w2.main, w2.loss), adam);
  w2.params = mlp_params();
  const Tensor x = image_batch({64, 784}), label = image_labels(64);
  w2.feed_step = [x, label](const Program& main, Scope* scope, int64_t) {
    feed(main, scope, "x", x);
    feed(main, scope, "label", label);
  };
  w2.steps_per_rep = 20;
  return w2;
}

TrainingBench lstm_lm_training() {
  TrainingBench w4;
  w4.title = "W4 LSTM language model (V 10k, embed/hidden 200, 2 layers, seq 35, batch 20), SGD";
  ModelProgram m = lstm_lm_model(true);
  w4.main = std::move(m.main);
  w4.startup = std::move(m.startup);
  w4.loss = m.loss;
  w4.params = lstm_lm_params();
  const Tensor ids = lstm_tokens(0, {kLstmSeq, kLstmBatch});
  const Tensor labels = lstm_tokens(1, {kLstmSeq * kLstmBatch, 1});
  w4.feed_step = [ids, labels](const Program& main, Scope* scope, int64_t) {
    feed(main, scope, "ids", ids);
    feed(main, scope, "labels", labels);
  };
  w4.steps_per_rep = 2;
  return w4;
}

TrainingBench ctr_training() {
  TrainingBench w5;
  w5.title = "W5 sparse CTR, 26 ids per example, 1M x 16 table, batch 512, SGD: training step";
  BlockBuilder b(&w5.main);
  b.data("ids", DType::kI64, {-1, kCtrFields});
  b.data("click", DType::kF32, {-1, 1});
  std::string logit = ctr_network(b, "ids", &w5.startup);
  std::string xent =
      b.apply("sigmoid_cross_entropy_with_logits", {{"X", {logit}}, {"Label", {"click"}}});
  w5.loss = b.apply("reduce_mean", {{"X", {xent}}});
  OptimizerConfig sgd;
  sgd.type = "sgd";
  sgd.learning_rate = 0.01;
  append_optimizer(w5.main, w5.startup, append_backward(w5.main, w5.loss), sgd);
  w5.params = ctr_params();
  constexpr int kBatches = 8;
  std::vector<Tensor> ids, clicks;
  for (int s = 0; s < kBatches; ++s) {
    ids.push_back(ctr_ids(s));
    clicks.push_back(ctr_labels(s));
  }
  w5.feed_step = [ids, clicks](const Program& main, Scope* scope, int64_t step) {
    feed(main, scope, "ids", ids[step % kBatches]);
    feed(main, scope, "click", clicks[step % kBatches]);
  };
  w5.steps_per_rep = 20;
  return w5;
}

BenchOptions parse_options(int argc, char** argv) {
  BenchOptions o;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--memory"))
      o.memory = true;
    else if (!std::strcmp(argv[a], "--threads") && a + 1 < argc)
      o.threads = std::max(1, std::atoi(argv[++a]));
    else
      o.reps = std::max(5, std::atoi(argv[a]));
  }
  return o;
}

int run_training_bench(TrainingBench& bench, const BenchOptions& options, double rss_before_mb) {
  try {
    Executor exe;
    Scope scope;
    exe.run(bench.startup, &scope);
    set_params(&scope, bench.params);
    auto step = exe.prepare(bench.main, {bench.loss});
    int64_t counter = 0;
    auto train_step = [&] {
      bench.feed_step(bench.main, &scope, counter++);
      exe.run(*step, &scope);
      return fetch(scope, bench.loss).item<float>();
    };
    float first = 0, last = 0;
    for (int s = 1; s <= kLossSteps; ++s) {
      last = train_step();
      if (s == 1) first = last;
    }
    std::printf("%s\n", bench.title);
    std::printf("LOSS skiff %.6f %.6f\n", first, last);
    if (!std::isfinite(first) || !std::isfinite(last)) {
      std::fprintf(stderr, "the loss is not finite\n");
      return 1;
    }
    if (options.memory) {
      for (int s = kLossSteps; s < kMemorySteps; ++s) train_step();
      std::printf("PEAK_RSS_MB skiff %.1f %.1f\n", peak_rss_mb(), rss_before_mb);
      return 0;
    }
    const int n = bench.steps_per_rep;
    const double ms = median_ms(options.reps, [&] {
      for (int s = 0; s < n; ++s) train_step();
    });
    std::printf("  skiff: %.3f ms per step (median of %d reps of %d steps)\n", ms / n, options.reps,
                n);
    std::printf("RESULT skiff %.4f\n", ms / n);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: %s\n", bench.title, e.what());
    return 1;
  }
  return 0;
}

}  // namespace skiff::bench
