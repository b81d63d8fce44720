// Bound loops: a `while` whose ops are all static fast paths (rules_static.cc) is emitted
// once into a scratch text while the fast paths collect the variables they touch; then the
// data pointers of those variables are bound before the loop (bind_data for those the loop
// writes, keeping their values; in_data for those it only reads) and the steps use them
// directly. Safe because in such a body every write goes through a bound pointer: no
// buffer is reallocated while the loop runs.
#include "skiff/codegen/op_emitter.h"
#include "skiff/codegen/program_emitter.h"
#include "skiff/core/error.h"

namespace skiff::codegen {

std::string ProgramEmitter::bind(const std::string& expr, const std::string& cpp_type,
                                 const Shape& shape, bool write) {
  for (Binding& b : *bindings_) {
    if (b.expr != expr) continue;
    if (b.cpp_type != cpp_type || b.shape != shape) binding_failed_ = true;
    b.written = b.written || write;
    return b.name;
  }
  Binding b;
  b.expr = expr;
  b.name = cpp_identifier(expr.substr(expr.find('.') + 1)) + "_data";
  b.cpp_type = cpp_type;
  b.shape = shape;
  b.written = write;
  b.read_first = !write;
  bindings_->push_back(b);
  return b.name;
}

bool ProgramEmitter::try_emit_bound_loop(OpEmitter& e, int body) {
  if (bindings_) {  // a loop inside a loop being bound: the outer one is not bound
    binding_failed_ = true;
    return false;
  }
  std::vector<Binding> bindings;
  CppWriter text(out_->indent() + 1);
  CppWriter* outer = out_;
  bindings_ = &bindings;
  binding_failed_ = false;
  fast_ops_ = 0;
  std::set<std::string> families = kernel_families_;
  try {
    emit_block(body, &text);
  } catch (const Error&) {
    binding_failed_ = true;
  }
  bindings_ = nullptr;
  out_ = outer;
  const std::string cond = e.in("Condition");
  const Binding* cond_binding = nullptr;
  for (const Binding& b : bindings)
    if (b.expr == cond && b.cpp_type == "bool" && b.shape.numel() == 1) cond_binding = &b;
  if (binding_failed_ || fast_ops_ != ops_[body].size() || !cond_binding) {
    kernel_families_ = families;
    return false;
  }
  e.line("// Every variable of the loop has a fixed shape: its buffer is bound once, here.");
  for (const Binding& b : bindings) {
    if (b.written) {
      e.line(b.cpp_type + "* " + b.name + " = codegen::bind_data<" + b.cpp_type + ">(&" + b.expr +
             ", " + OpEmitter::shape_lit(b.shape) + ", " + OpEmitter::lit(b.read_first) + ", " +
             OpEmitter::lit(e.what()) + ");");
    } else {
      e.line("const " + b.cpp_type + "* " + b.name + " = codegen::in_data<" + b.cpp_type + ">(" +
             b.expr + ", " + std::to_string(b.shape.numel()) + ", " + OpEmitter::lit(e.what()) +
             ");");
    }
  }
  e.open("while (*" + cond_binding->name + ") {");
  e.line("// block " + std::to_string(body));
  out_->raw(text.str());
  e.close();
  return true;
}

}  // namespace skiff::codegen
