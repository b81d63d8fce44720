// The rule of every op whose kernels are a binding (ops/binding.h): the binding itself,
// run with an EmitContext over the op's OpEmitter, writes the call its kernels make.
#include "skiff/codegen/op_rules.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/registry.h"

namespace skiff::codegen {

namespace {

class OpCallWriter : public CallWriter {
 public:
  explicit OpCallWriter(OpEmitter& e) : e_(e) {}
  const OpDesc& op() const override { return e_.op(); }
  bool has_in(const char* slot, int i) const override { return e_.has_in(slot, i); }
  bool has_out(const char* slot, int i) const override { return e_.has_out(slot, i); }
  std::string in(const char* slot, int i) const override { return e_.in(slot, i); }
  std::string out(const char* slot, int i) const override { return e_.out(slot, i); }
  int in_count(const char* slot) const override { return e_.in_count(slot); }
  int out_count(const char* slot) const override {
    return static_cast<int>(e_.op().output(slot).size());
  }
  int in_rank(const char* slot, int i) const override {
    const VarDesc* v = e_.in_var(slot, i);
    return v ? v->shape.rank() : -1;
  }
  bool in_is_rows(const char* slot, int i) const override {
    return e_.in_kind(slot, i) == VarKind::kSelectedRows;
  }
  std::string rows_in(const char* slot, int i) const override { return e_.in_rows(slot, i); }
  std::string rows_out(const char* slot, int i) const override { return e_.out_rows(slot, i); }
  void include(const std::string& family) override { e_.include(family); }
  void line(const std::string& statement) override { e_.line(statement); }

 private:
  OpEmitter& e_;
};

}  // namespace

EmitFn binding_of(const std::string& op_type) {
  const OpInfo* info = OpRegistry::global().find(op_type);
  return info ? info->emit : nullptr;
}

void emit_binding(OpEmitter& e) {
  OpCallWriter writer(e);
  EmitContext context(writer);
  const EmitFn binding = binding_of(e.op().type);
  SKIFF_CHECK(binding, e.what(), " has no binding to fall back to");
  binding(context);
}

}  // namespace skiff::codegen
