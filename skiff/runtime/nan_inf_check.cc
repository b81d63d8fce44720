#include "skiff/runtime/nan_inf_check.h"

#include <cmath>
#include <string>

#include "skiff/ops/kernel_context.h"
#include "skiff/ops/op_error.h"

namespace skiff {

namespace detail {
std::atomic<bool> g_check_nan_inf{false};
}  // namespace detail

void set_check_nan_inf(bool on) { detail::g_check_nan_inf.store(on, std::memory_order_relaxed); }

namespace {

// Index of the first element that is NaN or +-Inf, or -1.
template <typename T>
int64_t first_non_finite(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) return i;
  return -1;
}

int64_t first_non_finite_bf16(const bfloat16* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if ((p[i].bits & 0x7F80u) == 0x7F80u) return i;
  return -1;
}

// The first non-finite element of `t` (-1 if none) and its value as text.
int64_t scan(const Tensor& t, std::string* value) {
  if (!t.initialized() || !is_floating(t.dtype())) return -1;
  int64_t at = -1;
  double v = 0;
  if (t.dtype() == DType::kBF16) {
    const bfloat16* p = t.data<bfloat16>();
    at = first_non_finite_bf16(p, t.numel());
    if (at >= 0) v = static_cast<float>(p[at]);
  } else {
    SKIFF_DISPATCH_FLOATING(t.dtype(), T, {
      const T* p = t.data<T>();
      at = first_non_finite(p, t.numel());
      if (at >= 0) v = static_cast<double>(p[at]);
    });
  }
  if (at >= 0) *value = std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  return at;
}

[[noreturn]] void report(const KernelContext& ctx, const std::string& slot, const std::string& var,
                         const std::string& where, const Tensor& t, const std::string& value,
                         int64_t at) {
  throw Error(describe_kernel_error(
      ctx, str_cat("output ", slot, "=", var, where, " holds ", value, " at element ", at, " of ",
                   t.type_str(), " (check_nan_inf stops at the first op producing NaN or Inf)")));
}

}  // namespace

void check_outputs_finite(const KernelContext& ctx) {
  const OpDesc& op = ctx.op();
  std::string value;
  for (size_t s = 0; s < op.outputs.size(); ++s) {
    const auto& [slot, names] = op.outputs[s];
    for (size_t i = 0; i < names.size() && i < ctx.outputs[s].size(); ++i) {
      const Variable* v = ctx.outputs[s][i];
      if (!v || names[i].empty()) continue;
      if (const Tensor* t = v->tensor()) {
        if (int64_t at = scan(*t, &value); at >= 0) report(ctx, slot, names[i], "", *t, value, at);
      } else if (const SelectedRows* rows = v->selected_rows()) {
        if (int64_t at = scan(rows->value, &value); at >= 0)
          report(ctx, slot, names[i], " (selected rows' values)", rows->value, value, at);
      } else if (const TensorArray* array = v->array()) {
        for (size_t k = 0; k < array->size(); ++k) {
          if (int64_t at = scan((*array)[k], &value); at >= 0)
            report(ctx, slot, names[i], str_cat("[", k, "]"), (*array)[k], value, at);
        }
      }
    }
  }
}

}  // namespace skiff
