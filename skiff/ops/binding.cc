// The list-slot helpers of bindings (binding.h).
#include "skiff/ops/binding.h"

#include "skiff/core/error.h"

namespace skiff {

std::vector<Tensor> tensor_list(const KernelContext& c, const char* slot) {
  std::vector<Tensor> xs;
  xs.reserve(c.in_count(slot));
  for (int i = 0; i < c.in_count(slot); ++i) xs.push_back(c.in(slot, i));
  return xs;
}

Expr tensor_list(const EmitContext& c, const char* slot) {
  std::string xs = "std::vector<Tensor>{";
  for (int i = 0; i < c.in_count(slot); ++i) {
    SKIFF_CHECK(c.has_in(slot, i), c.op().type, ": ", slot, "[", i, "] is empty");
    xs += (i ? ", " : "") + c.in(slot, i).text;
  }
  return {xs + "}"};
}

std::vector<Tensor*> output_list(KernelContext& c, const char* slot) {
  std::vector<Tensor*> outs;
  outs.reserve(c.out_count(slot));
  for (int i = 0; i < c.out_count(slot); ++i) outs.push_back(c.out(slot, i));
  return outs;
}

Expr output_list(const EmitContext& c, const char* slot) {
  std::string outs = "std::vector<Tensor*>{";
  for (int i = 0; i < c.out_count(slot); ++i) outs += (i ? ", " : "") + c.out(slot, i).text;
  return {outs + "}"};
}

}  // namespace skiff
