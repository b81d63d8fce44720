// Debugging ops: print (skiff.static.Print) shows a tensor when the program runs,
// and its grad op shows the gradient flowing back through it.
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "skiff/kernels/cpu/print.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

constexpr std::initializer_list<DType> kPrintDTypes = {DType::kF32, DType::kF64,  DType::kI32,
                                                       DType::kI64, DType::kBool, DType::kBF16};

kernels::PrintOptions print_options(const KernelContext& ctx) {
  kernels::PrintOptions o;
  o.message = ctx.attr<std::string>("message");
  o.summarize = ctx.attr<int64_t>("summarize");
  o.print_name = ctx.attr<bool>("print_tensor_name");
  o.print_type = ctx.attr<bool>("print_tensor_type");
  o.print_shape = ctx.attr<bool>("print_tensor_shape");
  return o;
}

void check_phase(const std::string& phase) {
  SKIFF_CHECK(phase == "forward" || phase == "backward" || phase == "both",
              "print_phase must be 'forward', 'backward' or 'both', got '", phase, "'");
}

// Writes `text` to the process's standard output at once (unbuffered by C++ streams,
// so it interleaves correctly with Python's own output after a flush).
void emit(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

// Whether this run of a print op (forward, or its gradient) prints: with first_n >= 0,
// only the first first_n runs in this process of the ops sharing its print_id do.
bool within_first_n(const KernelContext& ctx, bool gradient) {
  const int64_t first_n = ctx.attr<int64_t>("first_n");
  if (first_n < 0) return true;
  static std::mutex mu;
  static std::map<std::pair<int64_t, bool>, int64_t> printed;
  std::lock_guard<std::mutex> lock(mu);
  int64_t& n = printed[{ctx.attr<int64_t>("print_id"), gradient}];
  if (n >= first_n) return false;
  ++n;
  return true;
}

// Out shares X's value (copy-on-write keeps either side safe from later writes).
void pass_through(const Tensor& x, Tensor* out) {
  if (out) *out = x;
}

// ---- print ----

void infer_print(ShapeContext& ctx) {
  check_phase(ctx.attr<std::string>("print_phase"));
  ctx.set_output("Out", ctx.in_shape("In"), ctx.in_dtype("In"));
}

void print_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.in("In");
  const std::string phase = ctx.attr<std::string>("print_phase");
  if (phase != "backward" && within_first_n(ctx, false))
    emit(kernels::format_tensor(x, ctx.op().first_input("In"), print_options(ctx)));
  pass_through(x, ctx.out("Out"));
}

void print_grad_maker(GradContext& g) {
  std::string in_grad = g.in_grad("In");
  if (in_grad.empty()) return;
  OpDesc& op = g.add("print_grad");
  op.set_input("Out@GRAD", {g.out_grad("Out")}).set_output("In@GRAD", {in_grad});
  for (const char* name : {"message", "summarize", "print_tensor_name", "print_tensor_type",
                           "print_tensor_shape", "print_phase", "first_n", "print_id"}) {
    if (const Attr* a = g.fwd().attrs.find(name)) op.set_attr(name, *a);
  }
}

// ---- print_grad ----

void infer_print_grad(ShapeContext& ctx) {
  ctx.set_output("In@GRAD", ctx.in_shape("Out@GRAD"), ctx.in_dtype("Out@GRAD"));
}

void print_grad_kernel(KernelContext& ctx) {
  const Tensor& dout = ctx.in("Out@GRAD");
  const std::string phase = ctx.attr<std::string>("print_phase");
  if (phase != "forward" && within_first_n(ctx, true)) {
    std::string name = ctx.op().first_output("In@GRAD");
    emit(kernels::format_tensor(dout, name.empty() ? ctx.op().first_input("Out@GRAD") : name,
                                print_options(ctx)));
  }
  pass_through(dout, ctx.out("In@GRAD"));
}

void add_print_attrs(OpBuilder& b) {
  b.attr("message", std::string(), "text printed before the tensor")
      .attr("summarize", int64_t{20}, "number of values printed (-1: all)")
      .attr("print_tensor_name", true, "print the variable's name")
      .attr("print_tensor_type", true, "print the dtype")
      .attr("print_tensor_shape", true, "print the shape")
      .attr("print_phase", std::string("both"),
            "when to print: 'forward' (the value), 'backward' (its gradient) or 'both'")
      .attr("first_n", int64_t{-1},
            "print only the first first_n runs (each direction counted on its own; -1: every run)")
      .attr("print_id", int64_t{0},
            "identifies the op for first_n: ops with the same id share their counts");
}

}  // namespace

void register_debug_ops(OpRegistry& r) {
  OpBuilder print = r.add("print");
  print
      .doc(
          "Out = In, printing In (name, shape, dtype, first values) to stdout when it runs; "
          "the gradient is printed the same way when it flows back.")
      .input("In", "the tensor to show")
      .output("Out", "In, unchanged (shares its value)");
  add_print_attrs(print);
  print.infer_shape(infer_print).kernel(kPrintDTypes, print_kernel).grad(print_grad_maker);

  OpBuilder grad = r.add("print_grad");
  grad.doc("In@GRAD = Out@GRAD, printing it (print_phase 'backward' or 'both').")
      .input("Out@GRAD", "gradient of Out")
      .output("In@GRAD", "the same gradient");
  add_print_attrs(grad);
  grad.infer_shape(infer_print_grad).kernel(kPrintDTypes, print_grad_kernel);
}

}  // namespace skiff
