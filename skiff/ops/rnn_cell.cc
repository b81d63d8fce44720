// Fused recurrent cells: lstm_cell and gru_cell (one time step, PyTorch's gate order
// and formulas, weights stored [in, G * hidden]) and their grad ops.
#include "skiff/kernels/cpu/rnn_cell.h"

#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/recurrent_grad.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

bool dims_agree(int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; }

struct CellShape {
  int64_t batch = -1, hidden = -1;
  DType dtype = DType::kF32;
};

// Shape inference shared by both cells (`gates` gate blocks); -1 dims pass.
CellShape infer_cell(const ShapeContext& ctx, const char* op, int gates) {
  const Shape h = ctx.in_shape("H"), w_hh = ctx.in_shape("Weight_hh");
  CellShape s;
  s.dtype = ctx.in_dtype("H");
  SKIFF_CHECK(is_floating(s.dtype) && h.rank() == 2, op,
              ": H must be a float32 or float64 [batch, hidden] matrix, got ", dtype_name(s.dtype),
              h);
  s.batch = h[0];
  s.hidden = h[1];
  SKIFF_CHECK(w_hh.rank() == 2 && ctx.in_dtype("Weight_hh") == s.dtype, op,
              ": Weight_hh must be a ", dtype_name(s.dtype), " [hidden, ", gates,
              " * hidden] matrix, got ", dtype_name(ctx.in_dtype("Weight_hh")), w_hh);
  if (s.hidden < 0) s.hidden = w_hh[0];
  const int64_t width = s.hidden < 0 ? -1 : gates * s.hidden;
  SKIFF_CHECK(dims_agree(w_hh[0], s.hidden) && dims_agree(w_hh[1], width), op, ": Weight_hh ", w_hh,
              " does not fit H ", h, " (want [", s.hidden, ", ", width, "])");
  const bool has_x = ctx.has_input("X"), has_gates_x = ctx.has_input("Gates_x");
  SKIFF_CHECK(has_x != has_gates_x, op, ": give exactly one of X (with Weight_ih) and Gates_x");
  if (has_x) {
    SKIFF_CHECK(ctx.has_input("Weight_ih"), op, ": X needs Weight_ih");
    const Shape x = ctx.in_shape("X"), w_ih = ctx.in_shape("Weight_ih");
    SKIFF_CHECK(x.rank() == 2 && dims_agree(x[0], s.batch) && ctx.in_dtype("X") == s.dtype, op,
                ": X must be a ", dtype_name(s.dtype), " [batch, input] matrix for H ", h, ", got ",
                dtype_name(ctx.in_dtype("X")), x);
    SKIFF_CHECK(w_ih.rank() == 2 && dims_agree(w_ih[0], x[1]) && dims_agree(w_ih[1], width) &&
                    ctx.in_dtype("Weight_ih") == s.dtype,
                op, ": Weight_ih must be [", x[1], ", ", width, "] for X ", x, " and H ", h,
                ", got ", dtype_name(ctx.in_dtype("Weight_ih")), w_ih);
    if (s.batch < 0) s.batch = x[0];
  } else {
    const Shape gx = ctx.in_shape("Gates_x");
    SKIFF_CHECK(gx.rank() == 2 && dims_agree(gx[0], s.batch) && dims_agree(gx[1], width) &&
                    ctx.in_dtype("Gates_x") == s.dtype,
                op, ": Gates_x must be [", s.batch, ", ", width, "] for H ", h, ", got ",
                dtype_name(ctx.in_dtype("Gates_x")), gx);
    if (s.batch < 0) s.batch = gx[0];
  }
  for (const char* bias : {"Bias", "Bias_ih", "Bias_hh"}) {
    if (!ctx.has_input(bias)) continue;
    const Shape b = ctx.in_shape(bias);
    SKIFF_CHECK(b.rank() == 1 && dims_agree(b[0], width) && ctx.in_dtype(bias) == s.dtype, op, ": ",
                bias, " must be [", width, "] for H ", h, ", got ", dtype_name(ctx.in_dtype(bias)),
                b);
  }
  return s;
}

// ---- lstm_cell ----

constexpr std::initializer_list<const char*> kLstmInputs = {"X",         "Gates_x",   "H",   "C",
                                                            "Weight_ih", "Weight_hh", "Bias"};

void infer_lstm_cell(ShapeContext& ctx) {
  const CellShape s = infer_cell(ctx, "lstm_cell", 4);
  const Shape c = ctx.in_shape("C");
  SKIFF_CHECK(c.rank() == 2 && dims_agree(c[0], s.batch) && dims_agree(c[1], s.hidden) &&
                  ctx.in_dtype("C") == s.dtype,
              "lstm_cell: C must match H ", ctx.in_shape("H"), ", got ",
              dtype_name(ctx.in_dtype("C")), c);
  ctx.set_output("H_out", {s.batch, s.hidden}, s.dtype);
  ctx.set_output("C_out", {s.batch, s.hidden}, s.dtype);
  ctx.set_output("Gates", {s.batch, s.hidden < 0 ? -1 : 4 * s.hidden}, s.dtype);
}

// kernels::LstmCellInputs{x, gates_x, h, c, weight_ih, weight_hh, bias}
template <typename C>
auto lstm_inputs(const C& c) {
  return SKIFF_KERNEL_STRUCT(c, kernels::LstmCellInputs, c.in_or_null("X"), c.in_or_null("Gates_x"),
                             in_ptr(c, "H"), in_ptr(c, "C"), c.in_or_null("Weight_ih"),
                             in_ptr(c, "Weight_hh"), c.in_or_null("Bias"));
}

template <typename C>
void lstm_cell(C& c) {
  SKIFF_KERNEL_CALL(c, "rnn_cell", kernels::lstm_cell, lstm_inputs(c), c.out("H_out"),
                    c.out("C_out"), c.out("Gates"));
}

void lstm_cell_grad_maker(GradContext& g) {
  add_recurrent_grad(g, "lstm_cell_grad", kLstmInputs, {"H_out", "C_out"}, {"Gates", "C_out"},
                     /*kept_required=*/false);
}

void infer_lstm_cell_grad(ShapeContext& ctx) { infer_input_grads(ctx, kLstmInputs); }

template <typename C>
void lstm_cell_grad(C& c) {
  SKIFF_KERNEL_CALL(
      c, "rnn_cell", kernels::lstm_cell_grad, lstm_inputs(c), c.in_or_null("Gates"),
      c.in_or_null("C_out"), c.in_or_null("H_out@GRAD"), c.in_or_null("C_out@GRAD"),
      SKIFF_KERNEL_STRUCT(c, kernels::LstmCellGrads, c.out("X@GRAD"), c.out("Gates_x@GRAD"),
                          c.out("H@GRAD"), c.out("C@GRAD"), c.out("Weight_ih@GRAD"),
                          c.out("Weight_hh@GRAD"), c.out("Bias@GRAD")));
}

// ---- gru_cell ----

constexpr std::initializer_list<const char*> kGruInputs = {
    "X", "Gates_x", "H", "Weight_ih", "Weight_hh", "Bias_ih", "Bias_hh"};

void infer_gru_cell(ShapeContext& ctx) {
  const CellShape s = infer_cell(ctx, "gru_cell", 3);
  ctx.set_output("H_out", {s.batch, s.hidden}, s.dtype);
  ctx.set_output("Gates", {s.batch, s.hidden < 0 ? -1 : 4 * s.hidden}, s.dtype);
}

// kernels::GruCellInputs{x, gates_x, h, weight_ih, weight_hh, bias_ih, bias_hh}
template <typename C>
auto gru_inputs(const C& c) {
  return SKIFF_KERNEL_STRUCT(c, kernels::GruCellInputs, c.in_or_null("X"), c.in_or_null("Gates_x"),
                             in_ptr(c, "H"), c.in_or_null("Weight_ih"), in_ptr(c, "Weight_hh"),
                             c.in_or_null("Bias_ih"), c.in_or_null("Bias_hh"));
}

template <typename C>
void gru_cell(C& c) {
  SKIFF_KERNEL_CALL(c, "rnn_cell", kernels::gru_cell, gru_inputs(c), c.out("H_out"),
                    c.out("Gates"));
}

void gru_cell_grad_maker(GradContext& g) {
  add_recurrent_grad(g, "gru_cell_grad", kGruInputs, {"H_out"}, {"Gates"},
                     /*kept_required=*/false);
}

void infer_gru_cell_grad(ShapeContext& ctx) { infer_input_grads(ctx, kGruInputs); }

template <typename C>
void gru_cell_grad(C& c) {
  SKIFF_KERNEL_CALL(
      c, "rnn_cell", kernels::gru_cell_grad, gru_inputs(c), c.in_or_null("Gates"),
      c.in("H_out@GRAD"),
      SKIFF_KERNEL_STRUCT(c, kernels::GruCellGrads, c.out("X@GRAD"), c.out("Gates_x@GRAD"),
                          c.out("H@GRAD"), c.out("Weight_ih@GRAD"), c.out("Weight_hh@GRAD"),
                          c.out("Bias_ih@GRAD"), c.out("Bias_hh@GRAD")));
}

// Slots both cells share.
OpBuilder& cell_inputs(OpBuilder& b, const char* width) {
  const std::string w(width);
  return b.optional_input("X", "[B, I], the input at this step (with Weight_ih)")
      .optional_input("Gates_x", "[B, " + w + "]: X · Weight_ih computed beforehand (instead of X)")
      .input("H", "[B, Hd], the hidden state")
      .optional_input("Weight_ih", "[I, " + w + "], needed with X")
      .input("Weight_hh", "[Hd, " + w + "]");
}

}  // namespace

void register_rnn_cell_ops(OpRegistry& r) {
  OpBuilder lstm = r.add("lstm_cell");
  lstm.doc(
      "One LSTM step, fused (PyTorch's gate order i, f, g, o): pre = X · Weight_ih (or Gates_x) "
      "+ H · Weight_hh + Bias; i, f, o = sigmoid, g = tanh of its four [B, Hd] blocks; C_out = "
      "f * C + i * g; H_out = o * tanh(C_out). f32 and f64.");
  cell_inputs(lstm, "4Hd")
      .input("C", "[B, Hd], the cell state")
      .optional_input("Bias", "[4Hd] (PyTorch's bias_ih + bias_hh)")
      .output("H_out", "[B, Hd]")
      .output("C_out", "[B, Hd]")
      .optional_output("Gates", "[B, 4Hd], the activated gates i, f, g, o, kept for the backward")
      .infer_shape(infer_lstm_cell)
      .bind({DType::kF32, DType::kF64}, lstm_cell<KernelContext>, lstm_cell<EmitContext>)
      .kernel_dtype_from("H")
      .grad(lstm_cell_grad_maker);

  OpBuilder lstm_grad = r.add("lstm_cell_grad");
  lstm_grad.doc("Gradients of lstm_cell (the forward's gates recomputed when it kept none).");
  cell_inputs(lstm_grad, "4Hd")
      .input("C", "the forward C")
      .optional_input("Bias", "the forward Bias")
      .optional_input("Gates", "the forward Gates")
      .optional_input("C_out", "the forward C_out (with Gates)")
      .optional_input("H_out@GRAD", "gradient of H_out (absent: zero)")
      .optional_input("C_out@GRAD", "gradient of C_out (absent: zero)");
  for (const char* slot : kLstmInputs)
    lstm_grad.optional_output(std::string(slot) + kGradSuffix, "gradient of the forward input");
  lstm_grad.infer_shape(infer_lstm_cell_grad)
      .bind({DType::kF32, DType::kF64}, lstm_cell_grad<KernelContext>, lstm_cell_grad<EmitContext>)
      .kernel_dtype_from("H");

  OpBuilder gru = r.add("gru_cell");
  gru.doc(
      "One GRU step, fused (PyTorch's gate order r, z, n and formulas): with a = X · Weight_ih "
      "(or Gates_x) + Bias_ih and b = H · Weight_hh + Bias_hh, r = sigmoid(a_r + b_r), z = "
      "sigmoid(a_z + b_z), n = tanh(a_n + r * b_n), H_out = (1 - z) * n + z * H. f32 and f64.");
  cell_inputs(gru, "3Hd")
      .optional_input("Bias_ih", "[3Hd]")
      .optional_input("Bias_hh", "[3Hd]")
      .output("H_out", "[B, Hd]")
      .optional_output("Gates", "[B, 4Hd]: r, z, n and b_n, kept for the backward")
      .infer_shape(infer_gru_cell)
      .bind({DType::kF32, DType::kF64}, gru_cell<KernelContext>, gru_cell<EmitContext>)
      .kernel_dtype_from("H")
      .grad(gru_cell_grad_maker);

  OpBuilder gru_grad = r.add("gru_cell_grad");
  gru_grad.doc("Gradients of gru_cell (the forward's gates recomputed when it kept none).");
  cell_inputs(gru_grad, "3Hd")
      .optional_input("Bias_ih", "the forward Bias_ih")
      .optional_input("Bias_hh", "the forward Bias_hh")
      .optional_input("Gates", "the forward Gates")
      .input("H_out@GRAD", "gradient of H_out");
  for (const char* slot : kGruInputs)
    gru_grad.optional_output(std::string(slot) + kGradSuffix, "gradient of the forward input");
  gru_grad.infer_shape(infer_gru_cell_grad)
      .bind({DType::kF32, DType::kF64}, gru_cell_grad<KernelContext>, gru_cell_grad<EmitContext>)
      .kernel_dtype_from("H");
}

const OpRegistrar kRnnCellOps(register_rnn_cell_ops);

}  // namespace skiff
