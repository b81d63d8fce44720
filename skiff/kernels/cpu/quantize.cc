#include "skiff/kernels/cpu/quantize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "skiff/core/parallel.h"

namespace skiff::kernels {

namespace {

// The grid as the loops use it: each channel's scale and zero point, and how x's
// elements fall into channels (outer x channels x inner).
struct Channels {
  std::vector<double> scale;
  std::vector<int64_t> zero;
  int64_t outer = 1, count = 1, inner = 1;
};

// What the loops need of a grid: the integer range and the rounding too.
struct QuantGrid {
  const Tensor* scale;
  const Tensor* zero_point;
  int64_t axis, qmin, qmax;
  bool half_even;
};

Channels channels_of(const Tensor& x, const QuantGrid& g, const char* op) {
  SKIFF_CHECK(g.scale && g.scale->initialized(), op, ": no Scale");
  const Tensor& scale = *g.scale;
  SKIFF_CHECK(scale.dtype() == DType::kF32 || scale.dtype() == DType::kF64, op,
              ": Scale must be float32 or float64, got ", scale.type_str());
  Channels c;
  const int64_t n = scale.numel();
  SKIFF_CHECK(n >= 1, op, ": Scale is empty");
  if (n > 1) {
    const int64_t rank = x.rank();
    const int64_t axis = g.axis < 0 ? g.axis + rank : g.axis;
    SKIFF_CHECK(axis >= 0 && axis < rank, op, ": quant_axis ", g.axis, " is out of range for X ",
                x.type_str());
    SKIFF_CHECK(x.shape()[axis] == n, op, ": Scale has ", n, " elements (per channel) but X ",
                x.type_str(), " has ", x.shape()[axis], " along quant_axis ", axis);
    for (int64_t d = 0; d < axis; ++d) c.outer *= x.shape()[d];
    for (int64_t d = axis + 1; d < rank; ++d) c.inner *= x.shape()[d];
    c.count = n;
  } else {
    c.inner = x.numel();
  }
  c.scale.resize(n);
  SKIFF_DISPATCH_FLOATING(scale.dtype(), T, {
    const T* s = scale.data<T>();
    for (int64_t i = 0; i < n; ++i) c.scale[i] = static_cast<double>(s[i]);
  });
  for (int64_t i = 0; i < n; ++i) {
    SKIFF_CHECK(std::isfinite(c.scale[i]) && c.scale[i] > 0, op, ": scale ", c.scale[i],
                n > 1 ? str_cat(" of channel ", i) : std::string(),
                " is not a positive finite number (a quantizer calibrated on no data, or on "
                "zeros only?)");
  }
  c.zero.assign(n, 0);
  if (g.zero_point && g.zero_point->initialized()) {
    const Tensor& z = *g.zero_point;
    SKIFF_CHECK(z.numel() == n && !is_floating(z.dtype()) && z.dtype() != DType::kBool, op,
                ": ZeroPoint ", z.type_str(), " must hold ", n, " integers, one per scale");
    SKIFF_DISPATCH_ALL(z.dtype(), T, {
      const T* p = z.data<T>();
      for (int64_t i = 0; i < n; ++i) c.zero[i] = static_cast<int64_t>(p[i]);
    });
  }
  SKIFF_CHECK(g.qmin < g.qmax, op, ": quant_min ", g.qmin, " is not below quant_max ", g.qmax);
  return c;
}

QuantGrid grid(const Tensor& scale, const Tensor& zero_point, int64_t axis, int64_t qmin,
               int64_t qmax, int64_t round_type, const char* op) {
  SKIFF_CHECK(round_type == 0 || round_type == 1, op,
              ": round_type must be 0 (ties to even) or 1 (ties away from zero), got ", round_type);
  return {&scale, &zero_point, axis, qmin, qmax, round_type == 0};
}

double round_double(double v, bool half_even) {
  return half_even ? std::nearbyint(v) : std::round(v);
}

// Calls fn(element index, channel) for every element of x, channels in parallel.
template <typename Fn>
void for_each_element(const Channels& c, Fn&& fn) {
  parallel_for(c.outer * c.count,
               std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(c.inner, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t oc = b; oc < e; ++oc) {
                   const int64_t ch = oc % c.count;
                   for (int64_t i = oc * c.inner, end = i + c.inner; i < end; ++i) fn(i, ch);
                 }
               });
}

// The integer of x on channel ch's grid, before clamping; x / scale in x's precision, as
// ONNX's QuantizeLinear divides.
template <typename T>
double grid_integer(T x, const Channels& c, int64_t ch, bool half_even) {
  const T v = x / static_cast<T>(c.scale[ch]);
  return round_double(static_cast<double>(v), half_even) + static_cast<double>(c.zero[ch]);
}

// quantize_linear's common case (float32 to int8, one scale, ties to even) in float, a loop
// the compiler vectorises.
void quantize_f32_to_i8(const float* in, float scale, float zero, int64_t n, int8_t* out) {
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      out[i] = static_cast<int8_t>(round_to_grid(in[i] / scale, zero, -128.f, 127.f));
  });
}

}  // namespace

void quant_range(DType dtype, int64_t* qmin, int64_t* qmax) {
  switch (dtype) {
    case DType::kI8:
      *qmin = -128, *qmax = 127;
      return;
    case DType::kU8:
      *qmin = 0, *qmax = 255;
      return;
    case DType::kI16:
      *qmin = std::numeric_limits<int16_t>::min(), *qmax = std::numeric_limits<int16_t>::max();
      return;
    case DType::kI32:
      *qmin = std::numeric_limits<int32_t>::min(), *qmax = std::numeric_limits<int32_t>::max();
      return;
    default:
      fail("quantization: ", dtype_name(dtype),
           " is not a quantized dtype (int8, uint8, int16 or int32)");
  }
}

void quantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point, int64_t axis,
                     int64_t round_type, DType to, Tensor* y) {
  SKIFF_CHECK(x.initialized(), "quantize_linear: X has no value");
  int64_t lo, hi;
  quant_range(to, &lo, &hi);
  const QuantGrid g = grid(scale, zero_point, axis, lo, hi, round_type, "quantize_linear");
  const Channels c = channels_of(x, g, "quantize_linear");
  y->resize(x.shape(), to);
  if (x.dtype() == DType::kF32 && to == DType::kI8 && g.half_even && c.count == 1) {
    quantize_f32_to_i8(x.data<float>(), static_cast<float>(c.scale[0]),
                       static_cast<float>(c.zero[0]), x.numel(), y->data<int8_t>());
    return;
  }
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* in = x.data<T>();
    SKIFF_DISPATCH_ALL(to, Q, {
      Q* out = y->data<Q>();
      for_each_element(c, [&](int64_t i, int64_t ch) {
        const double q = grid_integer(in[i], c, ch, g.half_even);
        out[i] =
            std::isnan(q)
                ? Q(0)
                : static_cast<Q>(std::clamp(q, static_cast<double>(lo), static_cast<double>(hi)));
      });
    });
  });
}

void dequantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point, int64_t axis,
                       DType to, Tensor* y) {
  SKIFF_CHECK(x.initialized(), "dequantize_linear: X has no value");
  SKIFF_CHECK(!is_floating(x.dtype()) && x.dtype() != DType::kBool,
              "dequantize_linear: X must hold integers, got ", x.type_str());
  const Channels c = channels_of(x, grid(scale, zero_point, axis, 0, 1, 0, "dequantize_linear"),
                                 "dequantize_linear");
  y->resize(x.shape(), to);
  SKIFF_DISPATCH_FLOATING(to, T, {
    T* out = y->data<T>();
    SKIFF_DISPATCH_ALL(x.dtype(), Q, {
      const Q* in = x.data<Q>();
      for_each_element(c, [&](int64_t i, int64_t ch) {
        out[i] = static_cast<T>((static_cast<double>(in[i]) - static_cast<double>(c.zero[ch])) *
                                c.scale[ch]);
      });
    });
  });
}

void fake_quantize(const Tensor& x, const Tensor& scale, const Tensor& zero_point, int64_t axis,
                   int64_t qmin, int64_t qmax, int64_t round_type, Tensor* y) {
  const char* op = "fake_quantize_dequantize";
  SKIFF_CHECK(x.initialized(), op, ": X has no value");
  const QuantGrid g = grid(scale, zero_point, axis, qmin, qmax, round_type, op);
  const Channels c = channels_of(x, g, op);
  const double lo = static_cast<double>(qmin), hi = static_cast<double>(qmax);
  if (y != &x) y->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* in = x.data<T>();
    T* out = y->data<T>();
    for_each_element(c, [&](int64_t i, int64_t ch) {
      const double q = std::clamp(grid_integer(in[i], c, ch, g.half_even), lo, hi);
      out[i] = static_cast<T>((q - static_cast<double>(c.zero[ch])) * c.scale[ch]);
    });
  });
}

void fake_quantize_grad(const Tensor& x, const Tensor& scale, const Tensor& zero_point,
                        int64_t axis, int64_t qmin, int64_t qmax, int64_t round_type,
                        const Tensor& y_grad, Tensor* x_grad) {
  const char* op = "fake_quantize_dequantize_grad";
  SKIFF_CHECK(x.initialized() && y_grad.initialized() && y_grad.shape() == x.shape(), op,
              ": Out@GRAD ", y_grad.type_str(), " must be shaped like X ", x.type_str());
  const QuantGrid g = grid(scale, zero_point, axis, qmin, qmax, round_type, op);
  const Channels c = channels_of(x, g, op);
  const double lo = static_cast<double>(qmin), hi = static_cast<double>(qmax);
  x_grad->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* in = x.data<T>();
    const T* dy = y_grad.data<T>();
    T* dx = x_grad->data<T>();
    for_each_element(c, [&](int64_t i, int64_t ch) {
      const double q = grid_integer(in[i], c, ch, g.half_even);
      dx[i] = q >= lo && q <= hi ? dy[i] : T(0);
    });
  });
}

}  // namespace skiff::kernels
