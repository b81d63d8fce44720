#include "skiff/kernels/cpu/matmul.h"

#include <algorithm>
#include <type_traits>

#include "skiff/kernels/cpu/bf16_convert.h"
#include "skiff/kernels/cpu/gemm.h"
#include "skiff/kernels/cpu/reduce.h"

namespace skiff::kernels {
namespace {

std::string operands_str(const Shape& x, const Shape& y, bool trans_x, bool trans_y) {
  return str_cat("X ", x, " (trans_x=", trans_x ? "true" : "false", ") and Y ", y,
                 " (trans_y=", trans_y ? "true" : "false", ")");
}

// Broadcasts two dims (-1: unknown). Returns false when they cannot broadcast.
bool broadcast_dim(int64_t a, int64_t b, int64_t* out) {
  if (a == b || b == 1) {
    *out = a;
  } else if (a == 1) {
    *out = b;
  } else if (a < 0 || b < 0) {
    *out = a < 0 ? b : a;  // the unknown dim must be 1 or equal to the known one
  } else {
    return false;
  }
  return true;
}

// matmul as stored matrices: 1-D X is a [1, K] row, 1-D Y a [K, 1] column (and their
// transpose flags are ignored); batch dims padded with leading 1s to one rank.
struct MatmulDims {
  Shape x_batch, y_batch, out_batch;
  int64_t m = 0, n = 0, k = 0;
  bool trans_x = false, trans_y = false;

  GemmProblem problem() const {
    GemmProblem p = GemmProblem::unbatched(m, n, k, trans_x, trans_y);
    p.a_batch = x_batch;
    p.b_batch = y_batch;
    p.c_batch = out_batch;
    return p;
  }
};

// Also the shape check of matmul_shape; `out_shape` gets the result's shape.
MatmulDims matmul_dims(const Shape& x, const Shape& y, bool trans_x, bool trans_y,
                       Shape* out_shape) {
  SKIFF_CHECK(x.rank() >= 1 && y.rank() >= 1, "matmul: operands must have rank >= 1, got ",
              operands_str(x, y, trans_x, trans_y));
  MatmulDims d;
  const int xr = x.rank(), yr = y.rank();
  const bool x_vec = xr == 1, y_vec = yr == 1;
  d.trans_x = trans_x && !x_vec;
  d.trans_y = trans_y && !y_vec;
  d.m = x_vec ? 1 : (d.trans_x ? x[xr - 1] : x[xr - 2]);
  const int64_t kx = x_vec ? x[0] : (d.trans_x ? x[xr - 2] : x[xr - 1]);
  const int64_t ky = y_vec ? y[0] : (d.trans_y ? y[yr - 1] : y[yr - 2]);
  d.n = y_vec ? 1 : (d.trans_y ? y[yr - 2] : y[yr - 1]);
  SKIFF_CHECK(kx < 0 || ky < 0 || kx == ky, "matmul: ", operands_str(x, y, trans_x, trans_y),
              " do not match: X contributes ", kx, " columns, Y ", ky, " rows");
  d.k = kx >= 0 ? kx : ky;
  const int xb = x_vec ? 0 : xr - 2, yb = y_vec ? 0 : yr - 2;
  const int rank = std::max(xb, yb);
  for (int i = 0; i < rank; ++i) {
    const int64_t a = i < rank - xb ? 1 : x[i - (rank - xb)];
    const int64_t b = i < rank - yb ? 1 : y[i - (rank - yb)];
    int64_t c = 0;
    SKIFF_CHECK(broadcast_dim(a, b, &c), "matmul: ", operands_str(x, y, trans_x, trans_y),
                " have batch dims that do not broadcast (", a, " vs ", b, ")");
    d.x_batch.push_back(a);
    d.y_batch.push_back(b);
    d.out_batch.push_back(c);
  }
  *out_shape = d.out_batch;
  if (!x_vec) out_shape->push_back(d.m);
  if (!y_vec) out_shape->push_back(d.n);
  return d;
}

void check_dtypes(const char* what, const Tensor& x, const Tensor& y) {
  SKIFF_CHECK(is_floating(x.dtype()) && x.dtype() == y.dtype(), what,
              ": X and Y must both be float32, both float64 or both bfloat16, got ", x.type_str(),
              " and ", y.type_str());
}

// Overwrites `out` (already sized, of dtype out_dtype) with the products of `p` over x's
// and y's data.
void run_gemm(const GemmProblem& p, const Tensor& x, const Tensor& y, Tensor* out) {
  if (x.dtype() == DType::kBF16) {
    const bfloat16* a = x.data<bfloat16>();
    const bfloat16* b = y.data<bfloat16>();
    if (out->dtype() == DType::kF32) {
      gemm(p, a, b, out->data<float>());
    } else {
      gemm(p, a, b, out->data<bfloat16>());
    }
    return;
  }
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, gemm(p, x.data<T>(), y.data<T>(), out->data<T>()));
}

// dst = the products of `p`, summed over the batch dims where `dst_batch` is 1 and the
// product's batch is not; then given `dst_shape` (same element count). bfloat16 products
// are summed in float32 and rounded once.
template <typename T>
void product_reduced(GemmProblem p, const T* a, const T* b, const Shape& dst_batch,
                     const Shape& dst_shape, Tensor* dst) {
  if (dst_batch == p.c_batch) {
    dst->resize(dst_shape, dtype_of<T>);
    gemm(p, a, b, dst->data<T>());
    return;
  }
  const bool dst_unbatched = dst_batch.numel() == 1;
  if (dst_unbatched && p.trans_a && !p.trans_b && p.a_batch == p.c_batch &&
      p.b_batch == p.c_batch) {
    // Sum over the batch of A_i^T B_i = one product with the batch folded into k.
    p.k *= p.c_batch.numel();
    p.a_batch = p.b_batch = p.c_batch = Shape{};
    dst->resize(dst_shape, dtype_of<T>);
    gemm(p, a, b, dst->data<T>());
    return;
  }
  using Acc = std::conditional_t<std::is_same_v<T, bfloat16>, float, T>;
  Shape full = p.c_batch;
  full.push_back(p.m);
  full.push_back(p.n);
  Tensor all = Tensor::empty(full, dtype_of<Acc>);
  gemm(p, a, b, all.data<Acc>());
  uint32_t axes = 0;
  for (int d = 0; d < dst_batch.rank(); ++d)
    if (dst_batch[d] == 1 && p.c_batch[d] != 1) axes |= 1u << d;
  if constexpr (std::is_same_v<T, Acc>) {
    reduce_sum(all, axes, /*keep_dim=*/true, dst);
  } else {
    Tensor sum;
    reduce_sum(all, axes, /*keep_dim=*/true, &sum);
    round_to_bf16(sum, dst);
  }
  dst->reshape(dst_shape);
}

template <typename T>
void matmul_grad_typed(const MatmulDims& d, const Tensor& x, const Tensor& y, const Tensor& dout,
                       Tensor* dx, Tensor* dy) {
  const T* xp = x.data<T>();
  const T* yp = y.data<T>();
  const T* gp = dout.data<T>();
  if (dx) {
    // X (m x k) gets dOut · Y^T; stored transposed it gets Y · dOut^T.
    GemmProblem p;
    if (!d.trans_x) {
      p.a_batch = d.out_batch;
      p.b_batch = d.y_batch;
      p.m = d.m, p.n = d.k, p.k = d.n;
      p.trans_a = false, p.trans_b = !d.trans_y;
      p.c_batch = d.out_batch;
      product_reduced<T>(p, gp, yp, d.x_batch, x.shape(), dx);
    } else {
      p.a_batch = d.y_batch;
      p.b_batch = d.out_batch;
      p.m = d.k, p.n = d.m, p.k = d.n;
      p.trans_a = d.trans_y, p.trans_b = true;
      p.c_batch = d.out_batch;
      product_reduced<T>(p, yp, gp, d.x_batch, x.shape(), dx);
    }
  }
  if (dy) {
    // Y (k x n) gets X^T · dOut; stored transposed it gets dOut^T · X.
    GemmProblem p;
    if (!d.trans_y) {
      p.a_batch = d.x_batch;
      p.b_batch = d.out_batch;
      p.m = d.k, p.n = d.n, p.k = d.m;
      p.trans_a = !d.trans_x, p.trans_b = false;
      p.c_batch = d.out_batch;
      product_reduced<T>(p, xp, gp, d.y_batch, y.shape(), dy);
    } else {
      p.a_batch = d.out_batch;
      p.b_batch = d.x_batch;
      p.m = d.n, p.n = d.k, p.k = d.m;
      p.trans_a = true, p.trans_b = d.trans_x;
      p.c_batch = d.out_batch;
      product_reduced<T>(p, gp, xp, d.y_batch, y.shape(), dy);
    }
  }
}

}  // namespace

Shape matmul_shape(const Shape& x, const Shape& y, bool trans_x, bool trans_y) {
  Shape out;
  matmul_dims(x, y, trans_x, trans_y, &out);
  return out;
}

void check_matmul_dtypes(DType x, DType y, DType out) {
  SKIFF_CHECK(is_floating(x) && x == y,
              "matmul: X and Y must both be float32, both float64 or both bfloat16, got ",
              dtype_name(x), " and ", dtype_name(y));
  SKIFF_CHECK(out == x || (x == DType::kBF16 && out == DType::kF32), "matmul: out_dtype ",
              dtype_name(out), " is not available for ", dtype_name(x),
              " operands (it may be theirs, or float32 for bfloat16 operands)");
}

void matmul(const Tensor& x, const Tensor& y, bool trans_x, bool trans_y, Tensor* out) {
  matmul(x, y, trans_x, trans_y, x.dtype(), out);
}

void matmul(const Tensor& x, const Tensor& y, bool trans_x, bool trans_y, DType out_dtype,
            Tensor* out) {
  check_matmul_dtypes(x.dtype(), y.dtype(), out_dtype);
  if (x.rank() == 2 && y.rank() == 2 && out != &x && out != &y) {
    // The common case (a layer's [batch, in] x [in, out]) without batch bookkeeping.
    const int64_t m = x.dim(trans_x ? 1 : 0), k = x.dim(trans_x ? 0 : 1);
    const int64_t n = y.dim(trans_y ? 0 : 1);
    SKIFF_CHECK(y.dim(trans_y ? 1 : 0) == k,
                "matmul: ", operands_str(x.shape(), y.shape(), trans_x, trans_y),
                " do not match: X contributes ", k, " columns, Y ", y.dim(trans_y ? 1 : 0),
                " rows");
    out->resize(Shape{m, n}, out_dtype);
    if (x.dtype() == DType::kF32) {
      gemm(m, n, k, trans_x, trans_y, x.data<float>(), y.data<float>(), out->data<float>());
    } else if (x.dtype() == DType::kF64) {
      gemm(m, n, k, trans_x, trans_y, x.data<double>(), y.data<double>(), out->data<double>());
    } else {
      run_gemm(GemmProblem::unbatched(m, n, k, trans_x, trans_y), x, y, out);
    }
    return;
  }
  Shape out_shape;
  const MatmulDims d = matmul_dims(x.shape(), y.shape(), trans_x, trans_y, &out_shape);
  Tensor own;
  Tensor* dst = (out == &x || out == &y) ? &own : out;
  dst->resize(out_shape, out_dtype);
  run_gemm(d.problem(), x, y, dst);
  if (dst == &own) *out = own;
}

void matmul_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, bool trans_x,
                 bool trans_y, Tensor* x_grad, Tensor* y_grad) {
  check_dtypes("matmul_grad", x, y);
  Shape out_shape;
  const MatmulDims d = matmul_dims(x.shape(), y.shape(), trans_x, trans_y, &out_shape);
  const bool bf16 = x.dtype() == DType::kBF16;
  const bool f32_grad_of_bf16 = bf16 && out_grad.dtype() == DType::kF32;
  SKIFF_CHECK((out_grad.dtype() == x.dtype() || f32_grad_of_bf16) && out_grad.shape() == out_shape,
              "matmul_grad: Out@GRAD is ", out_grad.type_str(), " but matmul of ",
              operands_str(x.shape(), y.shape(), trans_x, trans_y), " gives ",
              dtype_name(x.dtype()), out_shape, bf16 ? " (or float32)" : "");
  auto aliases_input = [&](const Tensor* t) { return t == &x || t == &y || t == &out_grad; };
  Tensor own_dx, own_dy;
  Tensor* dx = x_grad && aliases_input(x_grad) ? &own_dx : x_grad;
  Tensor* dy = y_grad && aliases_input(y_grad) ? &own_dy : y_grad;
  if (bf16) {
    // A float32 Out@GRAD (out_dtype float32) is rounded to bfloat16 for the bf16 products.
    Tensor rounded;
    if (f32_grad_of_bf16) round_to_bf16(out_grad, &rounded);
    matmul_grad_typed<bfloat16>(d, x, y, f32_grad_of_bf16 ? rounded : out_grad, dx, dy);
  } else {
    SKIFF_DISPATCH_FLOATING(x.dtype(), T, matmul_grad_typed<T>(d, x, y, out_grad, dx, dy));
  }
  if (dx == &own_dx) *x_grad = own_dx;
  if (dy == &own_dy) *y_grad = own_dy;
}

}  // namespace skiff::kernels
