// Whole recurrent layers: lstm, gru and simple_rnn run one layer in one direction over all
// the time steps (the fused cells of rnn_cell.cc step after step, kernels/cpu/rnn_layer.h),
// and their grad ops. The one RNN of skiff: nn.LSTM / nn.GRU / nn.SimpleRNN (eager,
// static, to_static) and the C++ API's lstm_layer / gru_layer append these ops.
#include "skiff/kernels/cpu/rnn_layer.h"
#include "skiff/kernels/cpu/simple_rnn_layer.h"

#include <string>

#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/recurrent_grad.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

bool dims_agree(int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; }

struct LayerShape {
  int64_t steps = -1, batch = -1, hidden = -1;
  DType dtype = DType::kF32;
};

// Shape inference shared by both layers (`gates` gate blocks); -1 dims pass.
LayerShape infer_layer(const ShapeContext& ctx, const char* op, int gates) {
  const Shape gx = ctx.in_shape("Gates_x"), h0 = ctx.in_shape("H0"),
              w_hh = ctx.in_shape("Weight_hh");
  LayerShape s;
  s.dtype = ctx.in_dtype("Gates_x");
  SKIFF_CHECK(is_floating(s.dtype) && gx.rank() == 3, op,
              ": Gates_x must be a float32 or float64 [T, B, ", gates, " * Hd] tensor, got ",
              dtype_name(s.dtype), gx);
  SKIFF_CHECK(h0.rank() == 2 && ctx.in_dtype("H0") == s.dtype && dims_agree(h0[0], gx[1]), op,
              ": H0 must be a ", dtype_name(s.dtype), " [B, Hd] matrix for Gates_x ", gx, ", got ",
              dtype_name(ctx.in_dtype("H0")), h0);
  s.steps = gx[0];
  s.batch = gx[1] >= 0 ? gx[1] : h0[0];
  s.hidden = h0[1] >= 0 ? h0[1] : w_hh.rank() == 2 ? w_hh[0] : -1;
  const int64_t width = s.hidden < 0 ? -1 : gates * s.hidden;
  SKIFF_CHECK(dims_agree(gx[2], width), op, ": Gates_x ", gx, " must have ", gates,
              " * Hd columns for H0 ", h0);
  SKIFF_CHECK(w_hh.rank() == 2 && ctx.in_dtype("Weight_hh") == s.dtype &&
                  dims_agree(w_hh[0], s.hidden) && dims_agree(w_hh[1], width),
              op, ": Weight_hh must be a ", dtype_name(s.dtype), " [", s.hidden, ", ", width,
              "] matrix, got ", dtype_name(ctx.in_dtype("Weight_hh")), w_hh);
  for (const char* slot : {"C0", "Bias", "Bias_ih", "Bias_hh", "Sequence_length"}) {
    if (!ctx.has_input(slot)) continue;
    const Shape b = ctx.in_shape(slot);
    const std::string name(slot);
    if (name == "C0") {
      SKIFF_CHECK(b.rank() == 2 && dims_agree(b[0], h0[0]) && dims_agree(b[1], h0[1]) &&
                      ctx.in_dtype(slot) == s.dtype,
                  op, ": C0 must match H0 ", h0, ", got ", dtype_name(ctx.in_dtype(slot)), b);
    } else if (name == "Sequence_length") {
      const DType t = ctx.in_dtype(slot);
      SKIFF_CHECK(
          b.rank() == 1 && dims_agree(b[0], s.batch) && (t == DType::kI32 || t == DType::kI64), op,
          ": Sequence_length must be an int32 or int64 [", s.batch, "] vector, got ", dtype_name(t),
          b);
    } else {
      SKIFF_CHECK(b.rank() == 1 && dims_agree(b[0], width) && ctx.in_dtype(slot) == s.dtype, op,
                  ": ", slot, " must be [", width, "], got ", dtype_name(ctx.in_dtype(slot)), b);
    }
  }
  return s;
}

void set_saved(ShapeContext& ctx, const LayerShape& s, std::initializer_list<const char*> slots) {
  for (const char* slot : slots)
    if (ctx.has_output(slot)) ctx.set_output(slot, {s.steps, s.batch, s.hidden}, s.dtype);
}

// ---- lstm ----

constexpr std::initializer_list<const char*> kLstmInputs = {"Gates_x", "H0", "C0", "Weight_hh",
                                                            "Bias"};
constexpr std::initializer_list<const char*> kLstmSaved = {"Gates", "H_prev", "C_prev", "C_step"};

void infer_lstm(ShapeContext& ctx) {
  const LayerShape s = infer_layer(ctx, "lstm", 4);
  SKIFF_CHECK(ctx.has_input("C0"), "lstm: C0 (the initial cell state) is required");
  ctx.set_output("Out", {s.steps, s.batch, s.hidden}, s.dtype);
  ctx.set_output("H_last", {s.batch, s.hidden}, s.dtype);
  ctx.set_output("C_last", {s.batch, s.hidden}, s.dtype);
  if (ctx.has_output("Gates"))
    ctx.set_output("Gates", {s.steps, s.batch, s.hidden < 0 ? -1 : 4 * s.hidden}, s.dtype);
  set_saved(ctx, s, {"H_prev", "C_prev", "C_step"});
}

// kernels::LstmLayerInputs{gates_x, h0, c0, weight_hh, bias, lengths, reverse}
template <typename C>
auto lstm_inputs(const C& c) {
  return SKIFF_KERNEL_STRUCT(c, kernels::LstmLayerInputs, in_ptr(c, "Gates_x"), in_ptr(c, "H0"),
                             in_ptr(c, "C0"), in_ptr(c, "Weight_hh"), c.in_or_null("Bias"),
                             c.in_or_null("Sequence_length"), attr<bool>(c, "is_reverse"));
}

template <typename C>
void lstm(C& c) {
  SKIFF_KERNEL_CALL(c, "rnn_layer", kernels::lstm_layer, lstm_inputs(c), c.out("Out"),
                    c.out("H_last"), c.out("C_last"),
                    SKIFF_KERNEL_STRUCT(c, kernels::LstmLayerSaved, c.out("Gates"), c.out("H_prev"),
                                        c.out("C_prev"), c.out("C_step")));
}

void lstm_grad_maker(GradContext& g) {
  add_recurrent_grad(g, "lstm_grad", kLstmInputs, {"Out", "H_last", "C_last"}, kLstmSaved,
                     /*kept_required=*/true);
}

void infer_lstm_grad(ShapeContext& ctx) { infer_input_grads(ctx, kLstmInputs); }

template <typename C>
void lstm_grad(C& c) {
  SKIFF_KERNEL_CALL(
      c, "rnn_layer", kernels::lstm_layer_grad, lstm_inputs(c),
      SKIFF_KERNEL_STRUCT(c, kernels::LstmLayerKept, in_ptr(c, "Gates"), in_ptr(c, "H_prev"),
                          in_ptr(c, "C_prev"), in_ptr(c, "C_step")),
      c.in_or_null("Out@GRAD"), c.in_or_null("H_last@GRAD"), c.in_or_null("C_last@GRAD"),
      SKIFF_KERNEL_STRUCT(c, kernels::LstmLayerGrads, c.out("Gates_x@GRAD"), c.out("H0@GRAD"),
                          c.out("C0@GRAD"), c.out("Weight_hh@GRAD"), c.out("Bias@GRAD")));
}

// ---- gru ----

constexpr std::initializer_list<const char*> kGruInputs = {"Gates_x", "H0", "Weight_hh", "Bias_ih",
                                                           "Bias_hh"};
constexpr std::initializer_list<const char*> kGruSaved = {"Gates", "H_prev"};

void infer_gru(ShapeContext& ctx) {
  const LayerShape s = infer_layer(ctx, "gru", 3);
  ctx.set_output("Out", {s.steps, s.batch, s.hidden}, s.dtype);
  ctx.set_output("H_last", {s.batch, s.hidden}, s.dtype);
  if (ctx.has_output("Gates"))
    ctx.set_output("Gates", {s.steps, s.batch, s.hidden < 0 ? -1 : 4 * s.hidden}, s.dtype);
  set_saved(ctx, s, {"H_prev"});
}

// kernels::GruLayerInputs{gates_x, h0, weight_hh, bias_ih, bias_hh, lengths, reverse}
template <typename C>
auto gru_inputs(const C& c) {
  return SKIFF_KERNEL_STRUCT(c, kernels::GruLayerInputs, in_ptr(c, "Gates_x"), in_ptr(c, "H0"),
                             in_ptr(c, "Weight_hh"), c.in_or_null("Bias_ih"),
                             c.in_or_null("Bias_hh"), c.in_or_null("Sequence_length"),
                             attr<bool>(c, "is_reverse"));
}

template <typename C>
void gru(C& c) {
  SKIFF_KERNEL_CALL(
      c, "rnn_layer", kernels::gru_layer, gru_inputs(c), c.out("Out"), c.out("H_last"),
      SKIFF_KERNEL_STRUCT(c, kernels::GruLayerSaved, c.out("Gates"), c.out("H_prev")));
}

void gru_grad_maker(GradContext& g) {
  add_recurrent_grad(g, "gru_grad", kGruInputs, {"Out", "H_last"}, kGruSaved,
                     /*kept_required=*/true);
}

void infer_gru_grad(ShapeContext& ctx) { infer_input_grads(ctx, kGruInputs); }

template <typename C>
void gru_grad(C& c) {
  SKIFF_KERNEL_CALL(
      c, "rnn_layer", kernels::gru_layer_grad, gru_inputs(c),
      SKIFF_KERNEL_STRUCT(c, kernels::GruLayerKept, in_ptr(c, "Gates"), in_ptr(c, "H_prev")),
      c.in_or_null("Out@GRAD"), c.in_or_null("H_last@GRAD"),
      SKIFF_KERNEL_STRUCT(c, kernels::GruLayerGrads, c.out("Gates_x@GRAD"), c.out("H0@GRAD"),
                          c.out("Weight_hh@GRAD"), c.out("Bias_ih@GRAD"), c.out("Bias_hh@GRAD")));
}

// ---- simple_rnn ----

constexpr std::initializer_list<const char*> kSimpleInputs = {"Gates_x", "H0", "Weight_hh"};

void infer_simple_rnn(ShapeContext& ctx) {
  const LayerShape s = infer_layer(ctx, "simple_rnn", 1);
  const std::string act = ctx.attr<std::string>("activation");
  SKIFF_CHECK(act == "tanh" || act == "relu",
              "simple_rnn: activation must be 'tanh' or 'relu', got '", act, "'");
  ctx.set_output("Out", {s.steps, s.batch, s.hidden}, s.dtype);
  ctx.set_output("H_last", {s.batch, s.hidden}, s.dtype);
  set_saved(ctx, s, {"H_prev"});
}

// kernels::SimpleRnnLayerInputs{gates_x, h0, weight_hh, lengths, reverse, activation}
template <typename C>
auto simple_inputs(const C& c) {
  return SKIFF_KERNEL_STRUCT(c, kernels::SimpleRnnLayerInputs, in_ptr(c, "Gates_x"),
                             in_ptr(c, "H0"), in_ptr(c, "Weight_hh"),
                             c.in_or_null("Sequence_length"), attr<bool>(c, "is_reverse"),
                             attr<std::string>(c, "activation"));
}

template <typename C>
void simple_rnn(C& c) {
  SKIFF_KERNEL_CALL(c, "simple_rnn_layer", kernels::simple_rnn_layer, simple_inputs(c),
                    c.out("Out"), c.out("H_last"), c.out("H_prev"));
}

void simple_rnn_grad_maker(GradContext& g) {
  add_recurrent_grad(g, "simple_rnn_grad", kSimpleInputs, {"Out", "H_last"}, {"Out", "H_prev"},
                     /*kept_required=*/true);
}

void infer_simple_rnn_grad(ShapeContext& ctx) { infer_input_grads(ctx, kSimpleInputs); }

template <typename C>
void simple_rnn_grad(C& c) {
  SKIFF_KERNEL_CALL(c, "simple_rnn_layer", kernels::simple_rnn_layer_grad, simple_inputs(c),
                    c.in("Out"), c.in("H_prev"), c.in_or_null("Out@GRAD"),
                    c.in_or_null("H_last@GRAD"), c.out("Gates_x@GRAD"), c.out("H0@GRAD"),
                    c.out("Weight_hh@GRAD"));
}

// Slots the layers share.
OpBuilder& layer_inputs(OpBuilder& b, const char* width) {
  const std::string w(width);
  return b.input("Gates_x", "[T, B, " + w + "]: X · Weight_ih of every step, in one product")
      .input("H0", "[B, Hd], the initial hidden state");
}

OpBuilder& layer_tail(OpBuilder& b) {
  return b
      .optional_input("Sequence_length",
                      "[B] int32 or int64: each sequence's steps; a step at or past it leaves "
                      "the state alone and outputs zeros (absent: all T steps)")
      .attr("is_reverse", false,
            "run the steps from T - 1 down to 0 (a sequence of length L starts at L - 1)");
}

const char* const kSavedDoc = "[T, B, Hd], kept for the backward: ";

}  // namespace

void register_rnn_layer_ops(OpRegistry& r) {
  OpBuilder lstm_op = r.add("lstm");
  lstm_op.doc(
      "One LSTM layer in one direction over all T steps (the lstm_cell step after step: "
      "PyTorch's gate order i, f, g, o and formulas): Out[t] = h after step t, H_last and C_last "
      "the states after the last step. f32 and f64.");
  layer_inputs(lstm_op, "4Hd")
      .input("C0", "[B, Hd], the initial cell state")
      .input("Weight_hh", "[Hd, 4Hd]")
      .optional_input("Bias", "[4Hd] (PyTorch's bias_ih + bias_hh)");
  layer_tail(lstm_op)
      .output("Out", "[T, B, Hd]: h of every step")
      .output("H_last", "[B, Hd]")
      .output("C_last", "[B, Hd]")
      .optional_output("Gates", "[T, B, 4Hd], kept for the backward: the activated gates")
      .optional_output("H_prev", std::string(kSavedDoc) + "h before each step")
      .optional_output("C_prev", std::string(kSavedDoc) + "c before each step")
      .optional_output("C_step", std::string(kSavedDoc) + "the cell's c_out at each step")
      .infer_shape(infer_lstm)
      .bind({DType::kF32, DType::kF64}, lstm<KernelContext>, lstm<EmitContext>)
      .kernel_dtype_from("H0")
      .grad(lstm_grad_maker);

  OpBuilder lstm_grad_op = r.add("lstm_grad");
  lstm_grad_op.doc(
      "Gradients of lstm: the cell's backward step after step, then Weight_hh@GRAD in one "
      "product over all steps.");
  layer_inputs(lstm_grad_op, "4Hd")
      .input("C0", "the forward C0")
      .input("Weight_hh", "the forward Weight_hh")
      .optional_input("Bias", "the forward Bias");
  layer_tail(lstm_grad_op);
  for (const char* slot : kLstmSaved) lstm_grad_op.input(slot, "what the forward kept");
  for (const char* slot : {"Out", "H_last", "C_last"})
    lstm_grad_op.optional_input(std::string(slot) + kGradSuffix, "gradient (absent: zero)");
  for (const char* slot : kLstmInputs)
    lstm_grad_op.optional_output(std::string(slot) + kGradSuffix, "gradient of the forward input");
  lstm_grad_op.infer_shape(infer_lstm_grad)
      .bind({DType::kF32, DType::kF64}, lstm_grad<KernelContext>, lstm_grad<EmitContext>)
      .kernel_dtype_from("H0");

  OpBuilder gru_op = r.add("gru");
  gru_op.doc(
      "One GRU layer in one direction over all T steps (the gru_cell step after step: PyTorch's "
      "gate order r, z, n and formulas): Out[t] = h after step t, H_last the state after the "
      "last step. f32 and f64.");
  layer_inputs(gru_op, "3Hd")
      .input("Weight_hh", "[Hd, 3Hd]")
      .optional_input("Bias_ih", "[3Hd]")
      .optional_input("Bias_hh", "[3Hd]");
  layer_tail(gru_op)
      .output("Out", "[T, B, Hd]: h of every step")
      .output("H_last", "[B, Hd]")
      .optional_output("Gates", "[T, B, 4Hd], kept for the backward: r, z, n and b_n")
      .optional_output("H_prev", std::string(kSavedDoc) + "h before each step")
      .infer_shape(infer_gru)
      .bind({DType::kF32, DType::kF64}, gru<KernelContext>, gru<EmitContext>)
      .kernel_dtype_from("H0")
      .grad(gru_grad_maker);

  OpBuilder gru_grad_op = r.add("gru_grad");
  gru_grad_op.doc("Gradients of gru: the cell's backward step after step.");
  layer_inputs(gru_grad_op, "3Hd")
      .input("Weight_hh", "the forward Weight_hh")
      .optional_input("Bias_ih", "the forward Bias_ih")
      .optional_input("Bias_hh", "the forward Bias_hh");
  layer_tail(gru_grad_op);
  for (const char* slot : kGruSaved) gru_grad_op.input(slot, "what the forward kept");
  for (const char* slot : {"Out", "H_last"})
    gru_grad_op.optional_input(std::string(slot) + kGradSuffix, "gradient (absent: zero)");
  for (const char* slot : kGruInputs)
    gru_grad_op.optional_output(std::string(slot) + kGradSuffix, "gradient of the forward input");
  gru_grad_op.infer_shape(infer_gru_grad)
      .bind({DType::kF32, DType::kF64}, gru_grad<KernelContext>, gru_grad<EmitContext>)
      .kernel_dtype_from("H0");
}

void register_simple_rnn_ops(OpRegistry& r) {
  OpBuilder op = r.add("simple_rnn");
  op.doc(
      "One simple (Elman) RNN layer in one direction over all T steps: h = activation(Gates_x[t] "
      "+ h · Weight_hh), Out[t] = h after step t, H_last the state after the last step. f32 and "
      "f64.");
  layer_inputs(op, "Hd").input("Weight_hh", "[Hd, Hd]");
  layer_tail(op)
      .attr("activation", std::string("tanh"), "'tanh' or 'relu'")
      .output("Out", "[T, B, Hd]: h of every step")
      .output("H_last", "[B, Hd]")
      .optional_output("H_prev", std::string(kSavedDoc) + "h before each step")
      .infer_shape(infer_simple_rnn)
      .bind({DType::kF32, DType::kF64}, simple_rnn<KernelContext>, simple_rnn<EmitContext>)
      .kernel_dtype_from("H0")
      .grad(simple_rnn_grad_maker);

  OpBuilder grad = r.add("simple_rnn_grad");
  grad.doc("Gradients of simple_rnn: step after step, then Weight_hh@GRAD in one product.");
  layer_inputs(grad, "Hd").input("Weight_hh", "the forward Weight_hh");
  layer_tail(grad).attr("activation", std::string("tanh"), "the forward's activation");
  grad.input("Out", "the forward Out").input("H_prev", "what the forward kept");
  for (const char* slot : {"Out", "H_last"})
    grad.optional_input(std::string(slot) + kGradSuffix, "gradient (absent: zero)");
  for (const char* slot : kSimpleInputs)
    grad.optional_output(std::string(slot) + kGradSuffix, "gradient of the forward input");
  grad.infer_shape(infer_simple_rnn_grad)
      .bind({DType::kF32, DType::kF64}, simple_rnn_grad<KernelContext>,
            simple_rnn_grad<EmitContext>)
      .kernel_dtype_from("H0");
}

const OpRegistrar kRnnLayerOps(register_rnn_layer_ops);
const OpRegistrar kSimpleRnnOps(register_simple_rnn_ops);

}  // namespace skiff
