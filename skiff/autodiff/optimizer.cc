#include "skiff/autodiff/optimizer.h"

#include <map>

#include "skiff/api/builder.h"

namespace skiff {

namespace {

// Builds the state variables and update ops of one append_optimizer call.
class OptimizerAppender {
 public:
  OptimizerAppender(Program& main, Program& startup, const OptimizerConfig& config)
      : main_(&main), startup_(&startup), config_(config) {}

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
    SKIFF_CHECK(g->kind == VarKind::kDenseTensor || config_.type == "sgd",
                "append_optimizer: gradient '", grad, "' is sparse (", var_kind_name(g->kind),
                "); only sgd updates sparse gradients, not ", config_.type);
  }

  // Declares the state of `param` and appends its update op (after check()).
  void append(const std::string& param, const std::string& grad) {
    const VarDesc* p = main_->global_block().find_local_var(param);
    const DType dtype = p->dtype;
    const Shape shape = p->shape;
    const std::string lr = learning_rate(dtype);
    BlockBuilder b(main_);
    if (config_.type == "sgd") {
      b.op("sgd", {{"Param", {param}}, {"Grad", {grad}}, {"LearningRate", {lr}}},
           {{"ParamOut", {param}}});
    } else if (config_.type == "momentum") {
      std::string velocity = state(param + "_velocity", dtype, shape, 0.0);
      b.op("momentum",
           {{"Param", {param}}, {"Grad", {grad}}, {"Velocity", {velocity}}, {"LearningRate", {lr}}},
           {{"ParamOut", {param}}, {"VelocityOut", {velocity}}},
           {{"mu", config_.momentum}, {"use_nesterov", config_.use_nesterov}});
    } else {
      std::string m1 = state(param + "_moment1", dtype, shape, 0.0);
      std::string m2 = state(param + "_moment2", dtype, shape, 0.0);
      std::string b1p = state(param + "_beta1_pow", dtype, Shape{1}, config_.beta1);
      std::string b2p = state(param + "_beta2_pow", dtype, Shape{1}, config_.beta2);
      b.op("adam",
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
           {{"beta1", config_.beta1}, {"beta2", config_.beta2}, {"epsilon", config_.epsilon}});
    }
  }

 private:
  // "<base>_<n>" with the smallest n that neither program uses yet.
  std::string fresh_name(const std::string& base) const {
    auto taken = [&](const std::string& n) {
      for (const Program* p : {main_, startup_})
        for (const Block& b : p->blocks())
          if (b.find_local_var(n)) return true;
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

  // The learning-rate variable for parameters of `dtype` (one per dtype).
  std::string learning_rate(DType dtype) {
    auto it = learning_rates_.find(dtype);
    if (it != learning_rates_.end()) return it->second;
    std::string name = state("learning_rate", dtype, Shape{1}, config_.learning_rate);
    learning_rates_[dtype] = name;
    return name;
  }

  Program* main_;
  Program* startup_;
  const OptimizerConfig& config_;
  std::map<DType, std::string> learning_rates_;
};

void check_config(const OptimizerConfig& c) {
  SKIFF_CHECK(c.type == "sgd" || c.type == "momentum" || c.type == "adam",
              "append_optimizer: unknown optimizer '", c.type, "' (known: sgd, momentum, adam)");
  SKIFF_CHECK(c.learning_rate >= 0, "append_optimizer: learning_rate must be >= 0, got ",
              c.learning_rate);
  if (c.type == "momentum") {
    SKIFF_CHECK(c.momentum >= 0, "append_optimizer: momentum must be >= 0, got ", c.momentum);
  }
  if (c.type == "adam") {
    SKIFF_CHECK(c.beta1 >= 0 && c.beta1 < 1 && c.beta2 >= 0 && c.beta2 < 1,
                "append_optimizer: adam needs 0 <= beta1, beta2 < 1, got beta1 = ", c.beta1,
                ", beta2 = ", c.beta2);
    SKIFF_CHECK(c.epsilon >= 0, "append_optimizer: epsilon must be >= 0, got ", c.epsilon);
  }
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
  for (const auto& [param, grad] : param_grads) appender.append(param, grad);
}

}  // namespace skiff
