// Emitter rules of the network families: softmax and cross-entropy, sigmoid
// cross-entropy, conv2d, pool2d, reshape and the views (flatten, squeeze, unsqueeze),
// embedding (its gradient dense or selected rows), the optimizer updates (dense or
// selected-rows gradients), global-norm clipping, and their grad ops. Attributes that the kernels
// take as structs (ConvParams, Pool2dOptions) become function-local constants made once.
#include "skiff/codegen/op_rules.h"

namespace skiff::codegen {

namespace {

using Ints = std::vector<int64_t>;

// ---- softmax and cross-entropy

void emit_softmax(OpEmitter& e) {
  e.include("softmax");
  e.line("k::softmax(" + e.in("X") + ", " + OpEmitter::lit(e.attr<int64_t>("axis")) + ", " +
         e.out("Out") + ");");
}

void emit_softmax_grad(OpEmitter& e) {
  e.include("softmax");
  if (!e.has_out("X@GRAD")) return;
  e.line("k::softmax_grad(" + e.in("Out") + ", " + e.in("Out@GRAD") + ", " +
         OpEmitter::lit(e.attr<int64_t>("axis")) + ", " + e.out("X@GRAD") + ");");
}

// soft_label, axis, ignore_index
std::string cross_entropy_attrs(OpEmitter& e) {
  return OpEmitter::lit(e.attr<bool>("soft_label")) + ", " +
         OpEmitter::lit(e.attr<int64_t>("axis")) + ", " +
         OpEmitter::lit(e.attr<int64_t>("ignore_index"));
}

void emit_softmax_with_cross_entropy(OpEmitter& e) {
  e.include("softmax");
  e.line("k::softmax_with_cross_entropy(" + e.in("Logits") + ", " + e.in("Label") + ", " +
         cross_entropy_attrs(e) + ", " + e.out("Softmax") + ", " + e.out("Loss") + ");");
}

void emit_softmax_with_cross_entropy_grad(OpEmitter& e) {
  e.include("softmax");
  if (!e.has_out("Logits@GRAD")) return;
  e.line("k::softmax_with_cross_entropy_grad(" + e.in("Label") + ", " + e.in("Softmax") + ", " +
         e.in("Loss@GRAD") + ", " + cross_entropy_attrs(e) + ", " + e.out("Logits@GRAD") + ");");
}

// k::SigmoidCrossEntropyOptions{ignore_index, normalize}
std::string bce_options(OpEmitter& e) {
  return "k::SigmoidCrossEntropyOptions{" + OpEmitter::lit(e.attr<int64_t>("ignore_index")) + ", " +
         OpEmitter::lit(e.attr<bool>("normalize")) + "}";
}

void emit_sigmoid_cross_entropy_with_logits(OpEmitter& e) {
  e.include("loss");
  e.line("k::sigmoid_cross_entropy_with_logits(" + e.in("X") + ", " + e.in("Label") + ", " +
         bce_options(e) + ", " + e.out("Out") + ");");
}

void emit_sigmoid_cross_entropy_with_logits_grad(OpEmitter& e) {
  e.include("loss");
  if (!e.has_out("X@GRAD")) return;
  e.line("k::sigmoid_cross_entropy_with_logits_grad(" + e.in("X") + ", " + e.in("Label") + ", " +
         e.in("Out@GRAD") + ", " + bce_options(e) + ", " + e.out("X@GRAD") + ");");
}

// ---- embedding

void emit_embedding(OpEmitter& e) {
  e.include("embedding");
  e.line("k::embedding(" + e.in("W") + ", " + e.in("Ids") + ", " +
         OpEmitter::lit(e.attr<int64_t>("padding_idx")) + ", " + e.out("Out") + ");");
}

// With is_sparse, W@GRAD is selected rows holding the looked-up rows only.
void emit_embedding_grad(OpEmitter& e) {
  e.include("embedding");
  if (!e.has_out("W@GRAD")) return;
  const std::string padding = OpEmitter::lit(e.attr<int64_t>("padding_idx"));
  if (e.attr<bool>("is_sparse")) {
    e.line("k::embedding_grad_rows(" + e.in("Ids") + ", " + e.in("Out@GRAD") + ", " + e.in("W") +
           ".dim(0), " + padding + ", " + e.out_rows("W@GRAD") + ");");
    return;
  }
  e.line("k::embedding_grad(" + e.in("Ids") + ", " + e.in("Out@GRAD") + ", " + e.in("W") +
         ".shape(), " + padding + ", " + e.out("W@GRAD") + ");");
}

// ---- conv2d and pool2d

// Declares the op's ConvParams as a function-local constant; returns its name.
std::string conv_params(OpEmitter& e) {
  const std::string format = e.attr<std::string>("data_format");
  SKIFF_CHECK(format == "NCHW", e.what(), ": data_format \"", format,
              "\" is not supported; only \"NCHW\"");
  const std::string name = e.unique("conv_params");
  e.line("static const k::ConvParams " + name + " = k::conv_params(" +
         OpEmitter::lit(e.attr<Ints>("strides")) + ", " + OpEmitter::lit(e.attr<Ints>("paddings")) +
         ", " + OpEmitter::lit(e.attr<Ints>("dilations")) + ", " +
         OpEmitter::lit(e.attr<int64_t>("groups")) + ");");
  return name;
}

void emit_conv2d(OpEmitter& e) {
  e.include("conv");
  const std::string params = conv_params(e);
  const std::string bias = e.has_in("Bias") ? "&" + e.in("Bias") : "nullptr";
  e.line("k::conv2d(" + e.in("Input") + ", " + e.in("Filter") + ", " + bias + ", " + params + ", " +
         OpEmitter::lit(e.attr_or<bool>("fuse_relu", false)) + ", " + e.out("Output") + ");");
}

void emit_conv2d_grad(OpEmitter& e) {
  e.include("conv");
  SKIFF_CHECK(!e.attr_or<bool>("fuse_relu", false), e.what(),
              ": conv2d with fuse_relu has no gradient");
  if (!e.has_out("Input@GRAD") && !e.has_out("Filter@GRAD") && !e.has_out("Bias@GRAD")) return;
  const std::string params = conv_params(e);
  e.line("k::conv2d_grad(" + e.in("Input") + ", " + e.in("Filter") + ", " + e.in("Output@GRAD") +
         ", " + params + ", " + e.out("Input@GRAD") + ", " + e.out("Filter@GRAD") + ", " +
         e.out("Bias@GRAD") + ");");
  if (e.has_out("Bias@GRAD") && e.has_in("Bias"))  // a [1, M, 1, 1] Bias
    e.line(e.out_ref("Bias@GRAD") + ".reshape(" + e.in("Bias") + ".shape());");
}

// Declares the op's Pool2dOptions as a function-local constant; returns its name.
std::string pool_options(OpEmitter& e) {
  const std::string name = e.unique("pool_options");
  e.line("static const k::Pool2dOptions " + name + " = k::pool2d_options(" +
         OpEmitter::lit(e.attr<std::string>("pooling_type")) + ", " +
         OpEmitter::lit(e.attr<Ints>("ksize")) + ", " + OpEmitter::lit(e.attr<Ints>("strides")) +
         ", " + OpEmitter::lit(e.attr<Ints>("paddings")) + ", " +
         OpEmitter::lit(e.attr<bool>("global_pooling")) + ", " +
         OpEmitter::lit(e.attr<bool>("adaptive")) + ", " +
         OpEmitter::lit(e.attr<bool>("exclusive")) + ", " +
         OpEmitter::lit(e.attr<bool>("ceil_mode")) + ");");
  return name;
}

void emit_pool2d(OpEmitter& e) {
  e.include("pool");
  const std::string options = pool_options(e);
  e.line("k::pool2d(" + e.in("X") + ", " + options + ", " + e.out("Out") + ", " + e.out("Mask") +
         ");");
}

void emit_pool2d_grad(OpEmitter& e) {
  e.include("pool");
  if (!e.has_out("X@GRAD")) return;
  const std::string options = pool_options(e);
  const std::string mask = e.has_in("Mask") ? "&" + e.in("Mask") : "nullptr";
  e.line("k::pool2d_grad(" + e.in("X") + ", " + e.in("Out@GRAD") + ", " + mask + ", " + options +
         ", " + e.out("X@GRAD") + ");");
}

// ---- reshape and views

void emit_reshape(OpEmitter& e) {
  e.include("reshape");
  const std::string spec = e.unique("reshape_spec");
  e.line("static const std::vector<int64_t> " + spec + " = " +
         OpEmitter::lit(e.attr<Ints>("shape")) + ";");
  e.line("k::reshape(" + e.in("X") + ", k::reshape_shape(" + e.in("X") + ".shape(), " + spec +
         "), " + e.out("Out") + ");");
}

// reshape_grad: Out@GRAD viewed with X's shape (the gradient of every view op).
void emit_reshape_grad(OpEmitter& e) {
  e.include("reshape");
  if (!e.has_out("X@GRAD")) return;
  e.line("k::reshape(" + e.in("Out@GRAD") + ", " + e.in("X") + ".shape(), " + e.out("X@GRAD") +
         ");");
}

void emit_flatten(OpEmitter& e) {
  e.include("reshape");
  e.include("shape_edit");
  e.line("k::reshape(" + e.in("X") + ", k::flatten_shape(" + e.in("X") + ".shape(), " +
         OpEmitter::lit(e.attr<int64_t>("start_axis")) + ", " +
         OpEmitter::lit(e.attr<int64_t>("stop_axis")) + "), " + e.out("Out") + ");");
}

template <bool kSqueeze>
void emit_squeeze(OpEmitter& e) {
  e.include("reshape");
  e.include("shape_edit");
  const std::string axes = e.unique(kSqueeze ? "squeeze_axes" : "unsqueeze_axes");
  e.line("static const std::vector<int64_t> " + axes + " = " +
         OpEmitter::lit(e.attr<Ints>("axes")) + ";");
  e.line("k::reshape(" + e.in("X") + (kSqueeze ? ", k::squeeze_shape(" : ", k::unsqueeze_shape(") +
         e.in("X") + ".shape(), " + axes + "), " + e.out("Out") + ");");
}

// ---- optimizer updates

void emit_sgd(OpEmitter& e) {
  e.include("optimizer");
  if (e.in_kind("Grad") == VarKind::kSelectedRows) {
    const std::string grad = e.in_rows("Grad");
    e.line("k::sgd_update_rows(" + e.in("Param") + ", " + grad + ".rows, " + grad + ".value, " +
           e.in("LearningRate") + ", " + e.out("ParamOut") + ");");
    return;
  }
  e.line("k::sgd_update(" + e.in("Param") + ", " + e.in("Grad") + ", " + e.in("LearningRate") +
         ", " + e.out("ParamOut") + ");");
}

void emit_momentum(OpEmitter& e) {
  e.include("optimizer");
  e.line("k::momentum_update(" + e.in("Param") + ", " + e.in("Grad") + ", " + e.in("Velocity") +
         ", " + e.in("LearningRate") + ", k::MomentumOptions{" +
         OpEmitter::lit(e.attr<double>("mu")) + ", " +
         OpEmitter::lit(e.attr<bool>("use_nesterov")) + "}, " + e.out("ParamOut") + ", " +
         e.out("VelocityOut") + ");");
}

void emit_adam(OpEmitter& e) {
  e.include("optimizer");
  const double decay = e.op().type == "adamw" ? e.attr<double>("coeff") : 0.0;
  const bool sparse = e.in_kind("Grad") == VarKind::kSelectedRows;
  e.line(std::string(sparse ? "k::adam_update_rows(" : "k::adam_update(") + e.in("Param") + ", " +
         (sparse ? e.in_rows("Grad") : e.in("Grad")) + ",");
  const bool amsgrad = e.attr<bool>("amsgrad");
  e.line("               k::AdamState{&" + e.in("Moment1") + ", &" + e.in("Moment2") + ", &" +
         e.in("Beta1Pow") + ", &" + e.in("Beta2Pow") + ", " +
         (amsgrad ? "&" + e.in("Moment2Max") : std::string("nullptr")) + "}, " +
         e.in("LearningRate") + ",");
  e.line("               k::AdamOptions{" + OpEmitter::lit(e.attr<double>("beta1")) + ", " +
         OpEmitter::lit(e.attr<double>("beta2")) + ", " +
         OpEmitter::lit(e.attr<double>("epsilon")) + ", " + OpEmitter::lit(decay) + ", " +
         OpEmitter::lit(e.attr<bool>("lazy_mode")) + ", " + OpEmitter::lit(amsgrad) + "},");
  e.line("               k::AdamOutputs{" + e.out("ParamOut") + ", " + e.out("Moment1Out") + ", " +
         e.out("Moment2Out") + ", " + e.out("Beta1PowOut") + ", " + e.out("Beta2PowOut") + ", " +
         (amsgrad ? e.out("Moment2MaxOut") : std::string("nullptr")) + "});");
}

// The further optimizers (kernels/cpu/optimizer_more.h): options and state as the
// kernels' aggregate structs, outputs in the ops' slot order.
void emit_adamax(OpEmitter& e) {
  e.include("optimizer_more");
  e.line("k::adamax_update(" + e.in("Param") + ", " + e.in("Grad") + ", k::AdamaxState{&" +
         e.in("Moment") + ", &" + e.in("InfNorm") + ", &" + e.in("Beta1Pow") + "}, " +
         e.in("LearningRate") + ",");
  e.line("                 k::AdamaxOptions{" + OpEmitter::lit(e.attr<double>("beta1")) + ", " +
         OpEmitter::lit(e.attr<double>("beta2")) + ", " +
         OpEmitter::lit(e.attr<double>("epsilon")) + "}, k::AdamaxOutputs{" + e.out("ParamOut") +
         ", " + e.out("MomentOut") + ", " + e.out("InfNormOut") + ", " + e.out("Beta1PowOut") +
         "});");
}

void emit_adadelta(OpEmitter& e) {
  e.include("optimizer_more");
  e.line("k::adadelta_update(" + e.in("Param") + ", " + e.in("Grad") + ", " +
         e.in("AvgSquaredGrad") + ", " + e.in("AvgSquaredUpdate") + ", " + e.in("LearningRate") +
         ",");
  e.line("                   k::AdadeltaOptions{" + OpEmitter::lit(e.attr<double>("rho")) + ", " +
         OpEmitter::lit(e.attr<double>("epsilon")) + "}, k::AdadeltaOutputs{" + e.out("ParamOut") +
         ", " + e.out("AvgSquaredGradOut") + ", " + e.out("AvgSquaredUpdateOut") + "});");
}

// nadam and radam: five state inputs (three per-step values, two moments), outputs alike.
void emit_nadam_or_radam(OpEmitter& e) {
  e.include("optimizer_more");
  const bool nadam = e.op().type == "nadam";
  const std::vector<const char*> state =
      nadam ? std::vector<const char*>{"MomentumDecayPow", "Beta2Pow", "MuProduct", "Moment1",
                                       "Moment2"}
            : std::vector<const char*>{"Beta1Pow", "Beta2Pow", "Rho", "Moment1", "Moment2"};
  std::string ins, outs = e.out("ParamOut");
  for (const char* slot : state) {
    ins += std::string(ins.empty() ? "&" : ", &") + e.in(slot);
    outs += ", " + e.out((std::string(slot) + "Out").c_str());
  }
  const std::string kind = nadam ? "Nadam" : "Radam";
  std::string opts = OpEmitter::lit(e.attr<double>("beta1")) + ", " +
                     OpEmitter::lit(e.attr<double>("beta2")) + ", " +
                     OpEmitter::lit(e.attr<double>("epsilon"));
  if (nadam) opts += ", " + OpEmitter::lit(e.attr<double>("momentum_decay"));
  e.line(std::string(nadam ? "k::nadam_update(" : "k::radam_update(") + e.in("Param") + ", " +
         e.in("Grad") + ", k::" + kind + "State{" + ins + "},");
  e.line("                " + e.in("LearningRate") + ", k::" + kind + "Options{" + opts +
         "}, k::" + kind + "Outputs{" + outs + "});");
}

void emit_lamb(OpEmitter& e) {
  e.include("optimizer_more");
  e.line("k::lamb_update(" + e.in("Param") + ", " + e.in("Grad") + ", k::LambState{&" +
         e.in("Moment1") + ", &" + e.in("Moment2") + ", &" + e.in("Beta1Pow") + ", &" +
         e.in("Beta2Pow") + "}, " + e.in("LearningRate") + ",");
  e.line("               k::LambOptions{" + OpEmitter::lit(e.attr<double>("beta1")) + ", " +
         OpEmitter::lit(e.attr<double>("beta2")) + ", " +
         OpEmitter::lit(e.attr<double>("epsilon")) + ", " +
         OpEmitter::lit(e.attr<double>("weight_decay")) + ", " +
         OpEmitter::lit(e.attr<bool>("always_adapt")) + "},");
  e.line("               k::LambOutputs{" + e.out("ParamOut") + ", " + e.out("Moment1Out") + ", " +
         e.out("Moment2Out") + ", " + e.out("Beta1PowOut") + ", " + e.out("Beta2PowOut") + "});");
}

// ---- clipping

// Every gradient (dense or selected rows) scaled in place by one factor from their joint
// norm: k::ClippedGradient{tensor, tensor_out, rows, rows_out} per gradient.
void emit_clip_by_global_norm(OpEmitter& e) {
  e.include("clip_grad");
  SKIFF_CHECK(e.op().output("Out").size() == static_cast<size_t>(e.in_count("X")), e.what(),
              ": X and Out differ in length");
  e.line("k::clip_by_global_norm({");
  for (int i = 0; i < e.in_count("X"); ++i) {
    if (!e.has_in("X", i)) continue;
    if (e.in_kind("X", i) == VarKind::kSelectedRows) {
      e.line("    k::ClippedGradient{nullptr, nullptr, &" + e.in_rows("X", i) + ", " +
             e.out_rows("Out", i) + "},");
    } else {
      e.line("    k::ClippedGradient{&" + e.in("X", i) + ", " + e.out("Out", i) +
             ", nullptr, nullptr},");
    }
  }
  e.line("}, " + OpEmitter::lit(e.attr<double>("clip_norm")) + ", " + e.out("GlobalNorm") + ");");
}

}  // namespace

void add_nn_rules(RuleTable& t) {
  t["softmax"] = emit_softmax;
  t["softmax_grad"] = emit_softmax_grad;
  t["softmax_with_cross_entropy"] = emit_softmax_with_cross_entropy;
  t["softmax_with_cross_entropy_grad"] = emit_softmax_with_cross_entropy_grad;
  t["conv2d"] = emit_conv2d;
  t["conv2d_grad"] = emit_conv2d_grad;
  t["pool2d"] = emit_pool2d;
  t["pool2d_grad"] = emit_pool2d_grad;
  t["reshape"] = emit_reshape;
  t["reshape_grad"] = emit_reshape_grad;
  t["flatten"] = emit_flatten;
  t["squeeze"] = emit_squeeze<true>;
  t["unsqueeze"] = emit_squeeze<false>;
  t["sigmoid_cross_entropy_with_logits"] = emit_sigmoid_cross_entropy_with_logits;
  t["sigmoid_cross_entropy_with_logits_grad"] = emit_sigmoid_cross_entropy_with_logits_grad;
  t["embedding"] = emit_embedding;
  t["embedding_grad"] = emit_embedding_grad;
  t["clip_by_global_norm"] = emit_clip_by_global_norm;
  t["sgd"] = emit_sgd;
  t["momentum"] = emit_momentum;
  t["adam"] = emit_adam;
  t["adamw"] = emit_adam;
  t["adamax"] = emit_adamax;
  t["adadelta"] = emit_adadelta;
  t["nadam"] = emit_nadam_or_radam;
  t["radam"] = emit_nadam_or_radam;
  t["lamb"] = emit_lamb;
}

}  // namespace skiff::codegen
