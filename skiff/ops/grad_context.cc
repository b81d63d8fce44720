#include "skiff/ops/grad_context.h"

namespace skiff {

std::string GradContext::out_grad(const char* slot, int i) const {
  const auto& names = fwd_.output(slot);
  SKIFF_CHECK(i < static_cast<int>(names.size()), "grad maker of ", fwd_.type, ": no output ", slot,
              "[", i, "]");
  return grad_name(names[i]);
}

std::vector<std::string> GradContext::out_grads(const char* slot) const {
  std::vector<std::string> out;
  for (const auto& n : fwd_.output(slot)) out.push_back(grad_name(n));
  return out;
}

std::string GradContext::in_grad(const char* slot, int i) const {
  const auto& names = fwd_.input(slot);
  if (i >= static_cast<int>(names.size()) || names[i].empty() || !needs_grad_(names[i])) return "";
  return grad_name(names[i]);
}

std::vector<std::string> GradContext::in_grads(const char* slot) const {
  std::vector<std::string> out;
  for (size_t i = 0; i < fwd_.input(slot).size(); ++i)
    out.push_back(in_grad(slot, static_cast<int>(i)));
  return out;
}

bool GradContext::wants(const char* slot) const {
  for (const auto& n : in_grads(slot))
    if (!n.empty()) return true;
  return false;
}

OpDesc& GradContext::add(const std::string& type) {
  ops_.emplace_back(type);
  std::string src = fwd_.source();
  if (!src.empty()) ops_.back().set_attr(kSourceAttr, src);
  return ops_.back();
}

}  // namespace skiff
