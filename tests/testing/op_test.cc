#include "tests/testing/op_test.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>

#include "skiff/autodiff/backward.h"
#include "skiff/eager/op_call.h"
#include "skiff/kernels/cpu/bf16_convert.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/compiled_cases.h"

namespace skiff::testing {

Tensor random_tensor(const Shape& shape, DType dtype, uint64_t seed, double lo, double hi) {
  if (dtype == DType::kBF16)
    return from_f64(random_tensor(shape, DType::kF64, seed, lo, hi), dtype);
  if (is_complex(dtype)) {  // real and imaginary parts uniform in [lo, hi)
    const Tensor re = random_tensor(shape, DType::kF64, seed, lo, hi);
    const Tensor im = random_tensor(shape, DType::kF64, seed + 0x9e3779b9, lo, hi);
    Tensor t = Tensor::empty(shape, dtype);
    SKIFF_DISPATCH_COMPLEX(dtype, T, {
      using R = typename T::value_type;
      for (int64_t i = 0; i < t.numel(); ++i)
        t.data<T>()[i] =
            T(static_cast<R>(re.data<double>()[i]), static_cast<R>(im.data<double>()[i]));
    });
    return t;
  }
  std::mt19937_64 gen(seed);
  Tensor t = Tensor::empty(shape, dtype);
  SKIFF_DISPATCH_ALL(dtype, T, {
    T* p = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      double u = lo + (hi - lo) * (static_cast<double>(gen() >> 11) * 0x1.0p-53);
      if constexpr (std::is_floating_point_v<T>) {
        p[i] = static_cast<T>(u);
      } else {
        p[i] = static_cast<T>(std::floor(u));
      }
    }
  });
  return t;
}

Tensor to_c128(const Tensor& t) {
  if (!is_complex(t.dtype())) {
    const Tensor re = to_f64(t);
    Tensor out = Tensor::empty(t.shape(), DType::kC128);
    for (int64_t i = 0; i < t.numel(); ++i)
      out.data<std::complex<double>>()[i] = std::complex<double>(re.data<double>()[i], 0);
    return out;
  }
  Tensor out = Tensor::empty(t.shape(), DType::kC128);
  SKIFF_DISPATCH_COMPLEX(t.dtype(), T, {
    for (int64_t i = 0; i < t.numel(); ++i)
      out.data<std::complex<double>>()[i] = std::complex<double>(t.data<T>()[i]);
  });
  return out;
}

Tensor complex_values(const Shape& shape, const std::vector<std::complex<double>>& v, DType dtype) {
  SKIFF_CHECK(static_cast<int64_t>(v.size()) == shape.numel(), "complex_values: ", v.size(),
              " values for shape ", shape);
  Tensor out = Tensor::empty(shape, dtype);
  SKIFF_DISPATCH_COMPLEX(dtype, T, {
    for (size_t i = 0; i < v.size(); ++i) out.data<T>()[i] = T(v[i]);
  });
  return out;
}

namespace {

// The values of t as float64: a complex tensor as its 2 * numel parts (real, imaginary).
Tensor as_doubles(const Tensor& t) {
  if (!is_complex(t.dtype())) return to_f64(t);
  const Tensor c = to_c128(t);
  Tensor out = Tensor::empty({2 * t.numel()}, DType::kF64);
  std::memcpy(out.raw_data(), c.raw_data(), c.nbytes());
  return out;
}

}  // namespace

Tensor to_f64(const Tensor& t) {
  Tensor out = Tensor::empty(t.shape(), DType::kF64);
  double* o = out.data<double>();
  if (t.dtype() == DType::kBF16) {
    kernels::bf16_to_double(t.data<bfloat16>(), o, t.numel());
    return out;
  }
  SKIFF_DISPATCH_ALL(t.dtype(), T, {
    const T* p = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) o[i] = static_cast<double>(p[i]);
  });
  return out;
}

Tensor from_f64(const Tensor& t, DType dtype) {
  Tensor out = Tensor::empty(t.shape(), dtype);
  const double* p = t.data<double>();
  if (dtype == DType::kBF16) {
    kernels::double_to_bf16(p, out.data<bfloat16>(), t.numel());
    return out;
  }
  SKIFF_DISPATCH_ALL(dtype, T, {
    T* o = out.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) o[i] = static_cast<T>(p[i]);
  });
  return out;
}

bool all_close(const Tensor& a, const Tensor& b, double atol, double rtol, std::string* why) {
  if (a.shape() != b.shape()) {
    *why = "shape " + a.shape().str() + " != expected " + b.shape().str();
    return false;
  }
  if (is_complex(a.dtype()) != is_complex(b.dtype())) {
    *why = str_cat("dtype ", dtype_name(a.dtype()), " vs expected ", dtype_name(b.dtype()));
    return false;
  }
  Tensor x = as_doubles(a), y = as_doubles(b);
  const double* p = x.data<double>();
  const double* q = y.data<double>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    bool ok = std::abs(p[i] - q[i]) <= atol + rtol * std::abs(q[i]) ||
              (std::isnan(p[i]) && std::isnan(q[i])) || p[i] == q[i];
    if (!ok) {
      *why = str_cat("element ", i, ": got ", p[i], ", expected ", q[i], " (atol ", atol, ", rtol ",
                     rtol, ")");
      return false;
    }
  }
  return true;
}

void expect_error(const OpTest& test, const std::vector<std::string>& parts) {
  std::string message = error_of([&] { test.run(); });
  ASSERT_FALSE(message.empty()) << "expected a skiff::Error";
  for (const std::string& p : parts) {
    EXPECT_NE(message.find(p), std::string::npos) << "'" << p << "' missing from: " << message;
  }
}

OpTest& OpTest::input(const std::string& slot, const Tensor& value) {
  for (auto& [name, values] : inputs_) {
    if (name == slot) {
      values.push_back(value);
      return *this;
    }
  }
  inputs_.push_back({slot, {value}});
  return *this;
}

OpTest& OpTest::output(const std::string& slot, int count) {
  outputs_.push_back({slot, count});
  return *this;
}

OpTest& OpTest::attr(const std::string& name, Attr value) {
  attrs_.push_back({name, std::move(value)});
  return *this;
}

namespace {

using Inputs = OpTest::Inputs;

std::string var_name(const std::string& prefix, const std::string& slot, size_t i) {
  std::string s = prefix + "_" + slot + "_" + std::to_string(i);
  for (char& c : s)
    if (c == '@') c = '_';
  return s;
}

// A one-op program: inputs of `params` slots are persistable (differentiable roots).
struct OneOpProgram {
  Program program;
  std::map<std::string, Tensor> feeds;
  std::map<std::string, std::vector<std::string>> outs;
  std::map<std::string, std::vector<std::string>> ins;
};

OneOpProgram build(const std::string& type, const Inputs& inputs,
                   const std::vector<std::pair<std::string, int>>& outputs, const AttrList& attrs,
                   const std::vector<std::string>& params) {
  OneOpProgram p;
  BlockBuilder b(&p.program);
  std::vector<Slot> in_slots, out_slots;
  for (const auto& [slot, values] : inputs) {
    std::vector<std::string> names;
    for (size_t i = 0; i < values.size(); ++i) {
      std::string n = var_name("in", slot, i);
      bool param = std::find(params.begin(), params.end(), slot) != params.end() &&
                   is_differentiable(values[i].dtype());
      if (param) {
        b.persistable(n, values[i].dtype(), values[i].shape());
      } else {
        b.data(n, values[i].dtype(), values[i].shape());
      }
      p.feeds[n] = values[i];
      names.push_back(n);
    }
    p.ins[slot] = names;
    in_slots.push_back({slot, names});
  }
  auto outs = outputs.empty() ? std::vector<std::pair<std::string, int>>{{"Out", 1}} : outputs;
  for (const auto& [slot, count] : outs) {
    std::vector<std::string> names;
    for (int i = 0; i < count; ++i) names.push_back(var_name("out", slot, i));
    p.outs[slot] = names;
    out_slots.push_back({slot, names});
  }
  b.op(type, in_slots, out_slots, attrs);
  return p;
}

std::vector<std::string> flat(const std::map<std::string, std::vector<std::string>>& m) {
  std::vector<std::string> out;
  for (const auto& [slot, names] : m) out.insert(out.end(), names.begin(), names.end());
  return out;
}

}  // namespace

std::map<std::string, std::vector<Tensor>> OpTest::run() const { return run_case(-1, -1); }

std::map<std::string, std::vector<Tensor>> OpTest::run_case(double atol, double rtol) const {
  OneOpProgram p = build(type_, inputs_, outputs_, attrs_, {});
  Scope scope;
  std::vector<std::string> fetches = flat(p.outs);
  std::vector<Tensor> values = Executor().run(p.program, &scope, p.feeds, fetches);
  if (atol >= 0 && rtol >= 0)
    record_compiled_case(type_, p.program, p.feeds, fetches, values, atol, rtol);
  std::map<std::string, std::vector<Tensor>> result;
  size_t k = 0;
  for (const auto& [slot, names] : p.outs)
    for (size_t i = 0; i < names.size(); ++i) result[slot].push_back(values[k++]);
  return result;
}

// The case run eagerly (the kernels of the registry, called as eager mode calls them)
// gives the interpreter's outputs.
void OpTest::check_eager(const std::map<std::string, std::vector<Tensor>>& want, double atol,
                         double rtol) const {
  const OpInfo& info = OpRegistry::global().get(type_);
  if (info.runs_blocks()) return;
  AttrMap attrs;
  for (const auto& [name, value] : attrs_) attrs.set(name, value);
  if (info.schema.find_attr("seed") && !attrs.has("seed")) return;  // unseeded random numbers
  eager::SlotTensors inputs;
  for (const SlotSchema& s : info.schema.inputs) {
    inputs.emplace_back();
    for (const auto& [slot, values] : inputs_)
      if (slot == s.name)
        for (const Tensor& v : values) inputs.back().push_back(eager::make_tensor(v.clone()));
  }
  const auto declared =
      outputs_.empty() ? std::vector<std::pair<std::string, int>>{{"Out", 1}} : outputs_;
  std::vector<int> counts;
  for (const SlotSchema& s : info.schema.outputs) {
    counts.push_back(0);
    for (const auto& [slot, count] : declared)
      if (slot == s.name) counts.back() = count;
  }
  eager::SlotTensors outs = eager::EagerOp(type_, attrs, counts).call(inputs);
  for (size_t k = 0; k < info.schema.outputs.size(); ++k) {
    auto it = want.find(info.schema.outputs[k].name);
    if (it == want.end()) continue;
    for (size_t i = 0; i < it->second.size() && i < outs[k].size(); ++i) {
      std::string why;
      EXPECT_TRUE(all_close(outs[k][i]->dense(), it->second[i], atol, rtol, &why))
          << type_ << " output " << it->first << "[" << i << "], eager: " << why;
    }
  }
}

void OpTest::check_empty_batch() const {
  if (inputs_.empty() || inputs_[0].second.empty()) return;
  const Tensor& first = inputs_[0].second[0];
  if (first.rank() == 0 || first.dim(0) == 0) return;
  const int64_t batch = first.dim(0);
  OpTest empty = *this;
  for (auto& [slot, values] : empty.inputs_)
    for (Tensor& v : values) {
      if (v.rank() == 0 || v.dim(0) != batch) continue;
      Shape shape = v.shape();
      shape[0] = 0;
      v = Tensor::zeros(shape, v.dtype());
    }
  SCOPED_TRACE(type_ + " with the batch emptied (dim 0 of " + std::to_string(batch) + " -> 0)");
  std::map<std::string, std::vector<Tensor>> outs;
  std::string why = error_of([&] { outs = empty.run(); });
  if (!why.empty()) {  // a refusal names the op
    EXPECT_NE(why.find(type_), std::string::npos) << why;
    return;
  }
  empty.check_eager(outs, 0, 0);
}

void OpTest::check_output(const std::string& slot, const Tensor& expected, double atol, double rtol,
                          int i) const {
  auto outs = run_case(atol, rtol);
  check_eager(outs, atol, rtol);
  check_empty_batch();
  ASSERT_TRUE(outs.count(slot) && static_cast<int>(outs[slot].size()) > i)
      << type_ << ": no output " << slot << "[" << i << "]";
  const Tensor& got = outs[slot][i];
  EXPECT_EQ(got.dtype(), expected.dtype()) << type_ << " output " << slot;
  std::string why;
  EXPECT_TRUE(all_close(got, expected, atol, rtol, &why))
      << type_ << " output " << slot << "[" << i << "]: " << why;
}

std::map<std::string, Tensor> OpTest::analytic_grads(const Inputs& inputs,
                                                     const std::vector<std::string>& wrt,
                                                     const std::string& out_slot,
                                                     const Tensor& cotangent,
                                                     std::vector<std::string>* params) const {
  OneOpProgram bwd = build(type_, inputs, outputs_, attrs_, wrt);
  const std::string bwd_out = bwd.outs.at(out_slot).at(0);
  BackwardOptions opts;
  opts.feed_target_grad = true;
  for (const auto& slot : wrt)
    for (const auto& n : bwd.ins.at(slot))
      if (bwd.program.global_block().find_local_var(n)->persistable) opts.parameters.push_back(n);
  auto param_grads = append_backward(bwd.program, bwd_out, opts);
  Scope scope;
  auto feeds = bwd.feeds;
  feeds[grad_name(bwd_out)] = cotangent;
  std::vector<std::string> grad_names;
  for (const auto& [p, g] : param_grads) grad_names.push_back(g);
  std::vector<Tensor> grads = Executor().run(bwd.program, &scope, feeds, grad_names);
  record_compiled_case(type_ + "'s gradients", bwd.program, feeds, grad_names, grads, 1e-9, 1e-7);
  std::map<std::string, Tensor> analytic;
  for (size_t i = 0; i < param_grads.size(); ++i) analytic[param_grads[i].first] = grads[i];
  *params = opts.parameters;
  return analytic;
}

void OpTest::check_grad(const std::vector<std::string>& wrt, const std::string& out_slot,
                        double eps, double atol, double rtol) const {
  // Everything in float64, so that central differences are accurate.
  // Complex values in complex128: the objective is Re(sum conj(w) * out), and a complex
  // input's gradient is d/d(real part) + i d/d(imaginary part), Paddle's convention.
  Inputs inputs = inputs_;
  for (auto& [slot, values] : inputs)
    for (Tensor& v : values) {
      if (is_floating(v.dtype())) v = to_f64(v);
      if (is_complex(v.dtype())) v = to_c128(v);
    }

  OneOpProgram fwd = build(type_, inputs, outputs_, attrs_, {});
  const std::string out_name = fwd.outs.at(out_slot).at(0);
  auto prepared = Executor().prepare(fwd.program, {out_name});
  auto objective = [&](const std::map<std::string, Tensor>& feeds, const Tensor& w) {
    Scope scope;
    for (const auto& [n, t] : feeds) feed(fwd.program, &scope, n, t);
    Executor().run(*prepared, &scope);
    Tensor out = as_doubles(fetch(scope, out_name));
    const Tensor wd = as_doubles(w);
    double s = 0;
    for (int64_t i = 0; i < out.numel(); ++i) s += out.data<double>()[i] * wd.data<double>()[i];
    return s;
  };

  // A fixed random cotangent w shaped like the output.
  Scope probe;
  for (const auto& [n, t] : fwd.feeds) feed(fwd.program, &probe, n, t);
  Executor().run(*prepared, &probe);
  Tensor out0 = fetch(probe, out_name);
  Tensor w = random_tensor(out0.shape(), is_complex(out0.dtype()) ? DType::kC128 : DType::kF64,
                           1234, 0.5, 1.5);

  // Analytic: append_backward with the cotangent fed as out@GRAD.
  std::vector<std::string> params;
  std::map<std::string, Tensor> analytic = analytic_grads(inputs, wrt, out_slot, w, &params);

  for (const auto& n : params) {
    ASSERT_TRUE(analytic.count(n)) << type_ << ": append_backward produced no gradient for input "
                                   << n << " (is a grad maker registered?)";
    const Tensor& x = fwd.feeds.at(n);
    Tensor numeric = Tensor::zeros(x.shape(), x.dtype());
    // A complex128 tensor's parts are consecutive doubles: step each one.
    const int64_t parts = is_complex(x.dtype()) ? 2 * x.numel() : x.numel();
    for (int64_t j = 0; j < parts; ++j) {
      auto plus = fwd.feeds, minus = fwd.feeds;
      plus[n] = x.clone();
      minus[n] = x.clone();
      static_cast<double*>(plus[n].raw_data())[j] += eps;
      static_cast<double*>(minus[n].raw_data())[j] -= eps;
      static_cast<double*>(numeric.raw_data())[j] =
          (objective(plus, w) - objective(minus, w)) / (2 * eps);
    }
    std::string why;
    EXPECT_TRUE(all_close(analytic[n], numeric, atol, rtol, &why))
        << type_ << ": gradient of input " << n << " vs finite differences: " << why;
  }
}

void OpTest::check_grad_in_dtype(const std::vector<std::string>& wrt, double atol, double rtol,
                                 const std::string& out_slot) const {
  OpTest wide = *this;
  for (auto& [slot, values] : wide.inputs_)
    for (Tensor& v : values)
      if (is_floating(v.dtype())) v = to_f64(v);
  // The cotangent in Out's dtype; the reference gets the same values in its Out's dtype.
  const Tensor out = run().at(out_slot).at(0);
  const Tensor wide_out = wide.run().at(out_slot).at(0);
  const Tensor w = from_f64(random_tensor(out.shape(), DType::kF64, 1234, 0.5, 1.5), out.dtype());

  std::vector<std::string> params, wide_params;
  std::map<std::string, Tensor> got = analytic_grads(inputs_, wrt, out_slot, w, &params);
  std::map<std::string, Tensor> want = analytic_grads(
      wide.inputs_, wrt, out_slot, from_f64(to_f64(w), wide_out.dtype()), &wide_params);
  ASSERT_FALSE(params.empty()) << type_ << ": no floating input in the slots to check";
  for (const auto& n : params) {
    ASSERT_TRUE(got.count(n) && want.count(n))
        << type_ << ": append_backward produced no gradient for input " << n;
    const Tensor& input = input_value(n);
    EXPECT_EQ(got[n].dtype(), input.dtype()) << type_ << ": gradient of input " << n;
    std::string why;
    EXPECT_TRUE(all_close(got[n], want[n], atol, rtol, &why))
        << type_ << ": " << dtype_name(input.dtype()) << " gradient of input " << n
        << " vs the float64 gradient: " << why;
  }
}

const Tensor& OpTest::input_value(const std::string& var) const {
  for (const auto& [slot, values] : inputs_)
    for (size_t i = 0; i < values.size(); ++i)
      if (var_name("in", slot, i) == var) return values[i];
  fail("no input variable ", var);
}

}  // namespace skiff::testing
