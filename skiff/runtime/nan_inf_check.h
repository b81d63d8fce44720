// A debugging check of the interpreter (Paddle's FLAGS_check_nan_inf): when on,
// every kernel's floating outputs are scanned and the run stops at the first op that
// produced a NaN or an Inf, with an error naming the op, the output variable, the
// element and the source line that created the op. Off by default; when off it costs
// one predictable branch per instruction.
//
//   set_check_nan_inf(true);
//   exe.run(program, &scope);   // throws: "op 'log' (created at model.py:7) ...:
//                               //  output Out=log_0.tmp_0 holds -inf at element 3 ..."
#pragma once

#include <atomic>

namespace skiff {

class KernelContext;

namespace detail {
// Read inline on the executor's hot path; set only through set_check_nan_inf.
extern std::atomic<bool> g_check_nan_inf;
}  // namespace detail

// Turns the check on or off for every executor of the process.
void set_check_nan_inf(bool on);
inline bool check_nan_inf_enabled() {
  return detail::g_check_nan_inf.load(std::memory_order_relaxed);
}

// Throws skiff::Error when an output of the op just run (dense tensors, selected
// rows' values, tensor array entries) of a floating dtype holds NaN or Inf.
void check_outputs_finite(const KernelContext& ctx);

}  // namespace skiff
