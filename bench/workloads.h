// What the workload programs of bench/ share: the networks of W2, W3/W8, W4 and W5 built
// as skiff programs (and the W2, W4 and W5 training steps whole), the fixed parameter values
// and inputs that bench/peers.py and bench/w4_peers.py compute the same way (so the first
// losses can be compared across frameworks), the timing loop and the process's resident
// set size.
//
//   Program main, startup;
//   BlockBuilder b(&main);
//   b.data("x", DType::kF32, {-1, 784});
//   std::string logits = mlp_network(b, "x", &startup);
//   TrainingBench bench{...};               // or: TrainingBench bench = mlp_training();
//   return run_training_bench(bench, options);
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/core/tensor.h"
#include "skiff/ir/program.h"
#include "skiff/runtime/scope.h"

namespace skiff::bench {

// The first loss and the loss of this (1-based) step are printed for comparison.
constexpr int kLossSteps = 5;
// Steps trained before the peak resident set size is read (--memory).
constexpr int kMemorySteps = 50;

// offset + scale * sin(0.61803398875 i + phase) over the flat index i, rounded to float32
// (bench/peers.py: fixed()).
Tensor fixed_tensor(const Shape& shape, double scale, double phase, double offset = 0);
// sqrt(6 / (fan_in + fan_out)): the Glorot uniform bound.
double glorot(int64_t fan_in, int64_t fan_out);

// A parameter's name and the value the benchmark starts from.
struct ParamValue {
  std::string name;
  Tensor value;
};
// Overwrites each listed variable of `scope` with its value.
void set_params(Scope* scope, const std::vector<ParamValue>& params);

// W2: logits = relu(relu(x W0 + b0) W1 + b1) W2 + b2 with widths 784-512-512-10. With
// `startup` the parameters are created there (Glorot uniform, zero biases).
std::string mlp_network(BlockBuilder& b, const std::string& x, Program* startup);
std::vector<ParamValue> mlp_params();
// W6: the network as an inference program into `program` (feed "x" [-1, 784], fetch the
// logits, whose name it returns), parameters from mlp_params().
std::string mlp_inference_program(Program* program);

// W3 and W8 on x [N, 1, 28, 28]: conv3x3(1->32, pad 1)-relu-maxpool2,
// conv3x3(32->64, pad 1)-relu-maxpool2, flatten, fc(3136->10). Returns the logits.
std::string cnn_network(BlockBuilder& b, const std::string& x, Program* startup);
std::vector<ParamValue> cnn_params();

// W5 on ids int64 [N, 26]: each id looked up in a 1M x 16 table (sparse gradient), the
// 26 rows concatenated to 416 features, fc(416->256)-relu-fc(256->1). Returns the logit.
constexpr int64_t kCtrRows = 1000000, kCtrDim = 16, kCtrFields = 26, kCtrBatch = 512;
std::string ctr_network(BlockBuilder& b, const std::string& ids, Program* startup);
std::vector<ParamValue> ctr_params();

// W4, an LSTM language model: ids int64 [35, 20] -> embedding 10k x 200 -> 2-layer LSTM
// (hidden 200, zero initial state; skiff/api/rnn.h: while loops over the fused lstm_cell)
// -> linear 200 -> 10k -> softmax_with_cross_entropy against the next tokens -> mean.
constexpr int64_t kLstmVocab = 10000, kLstmEmbed = 200, kLstmHidden = 200, kLstmLayers = 2,
                  kLstmSeq = 35, kLstmBatch = 20;
// [rows, cols] float32 with w[r][c] = scale * sin(a r + b c + phase) (bench/w4_peers.py:
// values()).
Tensor sine_grid(int64_t rows, int64_t cols, double scale, double a, double b, double phase);
// Token t of sequence b is ((t + first_step) * 131 + b * 977 + 7) mod V, laid out [T, B]
// (shape [35, 20] or [700, 1]): first_step 0 gives the ids, 1 their labels.
Tensor lstm_tokens(int64_t first_step, const Shape& shape);
// The 2-layer LSTM over x [T, B, E] (parameters "lstm_l<layer>_weight_ih", ...); returns its
// outputs [T, B, H].
std::string lstm_stack(BlockBuilder& b, const std::string& x, Program* startup);
// Declares the data variable "labels" int64 [700, 1]; appends the linear 200 -> 10k over
// every position of h [T, B, H] (parameters "w_out", "b_out"), softmax cross-entropy against
// "labels" and the mean; returns the loss.
std::string lstm_output_loss(BlockBuilder& b, const std::string& h, Program* startup);

// A program computing `loss` and the program that initializes its parameters.
struct ModelProgram {
  Program main, startup;
  std::string loss;
};
// W4 on the data variables "ids" and "labels"; with `train` also its backward,
// clip_by_global_norm 0.25 over the gradients and SGD (lr 1).
ModelProgram lstm_lm_model(bool train);
std::vector<ParamValue> lstm_lm_params();

// Appends softmax cross-entropy of `logits` against int64 `label` [N, 1], averaged over
// the batch; returns the loss variable.
std::string append_softmax_loss(BlockBuilder& b, const std::string& logits,
                                const std::string& label);

// Pixels in [0, 1] of the given shape and labels (7 r + 3) mod 10 as int64 [N, 1].
Tensor image_batch(const Shape& shape);
Tensor image_labels(int64_t batch);
// Ids [512, 26] and click labels [512, 1] of training step `step` (0-based).
Tensor ctr_ids(int64_t step);
Tensor ctr_labels(int64_t step);

// Median milliseconds of `reps` calls of `fn` after `warmup` calls.
double median_ms(int reps, const std::function<void()>& fn, int warmup = 2);
// The process's peak (VmHWM) and current (VmRSS) resident set size in MiB.
double peak_rss_mb();
double current_rss_mb();

// A training-step benchmark: `main` computes `loss` and updates the parameters;
// `feed_step` feeds the inputs of step s.
struct TrainingBench {
  const char* title;
  Program main, startup;
  std::string loss;
  std::vector<ParamValue> params;
  std::function<void(const Program&, Scope*, int64_t step)> feed_step;
  int steps_per_rep = 10;
};

// The training steps of W2 (Adam, lr 1e-3; x [64, 784], label [64, 1]), W4 (the fixed
// batch of ids and labels every step) and W5 (SGD, lr 0.01, on the data variables "ids" and
// "click"; 8 batches in turn), with the parameter values and inputs the peers use.
TrainingBench mlp_training();
TrainingBench lstm_lm_training();
TrainingBench ctr_training();

struct BenchOptions {
  int reps = 7;
  bool memory = false;  // train kMemorySteps steps and print the peak RSS instead of timing
  int threads = 2;      // the workloads are defined on 2; 1 helps attribute time in a profile
};
// Reads "[reps] [--memory] [--threads N]" from the command line.
BenchOptions parse_options(int argc, char** argv);

// Runs the startup program, sets the fixed parameter values, trains kLossSteps steps
// (printing "LOSS skiff <first> <last>"), then prints the median ms per step
// ("RESULT skiff <ms>") or, with options.memory, "PEAK_RSS_MB skiff <peak> <before>".
// Returns the process exit code (1 after a skiff::Error or a non-finite loss).
int run_training_bench(TrainingBench& bench, const BenchOptions& options, double rss_before_mb);

}  // namespace skiff::bench
