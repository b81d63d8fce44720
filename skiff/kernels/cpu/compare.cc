#include "skiff/kernels/cpu/compare.h"

#include <utility>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/broadcast_plan.h"
#include "skiff/kernels/cpu/elementwise.h"

namespace skiff::kernels {

namespace {

template <typename T>
bool compare_one(CompareOp op, T a, T b) {
  switch (op) {
    case CompareOp::kLess:
      return a < b;
    case CompareOp::kLessEqual:
      return a <= b;
    case CompareOp::kGreater:
      return a > b;
    case CompareOp::kGreaterEqual:
      return a >= b;
    case CompareOp::kEqual:
      return a == b;
    case CompareOp::kNotEqual:
      return a != b;
  }
  return false;
}

bool logical_one(LogicalOp op, bool a, bool b) {
  switch (op) {
    case LogicalOp::kAnd:
      return a && b;
    case LogicalOp::kOr:
      return a || b;
    case LogicalOp::kXor:
      return a != b;
  }
  return false;
}

// The op as a compile-time constant, so each loop is specialised for it.
template <CompareOp kOp>
struct Compare {
  template <typename T>
  bool operator()(T a, T b) const {
    return compare_one(kOp, a, b);
  }
};
template <LogicalOp kOp>
struct Logical {
  bool operator()(bool a, bool b) const { return logical_one(kOp, a, b); }
};

// out[i] = fn(x[.], y[.]) over the broadcast shape `os` of xs and ys.
template <typename T, typename Fn>
void broadcast_apply(const T* x, const Shape& xs, const T* y, const Shape& ys, const Shape& os,
                     bool* out, Fn fn) {
  const int64_t n = os.numel();
  if (xs == ys) {
    parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = fn(x[i], y[i]);
    });
    return;
  }
  if (xs.numel() == 1) {  // every dim of x is 1: out is laid out like y
    const T a = x[0];
    for (int64_t i = 0; i < n; ++i) out[i] = fn(a, y[i]);
    return;
  }
  if (ys.numel() == 1) {
    const T b = y[0];
    for (int64_t i = 0; i < n; ++i) out[i] = fn(x[i], b);
    return;
  }
  const BroadcastPlan plan = make_broadcast_plan(xs, ys, os, /*axis=*/-1);
  const int64_t sx = plan.inner_x_stride(), sy = plan.inner_y_stride();
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
    for_each_run(plan, b, e, [&](int64_t o, int64_t xo, int64_t yo, int64_t len) {
      for (int64_t k = 0; k < len; ++k) out[o + k] = fn(x[xo + k * sx], y[yo + k * sy]);
    });
  });
}

template <typename T, typename Fn>
void apply_to(const Tensor& x, const Tensor& y, Tensor* out, Fn fn) {
  broadcast_apply(x.data<T>(), x.shape(), y.data<T>(), y.shape(), out->shape(), out->data<bool>(),
                  fn);
}

// Sizes `out` to the broadcast shape of x and y.
void resize_bool_output(const Tensor& x, const Tensor& y, Tensor* out) {
  if (x.shape() == y.shape()) {
    out->resize(x.shape(), DType::kBool);
  } else if (x.numel() == 1 && y.numel() == 1) {
    out->resize(x.rank() >= y.rank() ? x.shape() : y.shape(), DType::kBool);
  } else {
    out->resize(broadcast_shape(x.shape(), y.shape()), DType::kBool);
  }
}

}  // namespace

void compare(CompareOp op, const Tensor& x, const Tensor& y, Tensor* out) {
  SKIFF_CHECK(x.initialized() && y.initialized(), "compare: an input tensor has no value");
  SKIFF_CHECK(x.dtype() == y.dtype(), "cannot compare ", x.type_str(), " with ", y.type_str(),
              ": cast one of them first");
  if (out == &x || out == &y) {
    Tensor result;
    compare(op, x, y, &result);
    *out = std::move(result);
    return;
  }
  if (x.numel() == 1 && y.numel() == 1) {
    // The loop-condition path: dtypes are checked above, so read the raw elements.
    out->resize(x.rank() >= y.rank() ? x.shape() : y.shape(), DType::kBool);
    bool* o = static_cast<bool*>(out->raw_data());
    SKIFF_DISPATCH_ALL(x.dtype(), T, {
      *o = compare_one(op, *static_cast<const T*>(x.raw_data()),
                       *static_cast<const T*>(y.raw_data()));
    });
    return;
  }
  resize_bool_output(x, y, out);
  SKIFF_DISPATCH_ALL(x.dtype(), T, {
    switch (op) {
      case CompareOp::kLess:
        apply_to<T>(x, y, out, Compare<CompareOp::kLess>{});
        break;
      case CompareOp::kLessEqual:
        apply_to<T>(x, y, out, Compare<CompareOp::kLessEqual>{});
        break;
      case CompareOp::kGreater:
        apply_to<T>(x, y, out, Compare<CompareOp::kGreater>{});
        break;
      case CompareOp::kGreaterEqual:
        apply_to<T>(x, y, out, Compare<CompareOp::kGreaterEqual>{});
        break;
      case CompareOp::kEqual:
        apply_to<T>(x, y, out, Compare<CompareOp::kEqual>{});
        break;
      case CompareOp::kNotEqual:
        apply_to<T>(x, y, out, Compare<CompareOp::kNotEqual>{});
        break;
    }
  });
}

void logical(LogicalOp op, const Tensor& x, const Tensor& y, Tensor* out) {
  SKIFF_CHECK(x.initialized() && y.initialized(), "logical op: an input tensor has no value");
  SKIFF_CHECK(x.dtype() == DType::kBool && y.dtype() == DType::kBool,
              "logical ops take bool tensors, got ", x.type_str(), " and ", y.type_str());
  if (out == &x || out == &y) {
    Tensor result;
    logical(op, x, y, &result);
    *out = std::move(result);
    return;
  }
  if (x.numel() == 1 && y.numel() == 1) {
    out->resize(x.rank() >= y.rank() ? x.shape() : y.shape(), DType::kBool);
    *static_cast<bool*>(out->raw_data()) = logical_one(op, *static_cast<const bool*>(x.raw_data()),
                                                       *static_cast<const bool*>(y.raw_data()));
    return;
  }
  resize_bool_output(x, y, out);
  switch (op) {
    case LogicalOp::kAnd:
      apply_to<bool>(x, y, out, Logical<LogicalOp::kAnd>{});
      break;
    case LogicalOp::kOr:
      apply_to<bool>(x, y, out, Logical<LogicalOp::kOr>{});
      break;
    case LogicalOp::kXor:
      apply_to<bool>(x, y, out, Logical<LogicalOp::kXor>{});
      break;
  }
}

void logical_not(const Tensor& x, Tensor* out) {
  SKIFF_CHECK(x.initialized(), "logical_not: the input tensor has no value");
  SKIFF_CHECK(x.dtype() == DType::kBool, "logical_not takes a bool tensor, got ", x.type_str());
  // Resize first: when out is x, this is what un-shares its storage.
  out->resize(x.shape(), DType::kBool);
  const bool* in = x.data<bool>();
  bool* o = out->data<bool>();
  const int64_t n = x.numel();
  if (n == 1) {
    o[0] = !in[0];
    return;
  }
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) o[i] = !in[i];
  });
}

}  // namespace skiff::kernels
