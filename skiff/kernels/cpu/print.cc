#include "skiff/kernels/cpu/print.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <type_traits>
#include <utility>

namespace skiff::kernels {

namespace {

template <typename T>
void put_values(const Tensor& t, int64_t count, std::ostringstream* out) {
  const T* p = t.data<T>();
  for (int64_t i = 0; i < count; ++i) {
    if (i) *out << ' ';
    if constexpr (std::is_same_v<T, bool>) {
      *out << (p[i] ? "true" : "false");
    } else if constexpr (std::is_same_v<T, bfloat16>) {
      *out << static_cast<float>(p[i]);
    } else if constexpr (sizeof(T) == 1) {  // int8, uint8: numbers, not characters
      *out << static_cast<int>(p[i]);
    } else {
      *out << p[i];
    }
  }
}

}  // namespace

std::string format_tensor(const Tensor& t, const std::string& name, const PrintOptions& options) {
  std::ostringstream out;
  out.precision(6);
  if (!options.message.empty()) out << options.message << ' ';
  out << "Variable: " << (options.print_name ? name : std::string("(unnamed)")) << '\n';
  if (options.print_shape) out << "  - shape: " << t.shape() << '\n';
  if (options.print_type) out << "  - dtype: " << dtype_name(t.dtype()) << '\n';
  const int64_t n = t.numel();
  const int64_t count = options.summarize < 0 ? n : std::min(n, options.summarize);
  out << "  - data: [";
  if (t.dtype() == DType::kBF16) {
    put_values<bfloat16>(t, count, &out);
  } else {
    SKIFF_DISPATCH_ALL(t.dtype(), T, put_values<T>(t, count, &out));
  }
  if (count < n) out << (count ? " " : "") << "... (" << n - count << " more)";
  out << "]\n";
  return out.str();
}

namespace {

bool within_limit(const PrintLimit& limit) {
  if (limit.first_n < 0) return true;
  static std::mutex mu;
  static std::map<std::pair<int64_t, bool>, int64_t> printed;
  std::lock_guard<std::mutex> lock(mu);
  int64_t& n = printed[{limit.print_id, limit.gradient}];
  if (n >= limit.first_n) return false;
  ++n;
  return true;
}

}  // namespace

void print_tensor(const Tensor& t, const std::string& name, const PrintOptions& options, bool show,
                  const PrintLimit& limit, Tensor* out) {
  if (show && within_limit(limit)) {
    const std::string text = format_tensor(t, name, options);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }
  if (out) *out = t;
}

void assert_all(const Tensor& cond, const std::string& name, const std::string& message) {
  SKIFF_CHECK(cond.initialized() && cond.dtype() == DType::kBool,
              "assert: Cond must be a bool tensor, got ",
              cond.initialized() ? cond.type_str() : std::string("none"));
  const bool* v = cond.data<bool>();
  if (std::all_of(v, v + cond.numel(), [](bool b) { return b; })) return;
  fail(message, "\n", format_tensor(cond, name, PrintOptions{}));
}

}  // namespace skiff::kernels
