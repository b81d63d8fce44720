#include "skiff/kernels/cpu/scatter_reduce.h"

#include <algorithm>
#include <vector>

namespace skiff::kernels {

namespace {

enum class Reduce { kSum, kProd, kMean, kAmax, kAmin };

Reduce reduction(const char* op, const std::string& name) {
  if (name == "sum") return Reduce::kSum;
  if (name == "prod") return Reduce::kProd;
  if (name == "mean") return Reduce::kMean;
  if (name == "amax") return Reduce::kAmax;
  if (name == "amin") return Reduce::kAmin;
  fail(op, ": reduce must be 'sum', 'prod', 'mean', 'amax' or 'amin', got '", name, "'");
}

// The positions as int64, each checked against n.
std::vector<int64_t> read_positions(const char* op, const Tensor& positions, int64_t n) {
  SKIFF_CHECK(positions.dtype() == DType::kI32 || positions.dtype() == DType::kI64, op,
              ": Index must be int32 or int64, got ", dtype_name(positions.dtype()));
  std::vector<int64_t> pos(static_cast<size_t>(positions.numel()));
  for (size_t k = 0; k < pos.size(); ++k) {
    pos[k] = positions.dtype() == DType::kI32 ? positions.data<int32_t>()[k]
                                              : positions.data<int64_t>()[k];
    SKIFF_CHECK(pos[k] >= 0 && pos[k] < n, op, ": position ", pos[k], " (entry ", k,
                ") is outside X's ", n, " elements");
  }
  return pos;
}

template <typename T>
T combine(Reduce r, T a, T b) {
  switch (r) {
    case Reduce::kProd:
      return a * b;
    case Reduce::kAmax:
      return std::max(a, b);
    case Reduce::kAmin:
      return std::min(a, b);
    default:
      return a + b;
  }
}

template <typename T>
void reduce_into(const T* x, const std::vector<int64_t>& pos, const T* upd, int64_t n, Reduce r,
                 bool include_self, T* out) {
  std::copy(x, x + n, out);
  std::vector<int64_t> count(static_cast<size_t>(n), 0);
  for (size_t k = 0; k < pos.size(); ++k) {
    const int64_t p = pos[k];
    out[p] = !include_self && count[p] == 0 ? upd[k] : combine(r, out[p], upd[k]);
    ++count[p];
  }
  if (r != Reduce::kMean) return;
  for (int64_t p = 0; p < n; ++p)
    if (count[p] > 0) out[p] /= static_cast<T>(count[p] + (include_self ? 1 : 0));
}

template <typename T>
void reduce_grad(const T* x, const std::vector<int64_t>& pos, const T* upd, const T* out,
                 const T* dout, int64_t n, Reduce r, bool include_self, T* dx, T* dupd) {
  // Per element: how many values were combined, how many equal the result (amax/amin),
  // and for prod how many are zero and the product of the others.
  std::vector<int64_t> count(static_cast<size_t>(n), 0), ties(static_cast<size_t>(n), 0),
      zeros(static_cast<size_t>(n), 0);
  std::vector<T> nonzero_product(static_cast<size_t>(n), T(1));
  auto take = [&](int64_t p, T v) {
    ++count[p];
    ties[p] += v == out[p];
    if (v == T(0)) {
      ++zeros[p];
    } else {
      nonzero_product[p] *= v;
    }
  };
  std::vector<bool> touched(static_cast<size_t>(n), false);
  for (int64_t p : pos) touched[p] = true;
  if (include_self)
    for (int64_t p = 0; p < n; ++p)
      if (touched[p]) take(p, x[p]);
  for (size_t k = 0; k < pos.size(); ++k) take(pos[k], upd[k]);
  // d out[p] / d v for one value v combined into element p.
  auto share = [&](int64_t p, T v) -> T {
    switch (r) {
      case Reduce::kSum:
        return T(1);
      case Reduce::kMean:
        return T(1) / static_cast<T>(count[p]);
      case Reduce::kAmax:
      case Reduce::kAmin:
        return v == out[p] ? T(1) / static_cast<T>(ties[p]) : T(0);
      case Reduce::kProd:
        if (zeros[p] == 0) return nonzero_product[p] / v;
        return zeros[p] == 1 && v == T(0) ? nonzero_product[p] : T(0);
    }
    return T(0);
  };
  if (dx) {
    for (int64_t p = 0; p < n; ++p)
      dx[p] = !touched[p] ? dout[p] : include_self ? dout[p] * share(p, x[p]) : T(0);
  }
  if (dupd) {
    for (size_t k = 0; k < pos.size(); ++k) dupd[k] = dout[pos[k]] * share(pos[k], upd[k]);
  }
}

void check_operands(const char* op, const Tensor& x, const Tensor& positions,
                    const Tensor& updates) {
  SKIFF_CHECK(updates.numel() == positions.numel(), op, ": Updates ", updates.type_str(),
              " needs one value per position, and Index is ", positions.type_str());
  SKIFF_CHECK(updates.dtype() == x.dtype(), op, ": Updates is ", dtype_name(updates.dtype()),
              " but X is ", dtype_name(x.dtype()));
}

}  // namespace

void check_scatter_reduction(const char* op, const std::string& reduce) { reduction(op, reduce); }

void scatter_reduce(const Tensor& x, const Tensor& positions, const Tensor& updates,
                    const std::string& reduce, bool include_self, Tensor* out) {
  const Reduce r = reduction("scatter_reduce", reduce);
  check_operands("scatter_reduce", x, positions, updates);
  const std::vector<int64_t> pos = read_positions("scatter_reduce", positions, x.numel());
  const Tensor xs = x, us = updates;  // out may be x or updates
  out->resize(xs.shape(), xs.dtype());
  SKIFF_DISPATCH_NUMERIC(xs.dtype(), T, {
    reduce_into<T>(xs.data<T>(), pos, us.data<T>(), xs.numel(), r, include_self, out->data<T>());
  });
}

void scatter_reduce_grad(const Tensor& x, const Tensor& positions, const Tensor& updates,
                         const Tensor& out, const Tensor& out_grad, const std::string& reduce,
                         bool include_self, Tensor* x_grad, Tensor* updates_grad) {
  const Reduce r = reduction("scatter_reduce_grad", reduce);
  const std::vector<int64_t> pos = read_positions("scatter_reduce_grad", positions, x.numel());
  const Tensor dout = out_grad;
  if (x_grad) x_grad->resize(x.shape(), dout.dtype());
  if (updates_grad) updates_grad->resize(updates.shape(), dout.dtype());
  SKIFF_DISPATCH_FLOATING(dout.dtype(), T, {
    reduce_grad<T>(x.data<T>(), pos, updates.data<T>(), out.data<T>(), dout.data<T>(), x.numel(), r,
                   include_self, x_grad ? x_grad->data<T>() : nullptr,
                   updates_grad ? updates_grad->data<T>() : nullptr);
  });
}

}  // namespace skiff::kernels
