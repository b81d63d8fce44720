#include "skiff/ops/recurrent_grad.h"

#include <string>

namespace skiff {

void add_recurrent_grad(GradContext& g, const char* grad_type, SlotList ins, SlotList outs,
                        SlotList kept, bool kept_required) {
  const OpDesc& fwd = g.fwd();
  bool any = false;
  for (const char* slot : ins) any = any || g.wants(slot);
  if (!any) return;
  OpDesc& op = g.add(grad_type);
  for (const char* slot : ins) {
    const std::string name = fwd.first_input(slot);
    if (name.empty()) continue;
    op.set_input(slot, {name});
    op.set_output(std::string(slot) + kGradSuffix, {g.in_grad(slot)});
  }
  if (!fwd.first_input("Sequence_length").empty())
    op.set_input("Sequence_length", {fwd.first_input("Sequence_length")});
  const bool has_kept = kept.size() > 0 && !fwd.first_output(*kept.begin()).empty();
  for (const char* slot : kept) {
    if (!kept_required && !has_kept) break;
    SKIFF_CHECK(!fwd.first_output(slot).empty(), fwd.type,
                ": differentiating it needs what it kept (output ", slot, ")");
    op.set_input(slot, {fwd.first_output(slot)});
  }
  for (const char* slot : outs) op.set_input(std::string(slot) + kGradSuffix, {g.out_grad(slot)});
  op.attrs = fwd.attrs;
}

void infer_input_grads(ShapeContext& ctx, SlotList ins) {
  for (const char* slot : ins) {
    if (!ctx.has_input(slot)) continue;
    ctx.set_output((std::string(slot) + kGradSuffix).c_str(), ctx.in_shape(slot),
                   ctx.in_dtype(slot));
  }
}

}  // namespace skiff
