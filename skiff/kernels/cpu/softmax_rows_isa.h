// One contiguous float32 row of softmax and log_softmax (the common case: the class axis
// last), on the best instruction set the CPU has. Both are an exponential per element
// over rows that stay in cache; with AVX-512 Eigen's exp runs on 16 lanes (W4's
// [700, 10000] softmax: 1.5x faster than on AVX2's 8). softmax_rows.cc holds the portable
// overloads (vectorised for the build's baseline), softmax_rows_avx512.cc the AVX-512 ones;
// the loops are one template (softmax_rows_impl.h) compiled twice.
//
//   float lse = dispatch_isa([&](auto isa) { return softmax_row(isa, x, y, n); });
#pragma once

#include <cstdint>

#include "skiff/core/cpu.h"

namespace skiff::kernels {

// y = exp(x - max) / sum(exp(x - max)) over the n values; returns max + log(sum), the
// row's log-sum-exp. y may be x.
float softmax_row(GenericIsa, const float* x, float* y, int64_t n);
float softmax_row(Avx512Isa, const float* x, float* y, int64_t n);

// y = x - (max + log(sum(exp(x - max)))) over the n values. y may be x.
void log_softmax_row(GenericIsa, const float* x, float* y, int64_t n);
void log_softmax_row(Avx512Isa, const float* x, float* y, int64_t n);

}  // namespace skiff::kernels
