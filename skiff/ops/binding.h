// Bindings: an op's kernel call written once, generic over the context that runs it.
// Instantiated with KernelContext, a binding calls the kernel (the interpreter and eager
// mode); with EmitContext, it writes the same call as C++ for the compiler (skiff
// compile), attributes turned into literals. The op registers both instantiations:
//
//   template <typename C>
//   void gather_binding(C& c) {
//     SKIFF_KERNEL_CALL(c, "index", kernels::gather, c.in("X"), c.in("Index"),
//                       attr<int64_t>(c, "axis"), c.out("Out"));
//   }
//   r.add("gather")...bind({DType::kF32, DType::kF64}, gather_binding<KernelContext>,
//                          gather_binding<EmitContext>);
//
// The second argument names the kernel family (skiff/kernels/cpu/<family>.h) the
// generated file includes. A binding may branch on what both contexts answer alike:
// has_in / has_out (an optional slot), in_is_rows (a gradient that may be selected rows),
// attributes and the op itself; what only exists at run time (a tensor's shape) passes as
// an expression: c.in("X").shape(). The compiler implements CallWriter
// (codegen/binding_rule.cc); ops does not include codegen.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "skiff/ir/program.h"
#include "skiff/ops/cpp_literal.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"

namespace skiff {

// What the compiler gives a binding: the op, its variables as C++ expressions, and the
// output. Implemented over codegen's OpEmitter.
class CallWriter {
 public:
  virtual ~CallWriter() = default;
  virtual const OpDesc& op() const = 0;
  // Whether the slot names a variable (known when the program is compiled).
  virtual bool has_in(const char* slot, int i) const = 0;
  virtual bool has_out(const char* slot, int i) const = 0;
  // "v.x" (a const Tensor& expression); "&v.y" or "nullptr" (a Tensor* expression).
  virtual std::string in(const char* slot, int i) const = 0;
  virtual std::string out(const char* slot, int i) const = 0;
  virtual int in_count(const char* slot) const = 0;
  virtual int out_count(const char* slot) const = 0;
  // The declared rank of input slot[i]'s variable; -1 when not declared.
  virtual int in_rank(const char* slot, int i) const = 0;
  // Whether input slot[i] is declared selected rows; "v.g" (a const SelectedRows&
  // expression); "&v.g" or "nullptr" (a SelectedRows* expression).
  virtual bool in_is_rows(const char* slot, int i) const = 0;
  virtual std::string rows_in(const char* slot, int i) const = 0;
  virtual std::string rows_out(const char* slot, int i) const = 0;
  // Includes skiff/kernels/cpu/<family>.h; writes one statement.
  virtual void include(const std::string& family) = 0;
  virtual void line(const std::string& statement) = 0;
};

// A C++ expression in generated code.
struct Expr {
  std::string text;
};

// A dense tensor's expression, with the members bindings read of it.
struct TensorExpr : Expr {
  Expr shape() const { return {text + ".shape()"}; }
  Expr dtype() const { return {text + ".dtype()"}; }
  Expr rank() const { return {text + ".rank()"}; }
  Expr dim(int i) const { return {text + ".dim(" + std::to_string(i) + ")"}; }
};

// A selected-rows expression, its members named as SelectedRows' fields (so that
// `c.rows_in("Grad").value` reads alike in both contexts).
struct RowsExpr : Expr {
  explicit RowsExpr(std::string rows_text)
      : Expr{std::move(rows_text)},
        rows{text + ".rows"},
        value{{text + ".value"}},
        height{text + ".height"} {}
  Expr rows;
  TensorExpr value;
  Expr height;
};

// The compiler's side of a binding: KernelContext's questions answered with expressions.
class EmitContext {
 public:
  explicit EmitContext(CallWriter& writer) : writer_(writer) {}
  const OpDesc& op() const { return writer_.op(); }
  bool has_in(const char* slot, int i = 0) const { return writer_.has_in(slot, i); }
  bool has_out(const char* slot, int i = 0) const { return writer_.has_out(slot, i); }
  int in_count(const char* slot) const { return writer_.in_count(slot); }
  int out_count(const char* slot) const { return writer_.out_count(slot); }
  // What the program declares (a compile-time fact; KernelContext has the run-time rank).
  int in_rank(const char* slot, int i = 0) const { return writer_.in_rank(slot, i); }
  TensorExpr in(const char* slot, int i = 0) const { return {{writer_.in(slot, i)}}; }
  // As KernelContext's, the test of a value made at run time: a variable the program names
  // may hold none (a gradient nothing wrote).
  Expr in_or_null(const char* slot, int i = 0) const {
    if (!has_in(slot, i)) return {"nullptr"};
    const std::string x = writer_.in(slot, i);
    return {"(" + x + ".initialized() ? &" + x + " : nullptr)"};
  }
  Expr out(const char* slot, int i = 0) const { return {writer_.out(slot, i)}; }
  bool in_is_rows(const char* slot, int i = 0) const { return writer_.in_is_rows(slot, i); }
  RowsExpr rows_in(const char* slot, int i = 0) const { return RowsExpr(writer_.rows_in(slot, i)); }
  Expr rows_out(const char* slot, int i = 0) const { return {writer_.rows_out(slot, i)}; }
  CallWriter& writer() const { return writer_; }

 private:
  CallWriter& writer_;
};

// ---- list slots

// A list slot's inputs as the std::vector<Tensor> the join kernels take (Tensors share
// their storage: no data is copied). Every entry must be present.
std::vector<Tensor> tensor_list(const KernelContext& c, const char* slot);
Expr tensor_list(const EmitContext& c, const char* slot);

// A list slot's outputs as a std::vector<Tensor*>, nullptr for an absent entry.
std::vector<Tensor*> output_list(KernelContext& c, const char* slot);
Expr output_list(const EmitContext& c, const char* slot);

// ---- attributes: the value at run time, its literal at compile time

template <typename T>
T attr(const KernelContext& c, const char* name) {
  return c.attr<T>(name);
}
template <typename T>
Expr attr(const EmitContext& c, const char* name) {
  return {cpp_literal(c.op().attr<T>(name))};
}

// A list attribute by reference (no copy at run time); T is its stored type.
template <typename T>
const T& attr_ref(const KernelContext& c, const char* name) {
  return c.attr_ref<T>(name);
}
template <typename T>
Expr attr_ref(const EmitContext& c, const char* name) {
  return {cpp_literal(c.op().attr_ref<T>(name))};
}

// A list-of-ints attribute as a Shape.
inline Shape shape_attr(const KernelContext& c, const char* name) {
  return Shape(c.attr_ref<std::vector<int64_t>>(name));
}
inline Expr shape_attr(const EmitContext& c, const char* name) {
  return {shape_literal(Shape(c.op().attr_ref<std::vector<int64_t>>(name)))};
}

// A dtype attribute held as its numpy name ("float32").
inline DType dtype_attr(const KernelContext& c, const char* name) {
  return dtype_from_name(c.attr_ref<std::string>(name));
}
inline Expr dtype_attr(const EmitContext& c, const char* name) {
  return {dtype_literal(dtype_from_name(c.op().attr<std::string>(name)))};
}

// A value the binding computes from the op (a kernel's options struct): itself at run
// time, `literal(value)` at compile time.
template <typename T, typename Literal>
const T& constant(const KernelContext&, const T& value, Literal&&) {
  return value;
}
template <typename T, typename Literal>
Expr constant(const EmitContext&, const T& value, Literal&& literal) {
  return {literal(value)};
}
// The same for a value cpp_literal spells (a bool, a number, a string, a list of them).
template <typename T>
const T& constant(const KernelContext&, const T& value) {
  return value;
}
template <typename T>
Expr constant(const EmitContext&, const T& value) {
  return {cpp_literal(value)};
}

// Input `slot`[i], which must be present, as a `const Tensor*` (a member of a kernel's
// state struct).
inline const Tensor* in_ptr(const KernelContext& c, const char* slot, int i = 0) {
  return &c.in(slot, i);
}
inline Expr in_ptr(const EmitContext& c, const char* slot, int i = 0) {
  return {"&" + c.in(slot, i).text};
}

// An absent optional input passed as an empty tensor.
inline const Tensor& no_tensor(const KernelContext&) {
  static const Tensor kNoTensor;
  return kNoTensor;
}
inline Expr no_tensor(const EmitContext&) { return {"kNoTensor"}; }  // codegen.cc declares it

// An optional input, or the empty tensor when it holds no value.
inline const Tensor& in_or_empty(const KernelContext& c, const char* slot) {
  return c.has_in(slot) ? c.in(slot) : no_tensor(c);
}
inline Expr in_or_empty(const EmitContext& c, const char* slot) {
  if (!c.has_in(slot)) return no_tensor(c);
  const std::string x = c.in(slot).text;
  return {"(" + x + ".initialized() ? " + x + " : kNoTensor)"};
}

// Output `out` viewed with `shape` (same element count; no copy), after a kernel call.
inline void reshape_output(const KernelContext&, Tensor* out, const Shape& shape) {
  out->reshape(shape);
}
inline void reshape_output(const EmitContext& c, const Expr& out, const Expr& shape) {
  c.writer().line("(" + out.text + ")->reshape(" + shape.text + ");");
}

// ---- the call

namespace binding_detail {

inline const std::string& text_of(const Expr& e) { return e.text; }
inline std::string text_of(std::nullptr_t) { return "nullptr"; }

template <typename... Args>
std::string call_text(const char* name, const Args&... args) {
  std::string call = std::string(name) + "(";
  const char* sep = "";
  ((call += sep + text_of(args), sep = ", "), ...);
  return call + ")";
}

template <typename... Args>
std::string init_text(const char* type, const Args&... args) {
  std::string init = std::string(type) + "{";
  const char* sep = "";
  ((init += sep + text_of(args), sep = ", "), ...);
  return init + "}";
}

}  // namespace binding_detail

template <typename Fn, typename... Args>
decltype(auto) kernel_call(const KernelContext&, const char*, const char*, Fn&& fn,
                           Args&&... args) {
  return fn(std::forward<Args>(args)...);
}

template <typename Fn, typename... Args>
void kernel_call(const EmitContext& c, const char* family, const char* name, Fn&&,
                 const Args&... args) {
  c.writer().include(family);
  c.writer().line(binding_detail::call_text(name, args...) + ";");
}

template <typename Fn, typename... Args>
decltype(auto) kernel_value(const KernelContext&, const char*, Fn&& fn, Args&&... args) {
  return fn(std::forward<Args>(args)...);
}

template <typename Fn, typename... Args>
Expr kernel_value(const EmitContext&, const char* name, Fn&&, const Args&... args) {
  return {binding_detail::call_text(name, args...)};
}

template <typename T, typename... Args>
T kernel_struct(const KernelContext&, const char*, Args&&... args) {
  return T{std::forward<Args>(args)...};
}

template <typename T, typename... Args>
Expr kernel_struct(const EmitContext&, const char* type, const Args&... args) {
  return {binding_detail::init_text(type, args...)};
}

// Calls the kernel `fn` (of skiff/kernels/cpu/<family>.h) with the arguments, or writes
// that call.
#define SKIFF_KERNEL_CALL(ctx, family, fn, ...) \
  ::skiff::kernel_call((ctx), family, #fn, SKIFF_BINDING_FORWARD(fn), __VA_ARGS__)
// The value of `fn` (a helper of the kernel family the call includes, e.g. a shape
// function) for an argument of a kernel call: the value, or the expression computing it.
#define SKIFF_KERNEL_VALUE(ctx, fn, ...) \
  ::skiff::kernel_value((ctx), #fn, SKIFF_BINDING_FORWARD(fn), __VA_ARGS__)
// A kernel's aggregate argument (an options, state or outputs struct), e.g.
// SKIFF_KERNEL_STRUCT(c, kernels::LambState, in_ptr(c, "Moment1"), ...): T{args...}, or
// the expression "kernels::LambState{&v.m1, ...}".
#define SKIFF_KERNEL_STRUCT(ctx, T, ...) ::skiff::kernel_struct<T>((ctx), #T, __VA_ARGS__)
#define SKIFF_BINDING_FORWARD(fn) \
  [&](auto&&... a) -> decltype(auto) { return fn(std::forward<decltype(a)>(a)...); }

}  // namespace skiff
