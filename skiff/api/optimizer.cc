#include "skiff/api/optimizer.h"

#include <map>

#include "skiff/api/builder.h"

namespace skiff {

namespace {

bool takes_sparse_gradients(const std::string& type) {
  return type == "sgd" || type == "adam" || type == "adamw";
}

// Builds the state variables and ops of one append_optimizer call.
class OptimizerAppender {
 public:
  OptimizerAppender(Program& main, Program& startup, const OptimizerConfig& config)
      : main_(&main), startup_(&startup), config_(config), b_(&main) {}

  // Throws unless `param` is a declared floating parameter of known shape and `grad`
  // a declared gradient this optimizer can apply.
  void check(const std::string& param, const std::string& grad) const {
    const VarDesc* p = main_->global_block().find_local_var(param);
    SKIFF_CHECK(p, "append_optimizer: parameter '", param, "' is not declared in block 0");
    SKIFF_CHECK(is_floating(p->dtype) && p->shape.known(), "append_optimizer: parameter '", param,
                "' must be float32/float64 with a known shape, got ", dtype_name(p->dtype),
                p->shape);
    const VarDesc* g = main_->find_var(0, grad);
    SKIFF_CHECK(g, "append_optimizer: gradient '", grad, "' of '", param,
                "' is not declared in block 0 (was append_backward run?)");
    const bool densified = config_.weight_decay > 0 && config_.type != "adamw";
    SKIFF_CHECK(
        g->kind == VarKind::kDenseTensor || (g->kind == VarKind::kSelectedRows &&
                                             (takes_sparse_gradients(config_.type) || densified)),
        "append_optimizer: gradient '", grad, "' is ", var_kind_name(g->kind),
        "; only sgd, adam and adamw update sparse gradients, not ", config_.type);
  }

  // One clip_by_global_norm op scaling every gradient in place.
  void clip(const std::vector<std::pair<std::string, std::string>>& param_grads) {
    std::vector<std::string> grads;
    grads.reserve(param_grads.size());
    for (const auto& pg : param_grads) grads.push_back(pg.second);
    b_.op("clip_by_global_norm", {{"X", grads}}, {{"Out", grads}},
          {{"clip_norm", config_.clip_global_norm}});
  }

  // The gradient with the L2 term coeff * param added (a new variable), or `grad`.
  std::string regularize(const std::string& param, const std::string& grad) {
    if (config_.weight_decay <= 0 || config_.type == "adamw") return grad;
    std::string decay = b_.unique_name(param + "@L2_DECAY");
    b_.op("scale", {{"X", {param}}}, {{"Out", {decay}}}, {{"scale", config_.weight_decay}});
    std::string out = b_.unique_name(grad + "@REGULARIZED");
    b_.op("sum", {{"X", {grad, decay}}}, {{"Out", {out}}});
    return out;
  }

  // Declares the state of `param` and appends its update op (after check()).
  void append(const std::string& param, const std::string& grad) {
    const VarDesc* p = main_->global_block().find_local_var(param);
    const DType dtype = p->dtype;
    const Shape shape = p->shape;
    const std::string lr = learning_rate(dtype);
    const std::string& type = config_.type;
    if (type == "sgd") {
      b_.op("sgd", {{"Param", {param}}, {"Grad", {grad}}, {"LearningRate", {lr}}},
            {{"ParamOut", {param}}});
    } else if (type == "momentum") {
      std::string velocity = state(param + "_velocity", dtype, shape, 0.0);
      b_.op(
          "momentum",
          {{"Param", {param}}, {"Grad", {grad}}, {"Velocity", {velocity}}, {"LearningRate", {lr}}},
          {{"ParamOut", {param}}, {"VelocityOut", {velocity}}},
          {{"mu", config_.momentum}, {"use_nesterov", config_.use_nesterov}});
    } else if (type == "adam" || type == "adamw") {
      append_adam(param, grad, lr, dtype, shape);
    } else if (type == "rmsprop") {
      append_rmsprop(param, grad, lr, dtype, shape);
    } else {
      std::string moment =
          state(param + "_moment", dtype, shape, config_.adagrad.initial_accumulator_value);
      b_.op("adagrad",
            {{"Param", {param}}, {"Grad", {grad}}, {"Moment", {moment}}, {"LearningRate", {lr}}},
            {{"ParamOut", {param}}, {"MomentOut", {moment}}},
            {{"epsilon", config_.adagrad.epsilon}});
    }
  }

  // Advances the schedule's step counter (after every update of the step).
  void finish() {
    if (!step_counter_.empty())
      b_.op("increment", {{"X", {step_counter_}}}, {{"Out", {step_counter_}}}, {{"step", 1.0}});
  }

 private:
  void append_adam(const std::string& param, const std::string& grad, const std::string& lr,
                   DType dtype, const Shape& shape) {
    std::string m1 = state(param + "_moment1", dtype, shape, 0.0);
    std::string m2 = state(param + "_moment2", dtype, shape, 0.0);
    std::string b1p = state(param + "_beta1_pow", dtype, Shape{1}, config_.beta1);
    std::string b2p = state(param + "_beta2_pow", dtype, Shape{1}, config_.beta2);
    AttrList attrs = {{"beta1", config_.beta1},
                      {"beta2", config_.beta2},
                      {"epsilon", config_.epsilon},
                      {"lazy_mode", config_.lazy_mode}};
    if (config_.type == "adamw") attrs.push_back({"coeff", config_.weight_decay});
    b_.op(config_.type,
          {{"Param", {param}},
           {"Grad", {grad}},
           {"Moment1", {m1}},
           {"Moment2", {m2}},
           {"Beta1Pow", {b1p}},
           {"Beta2Pow", {b2p}},
           {"LearningRate", {lr}}},
          {{"ParamOut", {param}},
           {"Moment1Out", {m1}},
           {"Moment2Out", {m2}},
           {"Beta1PowOut", {b1p}},
           {"Beta2PowOut", {b2p}}},
          attrs);
  }

  void append_rmsprop(const std::string& param, const std::string& grad, const std::string& lr,
                      DType dtype, const Shape& shape) {
    const RmspropConfig& c = config_.rmsprop;
    std::string mean_square = state(param + "_mean_square", dtype, shape, 0.0);
    std::string moment = state(param + "_moment", dtype, shape, 0.0);
    std::vector<Slot> inputs = {{"Param", {param}},
                                {"Grad", {grad}},
                                {"MeanSquare", {mean_square}},
                                {"Moment", {moment}},
                                {"LearningRate", {lr}}};
    std::vector<Slot> outputs = {
        {"ParamOut", {param}}, {"MeanSquareOut", {mean_square}}, {"MomentOut", {moment}}};
    if (c.centered) {
      std::string mean_grad = state(param + "_mean_grad", dtype, shape, 0.0);
      inputs.push_back({"MeanGrad", {mean_grad}});
      outputs.push_back({"MeanGradOut", {mean_grad}});
    }
    b_.op("rmsprop", inputs, outputs,
          {{"decay", c.rho},
           {"epsilon", c.epsilon},
           {"momentum", c.momentum},
           {"centered", c.centered}});
  }

  // "<base>_<n>" with the smallest n that neither program uses yet.
  std::string fresh_name(const std::string& base) const {
    auto taken = [&](const std::string& n) {
      for (const Program* p : {main_, startup_}) {
        for (const Block& b : p->blocks()) {
          if (b.find_local_var(n)) return true;
        }
      }
      return false;
    };
    for (int n = 0;; ++n) {
      std::string name = base + "_" + std::to_string(n);
      if (!taken(name)) return name;
    }
  }

  // A persistable variable in both programs, set to `value` by the startup program.
  std::string state(const std::string& base, DType dtype, const Shape& shape, double value) {
    std::string name = fresh_name(base);
    BlockBuilder(main_).persistable(name, dtype, shape);
    BlockBuilder init(startup_);
    init.persistable(name, dtype, shape);
    init.op("fill_constant", {}, {{"Out", {name}}},
            {{"shape", shape.vec()}, {"value", value}, {"dtype", std::string(dtype_name(dtype))}});
    return name;
  }

  // The learning-rate variable for parameters of `dtype` (one per dtype); with a
  // schedule, the ops computing it from the step counter come right before its
  // first use.
  std::string learning_rate(DType dtype) {
    auto it = learning_rates_.find(dtype);
    if (it != learning_rates_.end()) return it->second;
    const LrSchedule& s = config_.lr_schedule;
    const double initial = s.warmup_steps > 0 ? s.warmup_start_lr : config_.learning_rate;
    std::string name = state("learning_rate", dtype, Shape{1}, initial);
    if (s.type != "constant" || s.warmup_steps > 0) append_schedule(name, dtype);
    learning_rates_[dtype] = name;
    return name;
  }

  // Ops computing `lr` (of `dtype`) from the step counter.
  void append_schedule(const std::string& lr, DType dtype) {
    const LrSchedule& s = config_.lr_schedule;
    if (step_counter_.empty()) step_counter_ = state("learning_rate_step", DType::kI64, {1}, 0.0);
    const std::string dtype_attr = dtype_name(dtype);
    const bool warmup = s.warmup_steps > 0;
    // Without a warmup the schedule writes the learning rate itself.
    std::string scheduled = warmup ? b_.unique_name("scheduled_learning_rate") : lr;
    if (s.type == "step_decay") {
      b_.op("lr_step_decay", {{"Step", {step_counter_}}}, {{"Out", {scheduled}}},
            {{"learning_rate", config_.learning_rate},
             {"step_size", s.step_size},
             {"gamma", s.gamma},
             {"step_offset", s.warmup_steps},
             {"dtype", dtype_attr}});
    } else if (s.type == "cosine_annealing") {
      b_.op("lr_cosine_annealing", {{"Step", {step_counter_}}}, {{"Out", {scheduled}}},
            {{"learning_rate", config_.learning_rate},
             {"T_max", s.t_max},
             {"eta_min", s.eta_min},
             {"step_offset", s.warmup_steps},
             {"dtype", dtype_attr}});
    } else if (s.type == "exponential") {
      b_.op("lr_exponential_decay", {{"Step", {step_counter_}}}, {{"Out", {scheduled}}},
            {{"learning_rate", config_.learning_rate},
             {"gamma", s.gamma},
             {"step_offset", s.warmup_steps},
             {"dtype", dtype_attr}});
    } else if (s.type == "piecewise") {
      b_.op("lr_piecewise_decay", {{"Step", {step_counter_}}}, {{"Out", {scheduled}}},
            {{"boundaries", s.boundaries},
             {"values", s.values},
             {"step_offset", s.warmup_steps},
             {"dtype", dtype_attr}});
    } else if (s.type == "multistep") {
      b_.op("lr_multistep_decay", {{"Step", {step_counter_}}}, {{"Out", {scheduled}}},
            {{"learning_rate", config_.learning_rate},
             {"milestones", s.milestones},
             {"gamma", s.gamma},
             {"step_offset", s.warmup_steps},
             {"dtype", dtype_attr}});
    } else {
      b_.op("fill_constant", {}, {{"Out", {scheduled}}},
            {{"shape", std::vector<int64_t>{1}},
             {"value", config_.learning_rate},
             {"dtype", dtype_attr}});
    }
    if (!warmup) return;
    b_.op("lr_linear_warmup", {{"Step", {step_counter_}}, {"LearningRate", {scheduled}}},
          {{"Out", {lr}}},
          {{"warmup_steps", s.warmup_steps},
           {"start_lr", s.warmup_start_lr},
           {"end_lr", s.warmup_end_lr.value_or(config_.learning_rate)}});
  }

  Program* main_;
  Program* startup_;
  const OptimizerConfig& config_;
  BlockBuilder b_;
  std::map<DType, std::string> learning_rates_;
  std::string step_counter_;
};

void check_schedule(const LrSchedule& s) {
  SKIFF_CHECK(s.type == "constant" || s.type == "step_decay" || s.type == "cosine_annealing" ||
                  s.type == "exponential" || s.type == "piecewise" || s.type == "multistep",
              "append_optimizer: unknown learning-rate schedule '", s.type,
              "' (known: constant, step_decay, cosine_annealing, exponential, piecewise, "
              "multistep)");
  if (s.type == "piecewise") {
    SKIFF_CHECK(s.values.size() == s.boundaries.size() + 1, "append_optimizer: piecewise needs ",
                s.boundaries.size() + 1, " values for ", s.boundaries.size(), " boundaries, got ",
                s.values.size());
  }
  if (s.type == "step_decay") {
    SKIFF_CHECK(s.step_size > 0, "append_optimizer: step_decay needs step_size > 0, got ",
                s.step_size);
  }
  if (s.type == "cosine_annealing") {
    SKIFF_CHECK(s.t_max > 0, "append_optimizer: cosine_annealing needs t_max > 0, got ", s.t_max);
  }
  SKIFF_CHECK(s.warmup_steps >= 0, "append_optimizer: warmup_steps must be >= 0, got ",
              s.warmup_steps);
}

void check_config(const OptimizerConfig& c) {
  const std::string& t = c.type;
  SKIFF_CHECK(t == "sgd" || t == "momentum" || t == "adam" || t == "adamw" || t == "rmsprop" ||
                  t == "adagrad",
              "append_optimizer: unknown optimizer '", t,
              "' (known: sgd, momentum, adam, adamw, rmsprop, adagrad)");
  SKIFF_CHECK(c.learning_rate >= 0, "append_optimizer: learning_rate must be >= 0, got ",
              c.learning_rate);
  SKIFF_CHECK(c.weight_decay >= 0, "append_optimizer: weight_decay must be >= 0, got ",
              c.weight_decay);
  SKIFF_CHECK(c.clip_global_norm >= 0, "append_optimizer: clip_global_norm must be >= 0, got ",
              c.clip_global_norm);
  if (t == "momentum") {
    SKIFF_CHECK(c.momentum >= 0, "append_optimizer: momentum must be >= 0, got ", c.momentum);
  }
  if (t == "adam" || t == "adamw") {
    SKIFF_CHECK(c.beta1 >= 0 && c.beta1 < 1 && c.beta2 >= 0 && c.beta2 < 1,
                "append_optimizer: adam needs 0 <= beta1, beta2 < 1, got beta1 = ", c.beta1,
                ", beta2 = ", c.beta2);
    SKIFF_CHECK(c.epsilon >= 0, "append_optimizer: epsilon must be >= 0, got ", c.epsilon);
  }
  if (t == "rmsprop") {
    const RmspropConfig& r = c.rmsprop;
    SKIFF_CHECK(r.rho >= 0 && r.rho < 1 && r.epsilon >= 0 && r.momentum >= 0,
                "append_optimizer: rmsprop needs 0 <= rho < 1, epsilon >= 0 and momentum >= 0, "
                "got rho = ",
                r.rho, ", epsilon = ", r.epsilon, ", momentum = ", r.momentum);
  }
  if (t == "adagrad") {
    SKIFF_CHECK(c.adagrad.epsilon >= 0 && c.adagrad.initial_accumulator_value >= 0,
                "append_optimizer: adagrad needs epsilon >= 0 and initial_accumulator_value "
                ">= 0, got ",
                c.adagrad.epsilon, " and ", c.adagrad.initial_accumulator_value);
  }
  check_schedule(c.lr_schedule);
}

}  // namespace

void append_optimizer(Program& main, Program& startup,
                      const std::vector<std::pair<std::string, std::string>>& param_grads,
                      const OptimizerConfig& config) {
  check_config(config);
  SKIFF_CHECK(!param_grads.empty(),
              "append_optimizer: no (parameter, gradient) pairs: the loss depends on no "
              "trainable parameter");
  OptimizerAppender appender(main, startup, config);
  for (const auto& [param, grad] : param_grads) appender.check(param, grad);
  // PaddlePaddle's order: clip the raw gradients, then add the regularization terms.
  if (config.clip_global_norm > 0) appender.clip(param_grads);
  for (const auto& [param, grad] : param_grads)
    appender.append(param, appender.regularize(param, grad));
  appender.finish();
}

}  // namespace skiff
