// Debugging ops: print (skiff.static.Print) shows a tensor when the program runs,
// and its grad op shows the gradient flowing back through it; assert (Python's `assert` on
// a Tensor in to_static code) stops the run unless a condition holds.
#include <string>

#include "skiff/kernels/cpu/print.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

constexpr std::initializer_list<DType> kPrintDTypes = {DType::kF32, DType::kF64,  DType::kI32,
                                                       DType::kI64, DType::kBool, DType::kBF16};

std::string options_literal(const kernels::PrintOptions& o) {
  return "kernels::PrintOptions{" + cpp_literal(o.message) + ", " + cpp_literal(o.summarize) +
         ", " + cpp_literal(o.print_name) + ", " + cpp_literal(o.print_type) + ", " +
         cpp_literal(o.print_shape) + "}";
}

std::string limit_literal(const kernels::PrintLimit& l) {
  return "kernels::PrintLimit{" + cpp_literal(l.first_n) + ", " + cpp_literal(l.print_id) + ", " +
         cpp_literal(l.gradient) + "}";
}

void check_phase(const std::string& phase) {
  SKIFF_CHECK(phase == "forward" || phase == "backward" || phase == "both",
              "print_phase must be 'forward', 'backward' or 'both', got '", phase, "'");
}

// print (gradient false) and print_grad (true): the tensor, its variable's name, and
// whether this direction prints.
template <bool kGradient, typename C>
void print(C& c) {
  const OpDesc& op = c.op();
  kernels::PrintOptions o;
  o.message = op.attr<std::string>("message");
  o.summarize = op.attr<int64_t>("summarize");
  o.print_name = op.attr<bool>("print_tensor_name");
  o.print_type = op.attr<bool>("print_tensor_type");
  o.print_shape = op.attr<bool>("print_tensor_shape");
  const kernels::PrintLimit limit{op.attr<int64_t>("first_n"), op.attr<int64_t>("print_id"),
                                  kGradient};
  const std::string& phase = op.attr_ref<std::string>("print_phase");
  const bool show = phase != (kGradient ? "forward" : "backward");
  const std::string name = !kGradient                           ? op.first_input("In")
                           : op.first_output("In@GRAD").empty() ? op.first_input("Out@GRAD")
                                                                : op.first_output("In@GRAD");
  SKIFF_KERNEL_CALL(c, "print", kernels::print_tensor, c.in(kGradient ? "Out@GRAD" : "In"),
                    constant(c, name), constant(c, o, options_literal), constant(c, show),
                    constant(c, limit, limit_literal), c.out(kGradient ? "In@GRAD" : "Out"));
}

// ---- print ----

void infer_print(ShapeContext& ctx) {
  check_phase(ctx.attr<std::string>("print_phase"));
  ctx.set_output("Out", ctx.in_shape("In"), ctx.in_dtype("In"));
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

// ---- assert ----

void infer_assert(ShapeContext& ctx) {
  SKIFF_CHECK(ctx.in_dtype("Cond") == DType::kBool, "assert: Cond ('", ctx.in_var("Cond").name,
              "') must be bool, got ", dtype_name(ctx.in_dtype("Cond")));
}

template <typename C>
void assert_op(C& c) {
  SKIFF_KERNEL_CALL(c, "print", kernels::assert_all, c.in("Cond"),
                    constant(c, c.op().first_input("Cond")),
                    constant(c, c.op().template attr<std::string>("message")));
}

}  // namespace

void register_debug_ops(OpRegistry& r) {
  r.add("assert")
      .doc(
          "Stops the run with an error (message, then Cond's values) unless every element of "
          "Cond is true: Python's `assert` on a Tensor in converted code.")
      .input("Cond", "bool, any shape")
      .attr("message", std::string("assertion failed"), "the error's text (the user's line)")
      .infer_shape(infer_assert)
      .bind({DType::kBool}, assert_op<KernelContext>, assert_op<EmitContext>)
      .kernel_dtype_from("Cond");

  OpBuilder print_op = r.add("print");
  print_op
      .doc(
          "Out = In, printing In (name, shape, dtype, first values) to stdout when it runs; "
          "the gradient is printed the same way when it flows back.")
      .input("In", "the tensor to show")
      .output("Out", "In, unchanged (shares its value)");
  add_print_attrs(print_op);
  print_op.infer_shape(infer_print)
      .bind(kPrintDTypes, print<false, KernelContext>, print<false, EmitContext>)
      .grad(print_grad_maker);

  OpBuilder grad = r.add("print_grad");
  grad.doc("In@GRAD = Out@GRAD, printing it (print_phase 'backward' or 'both').")
      .input("Out@GRAD", "gradient of Out")
      .output("In@GRAD", "the same gradient");
  add_print_attrs(grad);
  grad.infer_shape(infer_print_grad)
      .bind(kPrintDTypes, print<true, KernelContext>, print<true, EmitContext>);
}

const OpRegistrar kDebugOps(register_debug_ops);

}  // namespace skiff
