// The check of the codegen training tests: a training program stepped by the interpreter
// and by its compiled library gives the same losses and parameters.
//
//   expect_same_training(w1_training_model(DType::kF64, 10), {}, 0.0);
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tests/codegen/training_programs.h"
#include "tests/testing/op_test.h"

namespace skiff::testing {

// Trains `t` for `steps` steps in the interpreter and through the compiled library, on the
// same batch each step, and compares each step's loss and every persistable variable
// afterwards (within `tol`; 0: identical); also checks that the first trainable parameter
// changed.
inline void expect_same_training(const TrainingModel& t, const std::map<std::string, Tensor>& feeds,
                                 double tol, int steps = 4) {
  // The interpreter.
  Scope scope;
  for (const auto& [name, value] : t.model.params) scope.var(name)->set(value.clone());
  Executor exe;
  auto prepared = exe.prepare(t.model.program, {t.loss});
  std::vector<double> losses;
  for (int s = 0; s < steps; ++s) {
    for (const auto& [name, value] : feeds) feed(t.model.program, &scope, name, value);
    exe.run(*prepared, &scope);
    losses.push_back(fetch(scope, t.loss).item<double>());
  }

  // The compiled step.
  const std::string dir = scratch_dir(dtype_name(t.model.params[0].second.dtype()));
  codegen::CompileOptions o;
  o.out_dir = dir + "/out";
  o.shared_library = true;
  o.jobs = 2;
  const codegen::CompiledModel c = codegen::compile_model_file(save_model(t.model, dir), o);
  std::vector<skiff_tensor> inputs;
  for (const std::string& name : c.generated.inputs) inputs.push_back(c_tensor(feeds.at(name)));
  ASSERT_EQ(inputs.size(), feeds.size());
  ModelLibrary lib(c.library);
  skiff_model* model = lib.create(nullptr);
  ASSERT_TRUE(model) << lib.last_error();
  for (int s = 0; s < steps; ++s) {
    skiff_tensor loss;
    ASSERT_EQ(lib.run(model, inputs.data(), &loss), 0) << lib.last_error();
    EXPECT_NEAR(from_c_tensor(loss).item<double>(), losses[s], tol * (1 + std::fabs(losses[s])))
        << "step " << s;
  }
  for (const auto& [name, initial] : t.model.params) {
    skiff_tensor value;
    ASSERT_EQ(lib.variable(model, name.c_str(), &value), 0) << lib.last_error();
    const Tensor got = from_c_tensor(value);
    const Tensor& want = *scope.find_var(name)->tensor();
    std::string why;
    EXPECT_TRUE(all_close(got, want, tol, tol, &why)) << name << ": " << why;
  }
  // The parameters did train.
  const std::string& trained = t.trainable[0];
  skiff_tensor w;
  ASSERT_EQ(lib.variable(model, trained.c_str(), &w), 0);
  for (const auto& [name, initial] : t.model.params) {
    std::string unused;
    if (name == trained) {
      EXPECT_FALSE(all_close(from_c_tensor(w), initial, 0, 0, &unused));
    }
  }
  lib.destroy(model);
}

}  // namespace skiff::testing
