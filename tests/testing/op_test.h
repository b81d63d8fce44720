// The shared op-test harness. Every op test goes through it: run the op on given
// inputs and compare with reference values, and check gradients from
// append_backward against central finite differences (in float64).
//
//   OpTest t("tanh");
//   t.input("X", random_tensor({3, 4}, DType::kF64, /*seed=*/1));
//   t.check_output("Out", expected);        // reference computed in the test
//   t.check_grad({"X"});                    // d<w, Out>/dX vs finite differences
//
// check_output also runs the case with its batch emptied (the first input's dim 0, and
// every input's dim 0 of the same size, set to 0): the op must answer, with outputs or a
// skiff::Error naming it, never crash, and the interpreter and eager mode must agree. (The
// values of empty results, such as the neutral values of reductions over an empty dim, are
// checked by each op's own tests.)
#pragma once

#include <complex>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/core/tensor.h"
#include "tests/testing/error_of.h"

namespace skiff::testing {

// Uniform values in [lo, hi), reproducible by seed; integer dtypes get integers.
Tensor random_tensor(const Shape& shape, DType dtype, uint64_t seed, double lo = -1.0,
                     double hi = 1.0);
// `t` converted to float64 (any dtype).
Tensor to_f64(const Tensor& t);
// `t` (float64) converted to `dtype`.
Tensor from_f64(const Tensor& t, DType dtype);
// `t` converted to complex128 (a real tensor gets zero imaginary parts).
Tensor to_c128(const Tensor& t);
// A complex64 or complex128 tensor of `shape` holding `v` (row-major).
Tensor complex_values(const Shape& shape, const std::vector<std::complex<double>>& v, DType dtype);
// True when shapes match and |a - b| <= atol + rtol * |b| elementwise; on failure
// `why` names the first bad element.
bool all_close(const Tensor& a, const Tensor& b, double atol, double rtol, std::string* why);

class OpTest;
// Runs the op expecting a skiff::Error whose message contains every one of `parts`.
void expect_error(const OpTest& test, const std::vector<std::string>& parts);

class OpTest {
 public:
  explicit OpTest(std::string type) : type_(std::move(type)) {}

  // One tensor in slot `slot` (call again with the same slot to add more).
  OpTest& input(const std::string& slot, const Tensor& value);
  // Declares an output slot with `count` variables (default: one "Out").
  OpTest& output(const std::string& slot, int count = 1);
  OpTest& attr(const std::string& name, Attr value);

  // Builds a one-op program, runs it, returns every output tensor by slot.
  std::map<std::string, std::vector<Tensor>> run() const;
  // Runs and checks output `slot`[i] against `expected` (EXPECT-style failure).
  void check_output(const std::string& slot, const Tensor& expected, double atol = 1e-6,
                    double rtol = 1e-5, int i = 0) const;
  // Checks the gradient of <w, out_slot[0]> (w a fixed random cotangent) with respect
  // to the floating inputs of `wrt` slots: append_backward's result vs. central
  // differences. Inputs are converted to float64 first.
  void check_grad(const std::vector<std::string>& wrt, const std::string& out_slot = "Out",
                  double eps = 1e-6, double atol = 1e-6, double rtol = 1e-5) const;
  // For a low-precision dtype (bfloat16): the gradients append_backward computes with the
  // inputs as given, in their dtype, vs. the float64 gradients of the same values (inputs
  // and cotangent widened exactly), within atol + rtol * |float64 gradient|. check_grad
  // checks the float64 gradients themselves against finite differences.
  void check_grad_in_dtype(const std::vector<std::string>& wrt, double atol, double rtol,
                           const std::string& out_slot = "Out") const;

  // Input values by slot, in the order given.
  using Inputs = std::vector<std::pair<std::string, std::vector<Tensor>>>;

 private:
  // The gradients of <cotangent, out_slot[0]> by the floating inputs of `wrt` slots, keyed
  // by input variable name; `params` gets those names.
  std::map<std::string, Tensor> analytic_grads(const Inputs& inputs,
                                               const std::vector<std::string>& wrt,
                                               const std::string& out_slot, const Tensor& cotangent,
                                               std::vector<std::string>* params) const;
  // run(), also recording the case for its compiled run (compiled_cases.h) with the
  // tolerance of the comparison, atol and rtol (negative: not a checked case, not recorded).
  std::map<std::string, std::vector<Tensor>> run_case(double atol, double rtol) const;
  // Runs the case with its batch emptied (see the top of this file).
  void check_empty_batch() const;
  // Runs the case eagerly and compares with the interpreter's outputs `want`.
  void check_eager(const std::map<std::string, std::vector<Tensor>>& want, double atol,
                   double rtol) const;
  // The value given for input variable `var` (named as the one-op program names it).
  const Tensor& input_value(const std::string& var) const;

  std::string type_;
  Inputs inputs_;
  std::vector<std::pair<std::string, int>> outputs_;
  AttrList attrs_;
};

}  // namespace skiff::testing
